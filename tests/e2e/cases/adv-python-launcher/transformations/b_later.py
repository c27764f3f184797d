from pyspark import pipelines as dp


@dp.materialized_view
def later():
    return spark.range(3)
