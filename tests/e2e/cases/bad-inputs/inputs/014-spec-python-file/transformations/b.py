from pyspark import pipelines as dp
