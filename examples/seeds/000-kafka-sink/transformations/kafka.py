# Seed 000's Kafka sink and its append flow. The page's read_stream("xxx")
# is Databricks' legacy reader and undefined here; this file reads the
# events table of events.sql instead.
from pyspark import pipelines as dp
from pyspark.sql import functions as F

# Create a Kafka sink
dp.create_sink(
  "my_kafka_sink",
  "kafka",
  {
    "kafka.bootstrap.servers": "host:port",
    "topic": "my_topic"
  }
)

# Add an append flow to a Kafka sink
@dp.append_flow(name = "flow", target = "my_kafka_sink")
def myFlow():
  return spark.readStream.table("events").select(F.to_json(F.struct("*")).alias("value"))
