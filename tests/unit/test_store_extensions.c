/*
 * DuckDB's extensions (store/extensions.c, db.c): loaded from weir's
 * pinned folder only when asked for (by name, or by a URL of their kind
 * in a statement), never by DuckDB's autoload; a missing file is a setup
 * error naming the install command. Needs the bootstrap's extensions in
 * .deps (beside the libduckdb.so the test runs with).
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <stdlib.h>

#include "store/credentials.h"
#include "store/db.h"
#include "weir.h"

static bool loaded(weir_conn *c, const char *name)
{
    char sql[160];
    snprintf(sql, sizeof(sql),
             "SELECT count(*) FROM duckdb_extensions() WHERE loaded AND "
             "extension_name = '%s'", name);
    int64_t n = -1;
    bool is_null = false;
    weir_error e;
    CHECK_INT(weir__conn_scalar_i64(c, sql, &n, &is_null, &e), 0);
    return n == 1;
}

TEST(test_store_extensions__on_demand)
{
    /* No AWS credentials around: the S3 secret is a plain one. */
    setenv("HOME", "/nonexistent", 1);
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_PROFILE");
    weir_db *db = NULL;
    weir_conn *c = NULL;
    weir_error e;
    CHECK_INT(weir__db_open(&db, NULL, &e), 0);
    CHECK_INT(weir__db_connect(&c, db, &e), 0);
    CHECK(!loaded(c, "httpfs"));
    /* DuckDB's autoload would load httpfs for an S3 secret: it is off. */
    const char *secret = "CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 'v')";
    CHECK(weir__conn_exec(c, secret, NULL, &e) != 0);
    CHECK(!loaded(c, "httpfs"));
    /* A statement naming an S3 URL loads it first. */
    CHECK(weir__conn_exec(c, "SELECT 's3a://bucket/x' AS u", NULL, &e) == 0);
    CHECK(loaded(c, "httpfs"));
    CHECK(!loaded(c, "azure"));
    CHECK_INT(weir__conn_exec(c, secret, NULL, &e), 0);
    /* By name, once. */
    CHECK_INT(weir__db_extension(db, "tpch", NULL, &e), 0);
    CHECK_INT(weir__db_extension(db, "tpch", NULL, &e), 0);
    CHECK(loaded(c, "tpch"));
    CHECK_INT(weir__db_extension(db, "spatial", NULL, &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "DUCKDB_EXTENSION_UNKNOWN");
    weir__conn_close(c);
    weir__db_close(db);
}

TEST(test_store_extensions__missing)
{
    setenv("WEIR_DUCKDB_EXTENSIONS", "/nonexistent/weir-extensions", 1);
    weir_db *db = NULL;
    weir_conn *c = NULL;
    weir_error e;
    CHECK_INT(weir__db_open(&db, NULL, &e), 0);
    CHECK_INT(weir__db_connect(&c, db, &e), 0);
    CHECK_INT(weir__db_extension(db, "delta", "Delta tables", &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "DUCKDB_EXTENSION_MISSING");
    CHECK_CONTAINS(e.message, "delta extension, which Delta tables need");
    CHECK_CONTAINS(e.message, "/nonexistent/weir-extensions/v1.4.4/");
    CHECK_CONTAINS(e.message, "scripts/bootstrap.sh");
    /* A statement with an Azure URL fails with the same error, not
     * DuckDB's advice to INSTALL. */
    CHECK_INT(weir__conn_exec(c, "SELECT * FROM read_csv('abfss://c@a.dfs."
                                 "core.windows.net/x.csv')", NULL, &e),
              WEIR_EINVAL);
    CHECK_CONTAINS(e.message, "azure extension, which Azure URLs need");
    weir_db_column *cols = NULL;
    size_t n = 0;
    weir_arena arena;
    weir__arena_init(&arena);
    CHECK_INT(weir__conn_describe(c, "SELECT * FROM 'gs://b/x.parquet'", &cols,
                                  &n, &arena, &e),
              WEIR_EINVAL);
    CHECK_CONTAINS(e.message, "httpfs extension, which GCS URLs need");
    weir__arena_free(&arena);
    weir__conn_close(c);
    weir__db_close(db);
    unsetenv("WEIR_DUCKDB_EXTENSIONS");
}

TEST(test_store_credentials__spark_keys)
{
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("AWS_ENDPOINT_URL_S3");
    unsetenv("AWS_REGION");
    unsetenv("AWS_DEFAULT_REGION");
    const weir_kv conf[] = {
        { "spark.hadoop.fs.s3a.access.key", "AK" },
        { "spark.hadoop.fs.s3a.secret.key", "s3cr'et" },
        { "spark.hadoop.fs.s3a.endpoint", "http://127.0.0.1:9000/" },
        { "spark.hadoop.fs.s3a.path.style.access", "true" },
        { "spark.hadoop.fs.s3a.endpoint.region", "eu-west-1" },
        { "fs.s3a.bucket.logs.access.key", "LK" },
        { "fs.s3a.bucket.logs.secret.key", "logsecret" },
        { "spark.sql.shuffle.partitions", "4" },
    };
    weir_s3_conf *c = weir__credentials_s3(conf, sizeof(conf) / sizeof(conf[0]));
    CHECK(c != NULL);
    CHECK(!weir__credentials_chain(c));
    weir_buf b = WEIR_BUF_INIT;
    weir__credentials_sql(c, &b);
    CHECK_STR(weir__buf_cstr(&b),
              "CREATE OR REPLACE SECRET __weir_s3_0 (TYPE s3, KEY_ID 'AK', "
              "SECRET 's3cr''et', ENDPOINT '127.0.0.1:9000', USE_SSL false, "
              "URL_STYLE 'path', REGION 'eu-west-1');\n"
              "CREATE OR REPLACE SECRET __weir_s3_1 (TYPE s3, KEY_ID 'LK', "
              "SECRET 'logsecret', ENDPOINT '127.0.0.1:9000', USE_SSL false, "
              "URL_STYLE 'path', REGION 'eu-west-1', SCOPE 's3://logs');\n");
    weir__buf_clear(&b);
    weir__credentials_mask(c, "bad: s3cr'et and logsecret", &b);
    CHECK_STR(weir__buf_cstr(&b), "bad: *** and ***");
    weir__buf_free(&b);
    weir__credentials_free(c);
}

TEST(test_store_credentials__chain)
{
    /* No keys: anonymous unless AWS's variables or a provider say
     * otherwise. */
    setenv("HOME", "/nonexistent", 1);
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_PROFILE");
    weir_s3_conf *c = weir__credentials_s3(NULL, 0);
    weir_buf b = WEIR_BUF_INIT;
    weir__credentials_sql(c, &b);
    CHECK_STR(weir__buf_cstr(&b),
              "CREATE OR REPLACE SECRET __weir_s3_0 (TYPE s3);\n");
    CHECK(!weir__credentials_chain(c));
    weir__credentials_free(c);
    setenv("AWS_ACCESS_KEY_ID", "x", 1);
    c = weir__credentials_s3(NULL, 0);
    weir__buf_clear(&b);
    weir__credentials_sql(c, &b);
    CHECK_CONTAINS(weir__buf_cstr(&b), "PROVIDER credential_chain, CHAIN 'env;config'");
    CHECK(weir__credentials_chain(c));
    weir__credentials_free(c);
    unsetenv("AWS_ACCESS_KEY_ID");
    const weir_kv conf[] = {
        { "spark.hadoop.fs.s3a.aws.credentials.provider",
          "com.amazonaws.auth.InstanceProfileCredentialsProvider" },
    };
    c = weir__credentials_s3(conf, 1);
    weir__buf_clear(&b);
    weir__credentials_sql(c, &b);
    CHECK_STR(weir__buf_cstr(&b), "CREATE OR REPLACE SECRET __weir_s3_0 "
                                  "(TYPE s3, PROVIDER credential_chain);\n");
    weir__credentials_free(c);
    weir__buf_free(&b);
}

TEST_MAIN(RUN(test_store_extensions__on_demand);
          RUN(test_store_extensions__missing);
          RUN(test_store_credentials__spark_keys);
          RUN(test_store_credentials__chain))
