"""Register a pipeline project's definitions through a Spark Connect server,
the way `python -m pyspark.pipelines.cli run` does up to StartRun, using
pyspark.pipelines' own machinery (spec loading, graph creation, the
Spark Connect registry and register_definitions).

usage: python register.py SPEC_PATH sc://localhost:PORT/;token=T
Exit status 0 when every definition was accepted; a traceback and 1 otherwise.
"""
import sys
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.pipelines.cli import load_pipeline_spec, register_definitions
from pyspark.pipelines.spark_connect_graph_element_registry import (
    SparkConnectGraphElementRegistry,
)
from pyspark.pipelines.spark_connect_pipeline import create_dataflow_graph


def main() -> None:
    spec_path = Path(sys.argv[1]).resolve()
    spec = load_pipeline_spec(spec_path)
    builder = SparkSession.builder.remote(sys.argv[2]).config(
        "spark.sql.connect.serverStacktrace.enabled", "false"
    )
    for key, value in spec.configuration.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    try:
        graph_id = create_dataflow_graph(
            spark,
            default_catalog=spec.catalog,
            default_database=spec.database,
            sql_conf=spec.configuration,
        )
        registry = SparkConnectGraphElementRegistry(spark, graph_id)
        register_definitions(spec_path, registry, spec, spark, graph_id)
    finally:
        spark.stop()
    print("registered")


if __name__ == "__main__":
    main()
