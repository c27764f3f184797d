# Seed 000's first examples, with the page's placeholders filled in: the
# sink's path is a folder of this project instead of /tmp/delta_sink, the
# streaming query reads this project's data/events/ folder, and the
# backfill reads data/backfill/. The backfill (a once flow into the sink)
# is in not-runnable/backfill.py: see ../README.md.
from pyspark import pipelines as dp

# Create a sink for an external Delta table
dp.create_sink("my_sink", "delta", {"path": "out/delta_sink"})


# Add an append flow to an external Delta table
@dp.append_flow(name="flow", target="my_sink")
def flowFunc():
    return (
        spark.readStream.format("json")
        .schema("event_id BIGINT, kind STRING")
        .load("data/events/")
    )
