# The Python scaffold runs the same with pyspark-client 4.1.3, whose files
# get no injected `spark` in Spark (they call SparkSession.active(), as the
# scaffold does; weir injects it anyway).
expect_python_scaffold_runs 4.1.3
