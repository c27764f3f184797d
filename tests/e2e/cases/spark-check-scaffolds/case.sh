# The scaffolds against open-source Apache Spark 4.1 (weir dry-run --target
# spark): the SQL scaffold's findings are exactly the weir-only constructs
# it uses (its relative storage, read_files, the expectation); the Python
# scaffold is portable. weir's Databricks shim spellings in Python files
# (dp.expect*, append_flow once= and import_checkpoint=) are found too.

run_weir init demo
cd demo
run_weir dry-run --target spark
expect_exit 2
expect_stdout_contains "Run is COMPLETED."
expect_stdout_contains "spark-pipeline.yml:10:10: Spark rejects relative storage: [PIPELINE_STORAGE_ROOT_INVALID]"
expect_stdout_contains "transformations/orders_bronze.sql:11:13: Spark rejects read_files: [PARSE_SYNTAX_ERROR]"
expect_stdout_contains "transformations/orders_silver.sql:10:3: Spark rejects CONSTRAINT ... EXPECT: [PARSE_SYNTAX_ERROR]"
expect_stdout_contains "3 constructs that Apache Spark 4.1 rejects or runs differently (docs/spark.md)."
expect_equal "findings" "$(grep -c ': Spark \(rejects\|runs\) ' "$WEIR_STDOUT")" 3
cd ..

WEIR_PYTHON=$("$E2E_LIB/../../scripts/pyclient.sh" 4.1.3)
export WEIR_PYTHON
run_weir init --language python pydemo
expect_exit 0
expect_file_contains pydemo/spark-pipeline.yml "storage: file://$E2E_WORK/pydemo/pipeline-storage"
cd pydemo
run_weir dry-run --target spark
expect_exit 0
expect_stdout_contains "Portable: nothing Apache Spark 4.1 would reject or run differently."
# It runs as it did with a relative storage.
run_weir run
expect_exit 0
expect_stdout_contains "Run is COMPLETED."
expect_dir_exists pipeline-storage
expect_query "SELECT count(*) AS n FROM orders_silver" "n
28"
cd ..

# The shim's spellings.
mkdir -p shim/transformations
printf 'name: shim\nstorage: file://%s/shim/storage\nlibraries:\n  - glob:\n      include: transformations/**\n' \
    "$E2E_WORK" >shim/spark-pipeline.yml
cat >shim/transformations/a.py <<'PY'
from pyspark import pipelines as dp
from pyspark.sql import SparkSession

spark = SparkSession.active()


@dp.expect_or_drop("positive", "id > 0")
@dp.materialized_view
def src():
    return spark.range(3)


dp.create_streaming_table("t")


@dp.append_flow(target="t", once=True)
def backfill():
    return spark.read.table("src")


@dp.table
def files():
    return spark.readStream.format("json").schema("x INT").load("in")
PY
mkdir -p shim/in
cd shim
run_weir dry-run --target spark
expect_exit 2
expect_stdout_contains "transformations/a.py:8: Spark rejects dp.expect*: pyspark.pipelines 4.1 has no expectation decorators"
expect_stdout_contains '= portable: drop the rows with .where("id > 0")'
expect_stdout_contains "transformations/a.py:16: Spark rejects append_flow(once=True)"
# The DataFrame reader is Spark's own.
expect_stdout_not_contains "read_files"
expect_stdout_contains "2 constructs that Apache Spark 4.1 rejects or runs differently"
