# Parquet inputs of the project, written at test time (run.sh) with the
# client environment's pyarrow, so no binary file is committed.
import datetime
import os
import pyarrow as pa
import pyarrow.parquet as pq

os.makedirs("data/events/b", exist_ok=True)
pq.write_table(pa.table({"id": pa.array([2], pa.int64()),
                         "ts": pa.array([datetime.datetime(2025, 1, 1)], pa.timestamp("us"))}),
               "data/events/b/part-0.parquet")
