# Seed 000's checkpoint migration, verbatim. weir accepts import_checkpoint
# but does not import the checkpoint yet: it prints a WARNING line and the
# flow starts from a new checkpoint, so it reads source_table from the
# start (see ../README.md).
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
