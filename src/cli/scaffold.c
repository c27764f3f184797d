/*
 * The project `weir init` creates, as text: a spec, a medallion example
 * (bronze streaming table from landed JSON files, silver streaming table
 * with types and an expectation, gold materialized view) and three files of
 * sample orders, one of them without an amount and one with a negative
 * amount so the example has something to clean, in SQL or in Python
 * (pyspark.pipelines), and one passing test (`weir test`).
 * Writing them is cmd_init.c's business.
 */
#include <string.h>
#include <strings.h>

#include "cli.h"

static const char readme[] =
    "# A weir pipeline\n"
    "\n"
    "Orders land as JSON-lines files and flow through three layers:\n"
    "\n"
    "    data/landing/orders/*.json\n"
    "      -> orders_bronze   streaming table: raw rows, each file read once\n"
    "      -> orders_silver   streaming table: typed, invalid amounts dropped\n"
    "      -> daily_revenue   materialized view: orders and revenue per day\n"
    "\n"
    "Files:\n"
    "\n"
    "    spark-pipeline.yml   the pipeline spec (name, storage, SQL files)\n"
    "    transformations/     one SQL file per dataset\n"
    "    data/landing/orders/ sample input; add files and run again\n"
    "    tests/               tests on fixture data, run by `weir test`\n"
    "    pipeline-storage/    created by the first run: tables, checkpoints\n"
    "                         and the event log\n"
    "\n"
    "Try:\n"
    "\n"
    "    weir dry-run                  # validate, show datasets and schemas\n"
    "    weir test                     # run tests/*.yml on their fixture rows\n"
    "    weir run                      # run an update\n"
    "    weir query \"SELECT * FROM daily_revenue ORDER BY order_date\"\n"
    "    weir events --quality         # what the expectation dropped\n"
    "    weir graph --format mermaid   # the dataflow graph\n"
    "    weir run --full-refresh-all   # recompute everything from scratch\n";

static const char bronze_sql[] =
    "-- Bronze: the raw orders, exactly as they land.\n"
    "--\n"
    "-- A streaming table reads its source incrementally: every run picks up only\n"
    "-- the files that arrived in data/landing/orders/ since the last run, so each\n"
    "-- order is ingested once. read_files infers the columns from the JSON lines.\n"
    "-- (read_files is a weir and Databricks table function; open-source Spark\n"
    "-- reads files through a Python source instead.)\n"
    "CREATE STREAMING TABLE orders_bronze\n"
    "COMMENT 'Raw orders from the landing folder, as received'\n"
    "AS SELECT *\n"
    "FROM STREAM read_files('data/landing/orders', format => 'json');\n";

static const char silver_sql[] =
    "-- Silver: clean, typed orders.\n"
    "--\n"
    "-- Reads orders_bronze as a stream, so each bronze row is processed once, gives\n"
    "-- every column its proper type, skips rows without an amount, and drops rows\n"
    "-- that break the valid_amount expectation. The rows each expectation passed\n"
    "-- and dropped are recorded in the event log: see `weir events --quality`.\n"
    "-- (CONSTRAINT ... EXPECT is a weir and Databricks extension: remove that line\n"
    "-- to run this file on open-source Spark.)\n"
    "CREATE STREAMING TABLE orders_silver (\n"
    "  CONSTRAINT valid_amount EXPECT (amount >= 0) ON VIOLATION DROP ROW\n"
    ")\n"
    "COMMENT 'Orders with typed columns and a valid amount'\n"
    "AS SELECT\n"
    "  CAST(order_id AS BIGINT) AS order_id,\n"
    "  CAST(customer_id AS BIGINT) AS customer_id,\n"
    "  CAST(amount AS DECIMAL(12,2)) AS amount,\n"
    "  CAST(order_ts AS TIMESTAMP) AS order_ts,\n"
    "  status\n"
    "FROM STREAM(orders_bronze)\n"
    "WHERE amount IS NOT NULL;\n";

static const char gold_sql[] =
    "-- Gold: revenue per day.\n"
    "--\n"
    "-- A materialized view is recomputed from orders_silver on every run, so it\n"
    "-- always matches its input, whatever arrived or was corrected upstream.\n"
    "CREATE MATERIALIZED VIEW daily_revenue\n"
    "COMMENT 'Number of orders and revenue per day'\n"
    "AS SELECT\n"
    "  to_date(order_ts) AS order_date,\n"
    "  count(*) AS orders,\n"
    "  sum(amount) AS revenue\n"
    "FROM orders_silver\n"
    "GROUP BY 1;\n";

static const char orders_1[] =
    "{\"order_id\": 1001, \"customer_id\": 17, \"amount\": 24.50, \"order_ts\": \"2026-01-05 08:12:09\", \"status\": \"delivered\"}\n"
    "{\"order_id\": 1002, \"customer_id\": 4, \"amount\": 118.00, \"order_ts\": \"2026-01-05 09:40:51\", \"status\": \"delivered\"}\n"
    "{\"order_id\": 1003, \"customer_id\": 23, \"amount\": 9.99, \"order_ts\": \"2026-01-05 10:03:17\", \"status\": \"shipped\"}\n"
    "{\"order_id\": 1004, \"customer_id\": 8, \"amount\": 56.25, \"order_ts\": \"2026-01-05 11:26:44\", \"status\": \"delivered\"}\n"
    "{\"order_id\": 1005, \"customer_id\": 17, \"amount\": 12.00, \"order_ts\": \"2026-01-05 13:58:02\", \"status\": \"shipped\"}\n"
    "{\"order_id\": 1006, \"customer_id\": 42, \"amount\": 230.10, \"order_ts\": \"2026-01-05 15:14:38\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1007, \"customer_id\": 15, \"amount\": null, \"order_ts\": \"2026-01-05 16:45:00\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1008, \"customer_id\": 4, \"amount\": 74.80, \"order_ts\": \"2026-01-05 18:31:27\", \"status\": \"shipped\"}\n"
    "{\"order_id\": 1009, \"customer_id\": 31, \"amount\": 5.49, \"order_ts\": \"2026-01-05 20:07:55\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1010, \"customer_id\": 8, \"amount\": 41.00, \"order_ts\": \"2026-01-05 22:49:13\", \"status\": \"placed\"}\n";

static const char orders_2[] =
    "{\"order_id\": 1011, \"customer_id\": 23, \"amount\": 19.90, \"order_ts\": \"2026-01-06 07:55:31\", \"status\": \"delivered\"}\n"
    "{\"order_id\": 1012, \"customer_id\": 42, \"amount\": 64.00, \"order_ts\": \"2026-01-06 09:12:08\", \"status\": \"shipped\"}\n"
    "{\"order_id\": 1013, \"customer_id\": 7, \"amount\": 150.00, \"order_ts\": \"2026-01-06 10:38:46\", \"status\": \"delivered\"}\n"
    "{\"order_id\": 1014, \"customer_id\": 15, \"amount\": -15.00, \"order_ts\": \"2026-01-06 11:02:19\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1015, \"customer_id\": 31, \"amount\": 33.33, \"order_ts\": \"2026-01-06 12:47:52\", \"status\": \"shipped\"}\n"
    "{\"order_id\": 1016, \"customer_id\": 17, \"amount\": 8.75, \"order_ts\": \"2026-01-06 14:20:05\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1017, \"customer_id\": 4, \"amount\": 99.95, \"order_ts\": \"2026-01-06 16:09:40\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1018, \"customer_id\": 56, \"amount\": 27.40, \"order_ts\": \"2026-01-06 17:33:12\", \"status\": \"shipped\"}\n"
    "{\"order_id\": 1019, \"customer_id\": 8, \"amount\": 12.60, \"order_ts\": \"2026-01-06 19:58:27\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1020, \"customer_id\": 7, \"amount\": 45.00, \"order_ts\": \"2026-01-06 23:14:50\", \"status\": \"placed\"}\n";

static const char orders_3[] =
    "{\"order_id\": 1021, \"customer_id\": 56, \"amount\": 310.00, \"order_ts\": \"2026-01-07 08:05:44\", \"status\": \"shipped\"}\n"
    "{\"order_id\": 1022, \"customer_id\": 23, \"amount\": 14.20, \"order_ts\": \"2026-01-07 09:29:03\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1023, \"customer_id\": 42, \"amount\": 72.15, \"order_ts\": \"2026-01-07 10:51:37\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1024, \"customer_id\": 31, \"amount\": 6.50, \"order_ts\": \"2026-01-07 12:16:21\", \"status\": \"shipped\"}\n"
    "{\"order_id\": 1025, \"customer_id\": 7, \"amount\": 88.88, \"order_ts\": \"2026-01-07 13:44:58\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1026, \"customer_id\": 15, \"amount\": 23.00, \"order_ts\": \"2026-01-07 15:02:30\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1027, \"customer_id\": 4, \"amount\": 140.25, \"order_ts\": \"2026-01-07 16:37:14\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1028, \"customer_id\": 17, \"amount\": 3.99, \"order_ts\": \"2026-01-07 18:20:49\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1029, \"customer_id\": 8, \"amount\": 57.60, \"order_ts\": \"2026-01-07 20:11:06\", \"status\": \"placed\"}\n"
    "{\"order_id\": 1030, \"customer_id\": 23, \"amount\": 19.00, \"order_ts\": \"2026-01-07 21:48:42\", \"status\": \"placed\"}\n";

static const char readme_python[] =
    "# A weir pipeline in Python\n"
    "\n"
    "Orders land as JSON-lines files and flow through three layers:\n"
    "\n"
    "    data/landing/orders/*.json\n"
    "      -> orders_bronze   streaming table: raw rows, each file read once\n"
    "      -> orders_silver   streaming table: typed, invalid amounts dropped\n"
    "      -> daily_revenue   materialized view: orders and revenue per day\n"
    "\n"
    "Files:\n"
    "\n"
    "    spark-pipeline.yml   the pipeline spec (name, storage, definition files)\n"
    "    transformations/     one Python file per dataset (pyspark.pipelines)\n"
    "    data/landing/orders/ sample input; add files and run again\n"
    "    tests/               tests on fixture data, run by `weir test`\n"
    "    pipeline-storage/    created by the first run: tables, checkpoints\n"
    "                         and the event log\n"
    "\n"
    "weir imports the files with your Python and pyspark-client (WEIR_PYTHON,\n"
    "else the active virtual environment, else python3):\n"
    "\n"
    "    python3 -m pip install 'pyspark-client==4.2.0' 'pandas<3'\n"
    "\n"
    "Try:\n"
    "\n"
    "    weir dry-run                  # validate, show datasets and schemas\n"
    "    weir test                     # run tests/*.yml on their fixture rows\n"
    "    weir run                      # run an update\n"
    "    weir query \"SELECT * FROM daily_revenue ORDER BY order_date\"\n"
    "    weir graph --format mermaid   # the dataflow graph\n"
    "    weir run --full-refresh-all   # recompute everything from scratch\n";

/* The same datasets as the SQL files, valid for pyspark-client 4.1 (which
 * wants SparkSession.active()) and 4.2 (which also injects `spark`), and
 * for open-source Spark (no weir or Databricks extension). */
static const char bronze_py[] =
    "# Bronze: the raw orders, exactly as they land.\n"
    "#\n"
    "# A streaming table reads its source incrementally: every run picks up only\n"
    "# the files that arrived in data/landing/orders/ since the last run, so each\n"
    "# order is ingested once. Streaming file sources need a schema.\n"
    "from pyspark import pipelines as dp\n"
    "from pyspark.sql import DataFrame, SparkSession\n"
    "\n"
    "spark = SparkSession.active()\n"
    "\n"
    "\n"
    "@dp.table(comment=\"Raw orders from the landing folder, as received\")\n"
    "def orders_bronze() -> DataFrame:\n"
    "    return (\n"
    "        spark.readStream.format(\"json\")\n"
    "        .schema(\"order_id BIGINT, customer_id BIGINT, amount DOUBLE, \"\n"
    "                \"order_ts STRING, status STRING\")\n"
    "        .load(\"data/landing/orders\")\n"
    "    )\n";

static const char silver_py[] =
    "# Silver: clean, typed orders.\n"
    "#\n"
    "# Reads orders_bronze as a stream, so each bronze row is processed once, gives\n"
    "# every column its proper type and keeps the rows with a valid amount. (On\n"
    "# weir and Databricks, @dp.expect_or_drop(\"valid_amount\", \"amount >= 0\")\n"
    "# would drop them and count the drops in the event log; open-source Spark\n"
    "# has no expectations, so this file filters.)\n"
    "from pyspark import pipelines as dp\n"
    "from pyspark.sql import DataFrame, SparkSession\n"
    "from pyspark.sql import functions as F\n"
    "\n"
    "spark = SparkSession.active()\n"
    "\n"
    "\n"
    "@dp.table(comment=\"Orders with typed columns and a valid amount\")\n"
    "def orders_silver() -> DataFrame:\n"
    "    return (\n"
    "        spark.readStream.table(\"orders_bronze\")\n"
    "        .where(F.col(\"amount\").isNotNull() & (F.col(\"amount\") >= 0))\n"
    "        .select(\n"
    "            F.col(\"order_id\").cast(\"bigint\").alias(\"order_id\"),\n"
    "            F.col(\"customer_id\").cast(\"bigint\").alias(\"customer_id\"),\n"
    "            F.col(\"amount\").cast(\"decimal(12,2)\").alias(\"amount\"),\n"
    "            F.col(\"order_ts\").cast(\"timestamp\").alias(\"order_ts\"),\n"
    "            F.col(\"status\"),\n"
    "        )\n"
    "    )\n";

static const char gold_py[] =
    "# Gold: revenue per day.\n"
    "#\n"
    "# A materialized view is recomputed from orders_silver on every run, so it\n"
    "# always matches its input, whatever arrived or was corrected upstream.\n"
    "from pyspark import pipelines as dp\n"
    "from pyspark.sql import DataFrame, SparkSession\n"
    "from pyspark.sql import functions as F\n"
    "\n"
    "spark = SparkSession.active()\n"
    "\n"
    "\n"
    "@dp.materialized_view(comment=\"Number of orders and revenue per day\")\n"
    "def daily_revenue() -> DataFrame:\n"
    "    return (\n"
    "        spark.read.table(\"orders_silver\")\n"
    "        .groupBy(F.to_date(\"order_ts\").alias(\"order_date\"))\n"
    "        .agg(F.count(\"*\").alias(\"orders\"), F.sum(\"amount\").alias(\"revenue\"))\n"
    "    )\n";

/* The tests of both scaffolds: fixture rows, the gold rows and a query;
 * the SQL one also checks its expectation's counts. */
#define TEST_YML_GIVEN_AND_ROWS \
    "# Tests of the pipeline on fixture data, run by `weir test` (docs/testing.md).\n" \
    "#\n" \
    "# Each test runs the pipeline in a temporary storage of its own, with the rows\n" \
    "# under `given` in place of the files in data/landing/orders/, then checks\n" \
    "# what the update wrote. The project's pipeline-storage/ is never touched.\n" \
    "daily_revenue_counts_valid_orders:\n" \
    "  description: Orders without an amount or with a negative one are left out.\n" \
    "  given:\n" \
    "    - files: data/landing/orders\n" \
    "      rows:\n" \
    "        - {order_id: 1, customer_id: 7, amount: 10.50, order_ts: \"2026-01-05 08:00:00\", status: placed}\n" \
    "        - {order_id: 2, customer_id: 8, amount: 4.50, order_ts: \"2026-01-05 17:30:00\", status: shipped}\n" \
    "        - {order_id: 3, customer_id: 9, amount: -1.00, order_ts: \"2026-01-05 18:00:00\", status: placed}\n" \
    "        - {order_id: 4, customer_id: 7, amount: null, order_ts: \"2026-01-06 09:00:00\", status: placed}\n" \
    "        - {order_id: 5, customer_id: 3, amount: 20.00, order_ts: \"2026-01-06 10:15:00\", status: placed}\n" \
    "  expect:\n" \
    "    # The rows of a dataset, in any order (columns not listed are not compared).\n" \
    "    - dataset: daily_revenue\n" \
    "      rows:\n" \
    "        - {order_date: 2026-01-05, orders: 2, revenue: 15.00}\n" \
    "        - {order_date: 2026-01-06, orders: 1, revenue: 20.00}\n"
#define TEST_YML_NO_BAD_ROWS \
    "    # A query that must return no rows.\n" \
    "    - query: SELECT * FROM orders_silver WHERE amount < 0 OR amount IS NULL\n"

static const char test_yml[] =
    TEST_YML_GIVEN_AND_ROWS
    "    # What the valid_amount expectation counted in this update.\n"
    "    - expectation: valid_amount\n"
    "      dataset: orders_silver\n"
    "      failed: 1\n"
    "      dropped: 1\n"
    TEST_YML_NO_BAD_ROWS;

/* The Python scaffold filters instead of an expectation (open-source
 * Spark has none), so its test checks the rows alone. */
static const char test_yml_python[] = TEST_YML_GIVEN_AND_ROWS TEST_YML_NO_BAD_ROWS;

static const scaffold_file files[] = {
    { "README.md", readme },
    { "transformations/", NULL },
    { "transformations/orders_bronze.sql", bronze_sql },
    { "transformations/orders_silver.sql", silver_sql },
    { "transformations/daily_revenue.sql", gold_sql },
    { "data/", NULL },
    { "data/landing/", NULL },
    { "data/landing/orders/", NULL },
    { "data/landing/orders/orders-0001.json", orders_1 },
    { "data/landing/orders/orders-0002.json", orders_2 },
    { "data/landing/orders/orders-0003.json", orders_3 },
    { "tests/", NULL },
    { "tests/daily_revenue.yml", test_yml },
};

static const scaffold_file files_python[] = {
    { "README.md", readme_python },
    { "transformations/", NULL },
    { "transformations/orders_bronze.py", bronze_py },
    { "transformations/orders_silver.py", silver_py },
    { "transformations/daily_revenue.py", gold_py },
    { "data/", NULL },
    { "data/landing/", NULL },
    { "data/landing/orders/", NULL },
    { "data/landing/orders/orders-0001.json", orders_1 },
    { "data/landing/orders/orders-0002.json", orders_2 },
    { "data/landing/orders/orders-0003.json", orders_3 },
    { "tests/", NULL },
    { "tests/daily_revenue.yml", test_yml_python },
};

const scaffold_file *scaffold_files(bool python, size_t *n)
{
    if (python) {
        *n = sizeof files_python / sizeof files_python[0];
        return files_python;
    }
    *n = sizeof files / sizeof files[0];
    return files;
}

/* A YAML plain scalar when name is a simple word YAML reads as a string,
 * else a double-quoted one. */
static void yaml_scalar(FILE *out, const char *name)
{
    static const char *const special[] = { "y", "n", "yes", "no", "on", "off",
                                           "true", "false", "null" };
    bool plain = (name[0] >= 'a' && name[0] <= 'z') ||
                 (name[0] >= 'A' && name[0] <= 'Z');
    for (const char *p = name; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789_-", *p) != NULL;
    for (size_t i = 0; plain && i < sizeof special / sizeof special[0]; i++)
        plain = strcasecmp(name, special[i]) != 0;
    if (plain) {
        fputs(name, out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* file://dir/pipeline-storage as a URI Spark parses (java.net.URI): bytes
 * a URI path cannot hold percent-encoded (weir decodes them). */
static void put_storage_uri(FILE *out, const char *dir)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789-._~/!$&'()*+,;=:@";
    fputs("file://", out);
    for (const unsigned char *p = (const unsigned char *)dir; *p; p++) {
        if (strchr(ok, *p))
            fputc(*p, out);
        else
            fprintf(out, "%%%02X", *p);
    }
    fputs("/pipeline-storage", out);
}

void scaffold_write_spec(FILE *out, const char *name, const char *dir)
{
    const char *storage = dir;
    fputs("# The pipeline spec, read by `weir run` (and `spark-pipelines run`).\n"
          "#\n"
          "# storage    where the pipeline keeps its tables, streaming checkpoints\n",
          out);
    if (storage)
        fputs("#            and event log: an absolute URI, as Spark wants it (a\n"
              "#            relative folder works with weir, resolved against this\n"
              "#            file's folder, but Spark refuses it).\n",
              out);
    else
        fputs("#            and event log. weir resolves a relative path against this\n"
              "#            file's folder, so the project can be moved; Spark wants an\n"
              "#            absolute URI such as file:///path/to/pipeline-storage.\n",
              out);
    fputs("# libraries  the files that define the datasets: every file under\n"
          "#            transformations/.\n"
          "name: ",
          out);
    yaml_scalar(out, name);
    fputs("\nstorage: ", out);
    if (storage)
        put_storage_uri(out, dir);
    else
        fputs("pipeline-storage", out);
    fputs("\n"
          "libraries:\n"
          "  - glob:\n"
          "      include: transformations/**\n",
          out);
}
