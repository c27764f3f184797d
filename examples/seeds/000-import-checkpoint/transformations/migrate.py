# Seed 000's checkpoint migration, verbatim. The page's checkpoint folder
# does not exist here, so the flow fails with IMPORT_CHECKPOINT_NOT_FOUND
# naming it; point import_checkpoint at a real checkpointLocation of a
# query reading files or Kafka (docs/import-checkpoint.md: a table source,
# as below, is Delta's on Spark, which weir cannot import).
from pyspark import pipelines as dp

# Create a new managed table for the pipeline
dp.create_table("target_table")

# Continue from the imported checkpoint instead of reprocessing the source.
@dp.append_flow(
  target = "target_table",
  import_checkpoint = "/Volumes/my_catalog/my_schema/checkpoints/my_stream",
)
def migrate():
  # The same source your original query read from.
  return spark.readStream.table("source_table")
