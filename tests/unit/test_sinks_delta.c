/*
 * Unit tests for the Delta Lake sink: DuckDB type text to Delta types and
 * back, schema merging, the log writer (create-exclusive versions) and
 * reader (add minus remove, txn, checkpoints refused), reading a table
 * back through its log, and the sink's stage / publish / discard:
 * idempotent publish after a crash at any point, discard of a batch that
 * never committed, additive schema changes and conflicts.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <stdlib.h>
#include <unistd.h>

#include "sinks/delta.h"
#include "sinks/internal.h"
#include "sinks/sink.h"
#include "store/db.h"
#include "util/fs.h"
#include "util/str.h"

static char *temp_dir(void)
{
    char tmpl[] = "/tmp/weir-delta-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static char *delta_json(const char *duck)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_error e;
    weir_dtype *t = NULL;
    char *out = NULL;
    if (weir__delta_type_from_duckdb(&t, &a, duck, &e) == 0) {
        weir_dfield f = { "c", t, true, "{}" };
        weir_dschema s = { &f, 1 };
        weir_buf b = WEIR_BUF_INIT;
        weir__delta_schema_render(&b, &s);
        /* {"type":"struct","fields":[{"name":"c","type":X,... -> X */
        const char *start = strstr(weir__buf_cstr(&b), "\"type\":") + 7;
        start = strstr(start, "\"type\":") + 7;
        const char *end = NULL, *tail = ",\"nullable\":true,\"metadata\":{}}]}";
        for (const char *h = strstr(start, tail); h; h = strstr(h + 1, tail))
            end = h;
        out = end ? strndup(start, (size_t)(end - start)) : NULL;
        weir__buf_free(&b);
    } else {
        out = strdup(e.error_class);
    }
    weir__arena_free(&a);
    return out;
}

static char *duck_type(const char *duck, bool physical)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_error e;
    weir_dtype *t = NULL;
    char *out = NULL;
    if (weir__delta_type_from_duckdb(&t, &a, duck, &e) == 0) {
        weir_buf b = WEIR_BUF_INIT;
        weir__delta_type_duckdb(&b, t, physical);
        out = weir__buf_detach(&b);
    }
    weir__arena_free(&a);
    return out;
}

#define CHECK_TYPE(duck, want)                                                \
    do {                                                                      \
        char *got_ = delta_json(duck);                                        \
        CHECK_STR(got_, want);                                                \
        free(got_);                                                           \
    } while (0)

TEST(test_types)
{
    CHECK_TYPE("BIGINT", "\"long\"");
    CHECK_TYPE("INTEGER", "\"integer\"");
    CHECK_TYPE("TINYINT", "\"byte\"");
    CHECK_TYPE("UINTEGER", "\"long\"");
    CHECK_TYPE("UBIGINT", "\"decimal(20,0)\"");
    CHECK_TYPE("HUGEINT", "\"decimal(38,0)\"");
    CHECK_TYPE("DECIMAL(12,2)", "\"decimal(12,2)\"");
    CHECK_TYPE("VARCHAR", "\"string\"");
    CHECK_TYPE("BLOB", "\"binary\"");
    CHECK_TYPE("TIMESTAMP", "\"timestamp\"");
    CHECK_TYPE("TIMESTAMP WITH TIME ZONE", "\"timestamp\"");
    CHECK_TYPE("\"NULL\"", "\"string\"");
    CHECK_TYPE("INTEGER[]",
               "{\"type\":\"array\",\"elementType\":\"integer\","
               "\"containsNull\":true}");
    CHECK_TYPE("MAP(VARCHAR, DOUBLE[])",
               "{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":{"
               "\"type\":\"array\",\"elementType\":\"double\","
               "\"containsNull\":true},\"valueContainsNull\":true}");
    CHECK_TYPE("STRUCT(\"a\" INTEGER, \"b \"\"c\"\"\" VARCHAR[])",
               "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":"
               "\"integer\",\"nullable\":true,\"metadata\":{}},{\"name\":"
               "\"b \\\"c\\\"\",\"type\":{\"type\":\"array\",\"elementType\":"
               "\"string\",\"containsNull\":true},\"nullable\":true,"
               "\"metadata\":{}}]}");
    CHECK_TYPE("TIME", "DELTA_UNSUPPORTED_DATA_TYPE");
    CHECK_TYPE("INTERVAL", "DELTA_UNSUPPORTED_DATA_TYPE");
    char *t = duck_type("STRUCT(\"t\" TIMESTAMP, \"x\" UTINYINT)[]", true);
    CHECK_STR(t, "STRUCT(\"t\" TIMESTAMP WITH TIME ZONE, \"x\" SMALLINT)[]");
    free(t);
    t = duck_type("TIMESTAMP_NS", false);
    CHECK_STR(t, "TIMESTAMP");
    free(t);
}

TEST(test_schema_merge)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_error e;
    weir_dschema table, batch, out;
    const char *ts = "{\"type\":\"struct\",\"fields\":["
                     "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,"
                     "\"metadata\":{\"comment\":\"key\"}},"
                     "{\"name\":\"v\",\"type\":\"decimal(10,2)\",\"nullable\":true,"
                     "\"metadata\":{}}]}";
    CHECK_INT(weir__delta_schema_parse(&table, &a, ts, &e), 0);
    CHECK_INT(table.n, 2);
    weir_buf b = WEIR_BUF_INIT;
    weir__delta_schema_render(&b, &table);
    CHECK_STR(weir__buf_cstr(&b), ts); /* round trip, metadata kept */
    weir__buf_free(&b);
    /* Batch: V (other case), a new column, a NULL-typed id. */
    weir_dfield bf[3];
    memset(bf, 0, sizeof(bf));
    const char *types[] = { "DECIMAL(10,2)", "VARCHAR", "\"NULL\"" };
    const char *names[] = { "V", "extra", "id" };
    for (int i = 0; i < 3; i++) {
        bf[i].name = names[i];
        bf[i].nullable = true;
        bf[i].metadata = "{}";
        CHECK_INT(weir__delta_type_from_duckdb(&bf[i].type, &a, types[i], &e), 0);
    }
    batch.fields = bf;
    batch.n = 3;
    size_t added = 0;
    CHECK_INT(weir__delta_schema_merge(&out, &added, &a, &table, &batch, true, &e), 0);
    CHECK_INT(added, 1);
    CHECK_INT(out.n, 3);
    CHECK_STR(out.fields[0].name, "id");
    CHECK_STR(out.fields[1].name, "v");
    CHECK_STR(out.fields[2].name, "extra");
    CHECK_INT(weir__delta_schema_merge(&out, &added, &a, &table, &batch, false, &e),
              WEIR_EINVAL);
    CHECK_STR(e.error_class, "DELTA_METADATA_MISMATCH");
    /* Another type for v: incompatible. */
    CHECK_INT(weir__delta_type_from_duckdb(&bf[0].type, &a, "DOUBLE", &e), 0);
    CHECK_INT(weir__delta_schema_merge(&out, &added, &a, &table, &batch, true, &e),
              WEIR_EINVAL);
    CHECK_STR(e.error_class, "DELTA_FAILED_TO_MERGE_FIELDS");
    CHECK_CONTAINS(e.message, "decimal(10,2)");
    weir__arena_free(&a);
}

static int commit(const char *table, int64_t v, const char *text)
{
    weir_error e;
    return weir__delta_log_commit(table, v, text, strlen(text), &e);
}

#define META                                                                  \
    "{\"metaData\":{\"id\":\"x\",\"format\":{\"provider\":\"parquet\"},"      \
    "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{"        \
    "\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true," \
    "\\\"metadata\\\":{}},{\\\"name\\\":\\\"p\\\",\\\"type\\\":"               \
    "\\\"integer\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","          \
    "\"partitionColumns\":[\"p\"],\"configuration\":{}}}\n"

TEST(test_log)
{
    char *dir = temp_dir();
    weir_error e;
    weir_delta_log l;
    CHECK_INT(weir__delta_log_read(&l, dir, &e), 0);
    CHECK_INT(l.version, -1);
    weir__delta_log_free(&l);
    CHECK_INT(commit(dir, 0,
                     "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
                     META
                     "{\"add\":{\"path\":\"p=1/a.parquet\",\"partitionValues\":"
                     "{\"p\":\"1\"},\"size\":1}}\n"
                     "{\"add\":{\"path\":\"p=2/b%20c.parquet\",\"partitionValues\":"
                     "{\"p\":\"2\"},\"size\":2}}\n"),
              0);
    /* A second writer of version 0 loses. */
    CHECK_INT(commit(dir, 0, "{}\n"), WEIR_EEXISTS);
    CHECK_INT(commit(dir, 1,
                     "{\"commitInfo\":{}}\n"
                     "{\"txn\":{\"appId\":\"f\",\"version\":4294967297}}\n"
                     "{\"remove\":{\"path\":\"p=1/a.parquet\"}}\n"
                     "{\"add\":{\"path\":\"p=3/d.parquet\",\"partitionValues\":"
                     "{\"p\":null},\"size\":3}}\n"),
              0);
    CHECK_INT(weir__delta_log_read(&l, dir, &e), 0);
    CHECK_INT(l.version, 1);
    CHECK_INT(weir__delta_log_txn(&l, "f"), 4294967297LL);
    CHECK_INT(weir__delta_log_txn(&l, "g"), -1);
    CHECK(weir__delta_log_added(&l, "p=1/a.parquet"));
    CHECK(weir__delta_log_added(&l, "p=2/b c.parquet"));
    CHECK(!weir__delta_log_added(&l, "p=9/z.parquet"));
    CHECK_INT(l.n_partition_cols, 1);
    CHECK_INT(l.schema.n, 2);
    weir_arena a = WEIR_ARENA_INIT;
    weir_delta_add **files;
    size_t n;
    CHECK_INT(weir__delta_log_active(&l, &files, &n, &a, &e), 0);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK(weir__str_ends(files[0]->file, "/p=2/b c.parquet"));
        CHECK(weir__str_ends(files[1]->file, "/p=3/d.parquet"));
        CHECK_INT(files[1]->size, 3);
    }
    weir__arena_free(&a);
    CHECK_INT(weir__delta_log_check(&l, true, &e), 0);
    weir__delta_log_free(&l);
    /* Protocols weir cannot honour. */
    CHECK_INT(commit(dir, 2,
                     "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
                     "\"readerFeatures\":[\"deletionVectors\"],"
                     "\"writerFeatures\":[\"deletionVectors\"]}}\n"),
              0);
    CHECK_INT(weir__delta_log_read(&l, dir, &e), 0);
    CHECK_INT(weir__delta_log_check(&l, false, &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "DELTA_UNSUPPORTED_PROTOCOL");
    CHECK_CONTAINS(e.message, "deletionVectors");
    weir__delta_log_free(&l);
    /* Checkpoints and holes in the log are refused. */
    char path[512];
    snprintf(path, sizeof(path), "%s/_delta_log/00000000000000000001.json", dir);
    unlink(path);
    CHECK_INT(weir__delta_log_read(&l, dir, &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "DELTA_CHECKPOINT_NOT_SUPPORTED");
    weir__delta_log_free(&l);
    snprintf(path, sizeof(path), "%s/_delta_log/_last_checkpoint", dir);
    weir__fs_write_atomic(path, "{}", 2, &e);
    CHECK_INT(weir__delta_log_read(&l, dir, &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "DELTA_CHECKPOINT_NOT_SUPPORTED");
    weir__delta_log_free(&l);
    weir__fs_remove_tree(dir, NULL);
    free(dir);
}

typedef struct fixture {
    char *root;
    char stage[512], table[512];
    weir_db *db;
    weir_conn *conn;
    weir_kv options[3];
    weir_sink_batch b;
    const weir_sink_format *f;
} fixture;

static void setup(fixture *fx)
{
    memset(fx, 0, sizeof(*fx));
    weir_error e;
    fx->root = temp_dir();
    snprintf(fx->stage, sizeof(fx->stage), "%s/storage/sinks/s/f", fx->root);
    snprintf(fx->table, sizeof(fx->table), "%s/lake/t", fx->root);
    weir__fs_mkdirs(fx->stage, &e);
    CHECK_INT(weir__db_open(&fx->db, NULL, &e), 0);
    CHECK_INT(weir__db_connect(&fx->conn, fx->db, &e), 0);
    fx->options[0] = (weir_kv){ "path", "lake/t" };
    fx->b.sink = "s";
    fx->b.flow = "f";
    fx->b.format = "delta";
    fx->b.options = fx->options;
    fx->b.n_options = 1;
    fx->b.root_dir = fx->root;
    fx->b.stage_dir = fx->stage;
    fx->b.update_id = "u";
    fx->f = weir__sink_format("delta");
}

static void teardown(fixture *fx)
{
    weir__conn_close(fx->conn);
    weir__db_close(fx->db);
    weir__fs_remove_tree(fx->root, NULL);
    free(fx->root);
}

static int64_t version(fixture *fx)
{
    weir_delta_log l;
    weir_error e;
    int64_t v = weir__delta_log_read(&l, fx->table, &e) ? -2 : l.version;
    weir__delta_log_free(&l);
    return v;
}

/* SELECT <before> <the table read through its log> AS t <after>: the
 * single value, or the error. */
static char *scan2(fixture *fx, const char *before, const char *after)
{
    weir_buf q = WEIR_BUF_INIT;
    weir_error e;
    weir__buf_printf(&q, "SELECT %s ", before);
    if (weir__delta_render_scan(&q, fx->table, &e)) {
        weir__buf_free(&q);
        return strdup(e.error_class);
    }
    weir__buf_printf(&q, " AS t %s", after);
    char *v = NULL;
    if (weir__conn_scalar_text(fx->conn, weir__buf_cstr(&q), &v, &e))
        v = strdup(e.message);
    weir__buf_free(&q);
    return v;
}

#define CHECK_SCAN2(fx, before, after, want)                                  \
    do {                                                                      \
        char *got_ = scan2(fx, before, after);                                \
        CHECK_STR(got_, want);                                                \
        free(got_);                                                           \
    } while (0)
#define CHECK_SCAN(fx, before, want) CHECK_SCAN2(fx, before, "", want)

static int stage(fixture *fx, const char *sql)
{
    weir_error e;
    int64_t rows = 0;
    int rc = fx->f->stage(fx->conn, &fx->b, sql, &rows, NULL, &e);
    if (rc)
        fprintf(stderr, "  stage: %s\n", e.message);
    return rc;
}

TEST(test_publish_idempotent)
{
    fixture fx;
    setup(&fx);
    weir_error e;
    CHECK_SCAN(&fx, "1 FROM", "DELTA_TABLE_NOT_FOUND");
    CHECK_INT(stage(&fx, "SELECT range AS id, 'a' || range AS s FROM range(10)"), 0);
    CHECK_INT(version(&fx), -1); /* staged files are not a table yet */
    /* Keep the manifest to replay a crash after the commit. */
    char man[600];
    snprintf(man, sizeof(man), "%s/g0-b0.delta.json", fx.stage);
    char *text = NULL;
    size_t len = 0;
    CHECK_INT(weir__fs_read(&text, &len, man, &e), 0);
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), 0);
    CHECK_INT(version(&fx), 0);
    CHECK(!weir__fs_exists(man));
    /* Crash after the commit, before the manifest was removed. */
    weir__fs_write_atomic(man, text, len, &e);
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), 0);
    CHECK_INT(version(&fx), 0);
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), 0); /* and once more: no manifest */
    CHECK_INT(version(&fx), 0);
    CHECK_SCAN(&fx, "count(*) || ',' || sum(id) FROM", "10,45");
    /* Batch 1 staged but never committed: discard leaves no file. */
    fx.b.batch_id = 1;
    CHECK_INT(stage(&fx, "SELECT range AS id, 'b' AS s FROM range(5)"), 0);
    weir_file_list files = { NULL, 0, 0 };
    weir__fs_list(&files, fx.table, false, false, &e);
    CHECK_INT(files.len, 2);
    weir__fs_list_free(&files);
    CHECK_INT(fx.f->discard(&fx.b, &e), 0);
    weir__fs_list(&files, fx.table, false, false, &e);
    CHECK_INT(files.len, 1);
    weir__fs_list_free(&files);
    /* Publishing a batch whose staged data is gone is an error. */
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), WEIR_ECORRUPT);
    CHECK_STR(e.error_class, "SINK_STAGED_DATA_LOST");
    /* Batch 1 again, with a new column: metaData grows. */
    CHECK_INT(stage(&fx, "SELECT range AS id, 'c' AS s, true AS flag FROM range(5)"), 0);
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), 0);
    CHECK_INT(version(&fx), 1);
    CHECK_SCAN(&fx, "count(*) || ',' || count(flag) FROM", "15,5");
    /* Another type for a column is refused at stage time. */
    fx.b.batch_id = 2;
    CHECK_INT(fx.f->stage(fx.conn, &fx.b, "SELECT 'x' AS id", &(int64_t){ 0 }, NULL, &e),
              WEIR_EINVAL);
    CHECK_STR(e.error_class, "DELTA_FAILED_TO_MERGE_FIELDS");
    /* A column left out is written as NULL. */
    CHECK_INT(stage(&fx, "SELECT 99 AS id"), 0);
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), 0);
    CHECK_SCAN(&fx, "count(*) || ',' || count(s) FROM", "16,15");
    /* A batch of a new generation is a new txn version. */
    fx.b.generation = 1;
    fx.b.batch_id = 0;
    CHECK_INT(stage(&fx, "SELECT 100 AS id"), 0);
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), 0);
    CHECK_INT(version(&fx), 3);
    weir_delta_log l;
    CHECK_INT(weir__delta_log_read(&l, fx.table, &e), 0);
    CHECK_INT(weir__delta_log_txn(&l, "f"), INT64_C(1) << 32);
    weir__delta_log_free(&l);
    free(text);
    teardown(&fx);
}

TEST(test_txn_conflict)
{
    /* Two storages, same flow name, same table: the second one's batch 0
     * is not mistaken for the first one's. */
    fixture fx;
    setup(&fx);
    weir_error e;
    const char *first = fx.b.stage_dir;
    char other[600];
    snprintf(other, sizeof(other), "%s/storage2/sinks/s/f", fx.root);
    weir__fs_mkdirs(other, &e);
    /* Both stage batch 0 before either publishes; the first one wins. */
    CHECK_INT(stage(&fx, "SELECT 1 AS id"), 0);
    fx.b.stage_dir = other;
    CHECK_INT(stage(&fx, "SELECT 2 AS id"), 0);
    fx.b.stage_dir = first;
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), 0);
    fx.b.stage_dir = other;
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), WEIR_ECORRUPT);
    CHECK_STR(e.error_class, "DELTA_TXN_CONFLICT");
    CHECK_INT(version(&fx), 0);
    /* Staging that batch again is refused before anything commits. */
    int64_t rows = 0;
    CHECK_INT(fx.f->stage(fx.conn, &fx.b, "SELECT 3 AS id", &rows, NULL, &e),
              WEIR_ECORRUPT);
    CHECK_STR(e.error_class, "DELTA_TXN_CONFLICT");
    teardown(&fx);
}

TEST(test_concurrent_version)
{
    /* Another writer commits version 0 between stage and publish: the
     * batch lands in version 1. */
    fixture fx;
    setup(&fx);
    weir_error e;
    CHECK_INT(stage(&fx, "SELECT 1 AS id"), 0);
    weir_sink_batch other = fx.b;
    other.flow = "g";
    char stage2[600];
    snprintf(stage2, sizeof(stage2), "%s/storage/sinks/s/g", fx.root);
    weir__fs_mkdirs(stage2, &e);
    other.stage_dir = stage2;
    int64_t rows;
    CHECK_INT(fx.f->stage(fx.conn, &other, "SELECT 2 AS id", &rows, NULL, &e), 0);
    CHECK_INT(fx.f->publish(&other, NULL, &e), 0);
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), 0);
    CHECK_INT(version(&fx), 1);
    CHECK_SCAN(&fx, "string_agg(id::VARCHAR, ',' ORDER BY id) FROM", "1,2");
    teardown(&fx);
}

TEST(test_partitioned)
{
    fixture fx;
    setup(&fx);
    weir_error e;
    fx.options[1] = (weir_kv){ "partitionBy", "p" };
    fx.b.n_options = 2;
    CHECK_INT(stage(&fx, "SELECT range AS id, CASE range % 3 WHEN 0 THEN 'a/b c' "
                         "WHEN 1 THEN NULL ELSE 'NULL' END AS p FROM range(9)"),
              0);
    CHECK_INT(fx.f->publish(&fx.b, NULL, &e), 0);
    CHECK_SCAN2(&fx,
                "string_agg(coalesce(p, '<null>') || ':' || n, ',' ORDER BY p) "
                "FROM (SELECT p, count(*) AS n FROM",
                "GROUP BY p)", "<null>:3,NULL:3,a/b c:3");
    /* The add actions: URI-encoded paths, partition values, null. */
    weir_delta_log l;
    CHECK_INT(weir__delta_log_read(&l, fx.table, &e), 0);
    CHECK_INT(l.n_partition_cols, 1);
    weir_arena a = WEIR_ARENA_INIT;
    weir_delta_add **files;
    size_t n = 0;
    CHECK_INT(weir__delta_log_active(&l, &files, &n, &a, &e), 0);
    CHECK_INT(n, 3);
    for (size_t i = 0; i < n; i++) {
        CHECK(weir__fs_is_file(files[i]->file));
        if (strstr(files[i]->path, "p=a"))
            CHECK(weir__str_starts(files[i]->path, "p=a%252Fb%2520c/part-"));
    }
    weir__arena_free(&a);
    weir__delta_log_free(&l);
    /* partitionBy must match the table's. */
    fx.options[1] = (weir_kv){ "partitionBy", "id" };
    fx.b.batch_id = 1;
    CHECK_INT(fx.f->stage(fx.conn, &fx.b, "SELECT 1 AS id, 'x' AS p",
                          &(int64_t){ 0 }, NULL, &e),
              WEIR_EINVAL);
    CHECK_STR(e.error_class, "DELTA_PARTITION_COLUMNS_MISMATCH");
    teardown(&fx);
}

TEST_MAIN(RUN(test_types); RUN(test_schema_merge); RUN(test_log);
          RUN(test_publish_idempotent); RUN(test_txn_conflict);
          RUN(test_concurrent_version); RUN(test_partitioned))
