# Parquet inputs of the project, written at test time (run.sh) with the
# client environment's pyarrow, so no binary file is committed.
import os
import pyarrow as pa
import pyarrow.parquet as pq

os.makedirs("data/archive/orders", exist_ok=True)
pq.write_table(pa.table({"order_id": pa.array([9], pa.int64()),
                         "amount": pa.array([3.5], pa.float64())}),
               "data/archive/orders/part-0.parquet")
