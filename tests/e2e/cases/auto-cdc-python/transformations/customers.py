from pyspark import pipelines as dp
from pyspark.sql import functions as F

dp.create_streaming_table("customers")
dp.create_auto_cdc_flow(
    target="customers",
    source="feed",
    keys=["id"],
    sequence_by=F.col("seq"),
    apply_as_deletes="op = 'DELETE'",
    except_column_list=["op"],
    stored_as_scd_type=1,
    name="customers_cdc",
)

dp.create_streaming_table("names")
dp.create_auto_cdc_flow(target="names", source="feed", keys=["id"],
                        sequence_by="seq", column_list=["id", "name"])
