# Seed 001's Auto CDC in Python: dp.create_auto_cdc_flow (pyspark-client 4.2).
from pyspark import pipelines as dp

dp.create_streaming_table("customers")

dp.create_auto_cdc_flow(
    target="customers",
    source="customers_cdc",
    keys=["customer_id"],
    sequence_by="seq",
)
