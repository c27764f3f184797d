/*
 * Unit tests for src/sinks (folders of files and shared helpers): option
 * validation, partitionBy parsing, percent coding, durable moves (also
 * across file systems), and the parquet/json/csv sinks' stage, publish
 * (idempotent, resumable after a partial publish) and discard; the Kafka
 * sink's staged batch file (the record each append hands back is the one
 * read back, a damaged file is refused).
 */
#define _GNU_SOURCE
#include "harness.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sinks/internal.h"
#include "sinks/kafka_file.h"
#include "sinks/sink.h"
#include "store/db.h"
#include "util/fs.h"
#include "util/str.h"

static char *temp_dir(const char *base)
{
    char tmpl[256];
    snprintf(tmpl, sizeof(tmpl), "%s/weir-sinks-XXXXXX", base);
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static int count_files(const char *dir)
{
    weir_file_list l = { NULL, 0, 0 };
    weir_error e;
    if (weir__fs_list(&l, dir, true, false, &e))
        return -1;
    int n = (int)l.len;
    weir__fs_list_free(&l);
    return n;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(test_validate_options)
{
    weir_error e;
    const weir_sink_format *csv = weir__sink_format("CSV");
    CHECK(csv != NULL);
    CHECK(weir__sink_format("avro") == NULL);
    weir_kv ok[] = { { "path", "/x" }, { "header", "true" },
                         { "sep", ";" }, { "partitionBy", "a, `b`" } };
    CHECK_INT(csv->validate(ok, 4, &e), 0);
    weir_kv none[] = { { "header", "true" } };
    CHECK_INT(csv->validate(none, 1, &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "SINK_PATH_REQUIRED");
    weir_kv unknown[] = { { "path", "/x" }, { "colour", "red" } };
    CHECK_INT(csv->validate(unknown, 2, &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "UNKNOWN_SINK_OPTION");
    CHECK_CONTAINS(e.message, "colour");
    weir_kv delim[] = { { "path", "/x" }, { "delimiter", "ab" } };
    CHECK_INT(csv->validate(delim, 2, &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "INVALID_SINK_OPTION");
    weir_kv hdr[] = { { "path", "/x" }, { "header", "maybe" } };
    CHECK_INT(csv->validate(hdr, 2, &e), WEIR_EINVAL);
    const weir_sink_format *pq = weir__sink_format("parquet");
    weir_kv codec[] = { { "PATH", "/x" }, { "compression", "ZSTD" } };
    CHECK_INT(pq->validate(codec, 2, &e), 0);
    weir_kv bad_codec[] = { { "path", "/x" }, { "compression", "lzma" } };
    CHECK_INT(pq->validate(bad_codec, 2, &e), WEIR_EINVAL);
    CHECK_CONTAINS(e.message, "lzma");
    weir_kv bad_part[] = { { "path", "/x" }, { "partitionBy", " , " } };
    CHECK_INT(pq->validate(bad_part, 2, &e), WEIR_EINVAL);
    const weir_sink_format *delta = weir__sink_format("delta");
    weir_kv merge[] = { { "path", "/x" }, { "mergeSchema", "nope" } };
    CHECK_INT(delta->validate(merge, 2, &e), WEIR_EINVAL);
    weir_kv json_codec[] = { { "path", "/x" }, { "compression", "snappy" } };
    CHECK_INT(weir__sink_format("json")->validate(json_codec, 2, &e),
              WEIR_EINVAL);
}

/* The Kafka sink's options and columns, as Spark's Kafka sink checks them
 * (no broker needed). */
TEST(test_kafka_options)
{
    weir_error e;
    const weir_sink_format *k = weir__sink_format("Kafka");
    CHECK(k != NULL);
    if (!k)
        return;
    weir_kv ok[] = { { "kafka.bootstrap.servers", "127.0.0.1:1" },
                         { "topic", "out" }, { "kafka.linger.ms", "10" } };
    CHECK_INT(k->validate(ok, 3, &e), 0);
    weir_kv no_servers[] = { { "topic", "out" } };
    CHECK_INT(k->validate(no_servers, 1, &e), WEIR_ESQL);
    CHECK_STR(e.error_class, "INVALID_KAFKA_OPTION");
    weir_kv unknown[] = { { "kafka.bootstrap.servers", "h:1" }, { "path", "x" } };
    CHECK_INT(k->validate(unknown, 2, &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "UNKNOWN_SINK_OPTION");
    weir_kv txn[] = { { "kafka.bootstrap.servers", "h:1" },
                          { "kafka.transactional.id", "mine" } };
    CHECK_INT(k->validate(txn, 2, &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "INVALID_SINK_OPTION");
    CHECK_CONTAINS(e.message, "kafka.transactional.id");
    weir_kv acks[] = { { "kafka.bootstrap.servers", "h:1" }, { "kafka.acks", "1" } };
    CHECK_INT(k->validate(acks, 2, &e), WEIR_EINVAL);
    weir_kv bad[] = { { "kafka.bootstrap.servers", "h:1" },
                          { "kafka.no.such.setting", "1" } };
    CHECK_INT(k->validate(bad, 2, &e), WEIR_ESQL);
    CHECK_STR(e.error_class, "INVALID_KAFKA_OPTION");

    weir_column value_only[] = { { "value", "VARCHAR", "string", true, NULL } };
    CHECK_INT(k->check_columns(ok, 3, value_only, 1, &e), 0);
    CHECK_INT(k->check_columns(no_servers, 0, value_only, 1, &e), WEIR_EINVAL);
    CHECK_CONTAINS(e.message, "topic option required when no 'topic' attribute");
    weir_column all[] = {
        { "topic", "VARCHAR", "string", true, NULL },
        { "KEY", "BLOB", "binary", true, NULL },
        { "value", "BLOB", "binary", true, NULL },
        { "headers", "STRUCT(\"key\" VARCHAR, \"value\" BLOB)[]",
          "array<struct<key:string,value:binary>>", true, NULL },
        { "partition", "INTEGER", "int", true, NULL },
        { "timestamp", "TIMESTAMP", "timestamp", true, NULL },
        { "other", "DATE", "date", true, NULL },
    };
    CHECK_INT(k->check_columns(NULL, 0, all, 7, &e), 0);
    weir_column no_value[] = { { "v", "VARCHAR", "string", true, NULL } };
    CHECK_INT(k->check_columns(ok, 3, no_value, 1, &e), WEIR_EINVAL);
    CHECK_STR(e.error_class, "INVALID_KAFKA_SINK_SCHEMA");
    CHECK_STR(e.message, "Required attribute 'value' not found");
    weir_column int_value[] = { { "value", "INTEGER", "int", true, NULL } };
    CHECK_INT(k->check_columns(ok, 3, int_value, 1, &e), WEIR_EINVAL);
    CHECK_STR(e.message, "value attribute unsupported type int. value must be "
                         "a(n) string or binary");
    weir_column big_part[] = { { "value", "VARCHAR", "string", true, NULL },
                               { "partition", "BIGINT", "bigint", true, NULL } };
    CHECK_INT(k->check_columns(ok, 3, big_part, 2, &e), WEIR_EINVAL);
    CHECK_CONTAINS(e.message, "partition attribute unsupported type bigint");
    /* The topic option wins over a topic column, whatever its type. */
    weir_column int_topic[] = { { "value", "VARCHAR", "string", true, NULL },
                                { "topic", "INTEGER", "int", true, NULL } };
    CHECK_INT(k->check_columns(ok, 3, int_topic, 2, &e), 0);
    CHECK_INT(k->check_columns(NULL, 0, int_topic, 2, &e), WEIR_EINVAL);
    CHECK_CONTAINS(e.message, "topic attribute unsupported type int");
}

TEST(test_partition_cols)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_error e;
    const char **cols;
    size_t n;
    weir_kv list[] = { { "partitionBy", " a ,`b c`" } };
    CHECK_INT(weir__sink_partition_cols(&cols, &n, &a, list, 1, &e), 0);
    CHECK_INT(n, 2);
    CHECK_STR(cols[0], "a");
    CHECK_STR(cols[1], "b c");
    weir_kv json[] = { { "partitionBy", "[\"x\",\"y\",\"z\"]" } };
    CHECK_INT(weir__sink_partition_cols(&cols, &n, &a, json, 1, &e), 0);
    CHECK_INT(n, 3);
    CHECK_STR(cols[2], "z");
    weir_kv bad[] = { { "partitionBy", "[1]" } };
    CHECK_INT(weir__sink_partition_cols(&cols, &n, &a, bad, 1, &e), WEIR_EINVAL);
    CHECK_INT(weir__sink_partition_cols(&cols, &n, &a, NULL, 0, &e), 0);
    CHECK_INT(n, 0);
    weir__arena_free(&a);
}

TEST(test_percent_coding)
{
    weir_buf b = WEIR_BUF_INIT;
    weir__sink_put_uri_path(&b, "p=a%2Fb c/part-1.parquet");
    CHECK_STR(weir__buf_cstr(&b), "p=a%252Fb%20c/part-1.parquet");
    weir_buf d = WEIR_BUF_INIT;
    CHECK(weir__sink_percent_decode(&d, b.ptr, b.len));
    CHECK_STR(weir__buf_cstr(&d), "p=a%2Fb c/part-1.parquet");
    weir__buf_clear(&d);
    CHECK(!weir__sink_percent_decode(&d, "a%2", 3));
    CHECK(!weir__sink_percent_decode(&d, "a%zz", 4));
    weir__buf_free(&b);
    weir__buf_free(&d);
}

/* A move is idempotent: the source is gone and the destination there,
 * however often it runs; across file systems it copies. */
static void check_move(const char *src_base, const char *dst_base)
{
    weir_error e;
    char src[512], dst[512];
    snprintf(src, sizeof(src), "%s/a.txt", src_base);
    snprintf(dst, sizeof(dst), "%s/sub/dir/a.txt", dst_base);
    write_file(src, "hello");
    CHECK_INT(weir__sink_move(src, dst, &e), 0);
    CHECK(!weir__fs_exists(src));
    CHECK(weir__fs_is_file(dst));
    CHECK_INT(weir__sink_move(src, dst, &e), 0); /* again: nothing to do */
    /* A copy that was not removed yet (crash after the copy). */
    write_file(src, "hello");
    CHECK_INT(weir__sink_move(src, dst, &e), 0);
    CHECK(!weir__fs_exists(src));
    /* Another file under the same name is a conflict, not a skip. */
    write_file(src, "something else");
    CHECK_INT(weir__sink_move(src, dst, &e), WEIR_EEXISTS);
    CHECK_STR(e.error_class, "SINK_FILE_CONFLICT");
    /* So is one of the same size: only the same bytes make it a copy. */
    write_file(src, "jello");
    CHECK_INT(weir__sink_move(src, dst, &e), WEIR_EEXISTS);
    CHECK_STR(e.error_class, "SINK_FILE_CONFLICT");
    CHECK(weir__fs_exists(src));
    unlink(src);
    /* Neither: the staged data is lost. */
    snprintf(dst, sizeof(dst), "%s/b.txt", dst_base);
    CHECK_INT(weir__sink_move(src, dst, &e), WEIR_ECORRUPT);
}

TEST(test_move)
{
    char *a = temp_dir("/tmp"), *b = temp_dir("/tmp");
    check_move(a, b);
    /* /dev/shm is usually another file system: rename fails with EXDEV. */
    struct stat s1, s2;
    char *shm = temp_dir("/dev/shm");
    if (shm && stat(shm, &s1) == 0 && stat(b, &s2) == 0 && s1.st_dev != s2.st_dev) {
        char *c = temp_dir("/tmp");
        check_move(shm, c);
        CHECK_INT(count_files(c), 1); /* no temporary left behind */
        weir__fs_remove_tree(c, NULL);
        free(c);
    } else {
        fprintf(stderr, "  (no second file system: cross-device move skipped)\n");
    }
    if (shm)
        weir__fs_remove_tree(shm, NULL);
    weir__fs_remove_tree(a, NULL);
    weir__fs_remove_tree(b, NULL);
    free(shm);
    free(a);
    free(b);
}

typedef struct fixture {
    char *root, *stage_root;
    char stage[512], out[512];
    weir_db *db;
    weir_conn *conn;
    weir_kv options[4];
    weir_sink_batch b;
} fixture;

static void setup(fixture *fx, const char *format, const char *stage_base)
{
    memset(fx, 0, sizeof(*fx));
    weir_error e;
    fx->root = temp_dir("/tmp");
    fx->stage_root = stage_base ? temp_dir(stage_base) : NULL;
    snprintf(fx->stage, sizeof(fx->stage), "%s/stage/flow",
             fx->stage_root ? fx->stage_root : fx->root);
    snprintf(fx->out, sizeof(fx->out), "%s/out", fx->root);
    weir__fs_mkdirs(fx->stage, &e);
    CHECK_INT(weir__db_open(&fx->db, NULL, &e), 0);
    CHECK_INT(weir__db_connect(&fx->conn, fx->db, &e), 0);
    fx->options[0] = (weir_kv){ "path", "out" };
    fx->b.sink = "s";
    fx->b.flow = "f";
    fx->b.format = format;
    fx->b.options = fx->options;
    fx->b.n_options = 1;
    fx->b.root_dir = fx->root;
    fx->b.stage_dir = fx->stage;
    fx->b.update_id = "u";
}

static void teardown(fixture *fx)
{
    weir__conn_close(fx->conn);
    weir__db_close(fx->db);
    weir__fs_remove_tree(fx->root, NULL);
    if (fx->stage_root)
        weir__fs_remove_tree(fx->stage_root, NULL);
    free(fx->root);
    free(fx->stage_root);
}

static int64_t out_rows(fixture *fx, const char *reader)
{
    char sql[1024];
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s('%s/**/*')", reader,
             fx->out);
    int64_t n = -1;
    weir_error e;
    if (weir__conn_scalar_i64(fx->conn, sql, &n, NULL, &e))
        fprintf(stderr, "  %s\n", e.message);
    return n;
}

static void stage_publish(const char *format, const char *reader,
                          const char *stage_base, bool partitions)
{
    fixture fx;
    setup(&fx, format, stage_base);
    const weir_sink_format *f = weir__sink_format(format);
    weir_error e;
    int64_t rows = 0;
    /* Batch 0: staged, published twice (the second is a no-op). */
    CHECK_INT(f->stage(fx.conn, &fx.b, "SELECT range AS id FROM range(100)",
                       &rows, NULL, &e), 0);
    CHECK_INT(rows, 100);
    CHECK(!weir__fs_exists(fx.out)); /* nothing visible before publish */
    CHECK_INT(f->publish(&fx.b, NULL, &e), 0);
    CHECK_INT(f->publish(&fx.b, NULL, &e), 0);
    CHECK_INT(out_rows(&fx, reader), 100);
    /* Batch 1 staged, then thrown away: never visible. */
    fx.b.batch_id = 1;
    CHECK_INT(f->stage(fx.conn, &fx.b, "SELECT range AS id FROM range(7)",
                       &rows, NULL, &e), 0);
    CHECK_INT(f->discard(&fx.b, &e), 0);
    CHECK_INT(f->discard(&fx.b, &e), 0);
    CHECK_INT(f->publish(&fx.b, NULL, &e), 0); /* nothing staged: nothing to do */
    CHECK_INT(out_rows(&fx, reader), 100);
    CHECK_INT(count_files(fx.stage), 0);
    /* Batch 1 again, 3 partitions; a crash after moving one file. */
    fx.options[1] = (weir_kv){ "partitionBy", "k" };
    fx.b.n_options = partitions ? 2 : 1;
    CHECK_INT(f->stage(fx.conn, &fx.b,
                       "SELECT range AS id, range % 3 AS k FROM range(30)",
                       &rows, NULL, &e), 0);
    CHECK_INT(count_files(fx.stage), partitions ? 3 : 1);
    weir_file_list staged = { NULL, 0, 0 };
    CHECK_INT(weir__fs_list(&staged, fx.stage, true, false, &e), 0);
    if (staged.len) {
        char dst[1024];
        snprintf(dst, sizeof(dst), "%s/%s", fx.out,
                 staged.items[0].path + strlen(fx.stage) + strlen("/g0-b1/"));
        CHECK_INT(weir__sink_move(staged.items[0].path, dst, &e), 0);
    }
    weir__fs_list_free(&staged);
    CHECK_INT(f->publish(&fx.b, NULL, &e), 0);
    CHECK_INT(f->publish(&fx.b, NULL, &e), 0);
    CHECK_INT(out_rows(&fx, reader), 130);
    CHECK_INT(count_files(fx.out), partitions ? 4 : 2);
    CHECK_INT(count_files(fx.stage), 0);
    char part[600];
    snprintf(part, sizeof(part), "%s/k=2", fx.out);
    CHECK(weir__fs_is_dir(part) == partitions);
    /* A new generation (full refresh) writes new files: the rows again. */
    fx.b.generation = 1;
    fx.b.batch_id = 0;
    fx.b.n_options = 1;
    CHECK_INT(f->stage(fx.conn, &fx.b, "SELECT range AS id FROM range(100)",
                       &rows, NULL, &e), 0);
    CHECK_INT(f->publish(&fx.b, NULL, &e), 0);
    CHECK_INT(out_rows(&fx, reader), 230);
    teardown(&fx);
}

TEST(test_parquet_sink)
{
    stage_publish("parquet", "read_parquet", NULL, true);
}

TEST(test_json_sink)
{
    stage_publish("json", "read_json_auto", NULL, false);
}

TEST(test_csv_sink)
{
    stage_publish("csv", "read_csv_auto", NULL, true);
}

TEST(test_cross_device_publish)
{
    if (access("/dev/shm", W_OK) != 0) {
        fprintf(stderr, "  (no /dev/shm: skipped)\n");
        return;
    }
    stage_publish("parquet", "read_parquet", "/dev/shm", true);
}

TEST(test_csv_options)
{
    fixture fx;
    setup(&fx, "csv", NULL);
    fx.options[1] = (weir_kv){ "header", "true" };
    fx.options[2] = (weir_kv){ "sep", ";" };
    fx.options[3] = (weir_kv){ "compression", "gzip" };
    fx.b.n_options = 4;
    const weir_sink_format *f = weir__sink_format("csv");
    weir_error e;
    int64_t rows = 0;
    CHECK_INT(f->stage(fx.conn, &fx.b, "SELECT 1 AS a, 'x' AS b", &rows, NULL, &e), 0);
    CHECK_INT(f->publish(&fx.b, NULL, &e), 0);
    weir_file_list l = { NULL, 0, 0 };
    CHECK_INT(weir__fs_list(&l, fx.out, true, false, &e), 0);
    CHECK_INT(l.len, 1);
    if (l.len == 1) {
        CHECK(weir__str_ends(l.items[0].path, ".csv.gz"));
        char sql[1024];
        snprintf(sql, sizeof(sql),
                 "SELECT a || b FROM read_csv('%s', header = true, sep = ';')",
                 l.items[0].path);
        char *v = NULL;
        CHECK_INT(weir__conn_scalar_text(fx.conn, sql, &v, &e), 0);
        CHECK_STR(v, "1x");
        free(v);
    }
    weir__fs_list_free(&l);
    teardown(&fx);
}

/* What the Kafka sink sends while staging (the record an append hands
 * back) is what a recovery reads back from the file. */
typedef struct want_record {
    const char *topic;
    int32_t partition;
    const char *key, *value; /* NULL: null */
    size_t n_headers;
    const char *header0, *header0_value; /* NULL value: null */
    int64_t timestamp_ms;
} want_record;

static void check_record(const weir_kafka_record *r, const want_record *w)
{
    CHECK(r != NULL);
    if (!r)
        return;
    CHECK_STR(r->topic, w->topic);
    CHECK_INT(r->partition, w->partition);
    CHECK_INT(r->timestamp_ms, w->timestamp_ms);
    CHECK(!r->key == !w->key);
    if (r->key && w->key)
        CHECK(r->key_len == strlen(w->key) && !memcmp(r->key, w->key, r->key_len));
    CHECK(!r->value == !w->value);
    if (r->value && w->value)
        CHECK(r->value_len == strlen(w->value) &&
              !memcmp(r->value, w->value, r->value_len));
    CHECK_INT(r->n_headers, w->n_headers);
    if (r->n_headers && w->n_headers) {
        CHECK_STR(r->headers[0].key, w->header0);
        CHECK(!r->headers[0].value == !w->header0_value);
        if (r->headers[0].value && w->header0_value)
            CHECK(r->headers[0].value_len == strlen(w->header0_value) &&
                  !memcmp(r->headers[0].value, w->header0_value,
                          r->headers[0].value_len));
    }
}

TEST(test_kafka_stage_file)
{
    fixture fx;
    setup(&fx, "kafka", NULL);
    weir_error e;
    char path[600];
    snprintf(path, sizeof path, "%s/g0-b0.kafka", fx.stage);
    /* The staging query's columns: topic, partition, key, value, headers
     * (hex text), timestamp (ms). */
    const char *sql =
        "SELECT * FROM (VALUES "
        "('t1', NULL::INTEGER, 'k1'::BLOB, 'v1'::BLOB, NULL::VARCHAR, NULL::BIGINT), "
        "('t2', 3, NULL, ''::BLOB, '6869:=7468657265,61:-', 1234), "
        "('t1', -5, 'k'::BLOB, NULL, NULL, -7)) AS t(a, b, c, d, e, f)";
    const want_record want[3] = {
        { "t1", -1, "k1", "v1", 0, NULL, NULL, -1 },
        { "t2", 3, NULL, "", 2, "hi", "there", 1234 },
        { "t1", INT32_MIN, "k", NULL, 0, NULL, NULL, 0 },
    };
    weir_db_cursor *k = NULL;
    CHECK_INT(weir__conn_cursor(fx.conn, sql, &k, &e), 0);
    size_t n = 0;
    CHECK_INT(weir__cursor_next(k, &n, &e), 0);
    CHECK_INT(n, 3);
    weir_kafka_stage_writer *w = NULL;
    CHECK_INT(weir__kafka_stage_create(&w, path, &e), 0);
    for (size_t i = 0; w && i < n && i < 3; i++) {
        const weir_kafka_record *r = NULL;
        CHECK_INT(weir__kafka_stage_append(w, k, i, &r, &e), 0);
        check_record(r, &want[i]);
    }
    CHECK_INT(weir__kafka_stage_count(w), 3);
    CHECK_INT(weir__kafka_stage_finish(w, &e), 0);
    weir__kafka_stage_writer_free(w);
    weir__cursor_free(k);

    weir_kafka_stage_reader *rd = NULL;
    CHECK_INT(weir__kafka_stage_open(&rd, path, &e), 0);
    CHECK(rd != NULL);
    const weir_kafka_record *r = NULL;
    for (int i = 0; rd && i < 3; i++) {
        CHECK_INT(weir__kafka_stage_next(rd, &r, &e), 0);
        check_record(r, &want[i]);
    }
    CHECK_INT(weir__kafka_stage_next(rd, &r, &e), 0);
    CHECK(r == NULL); /* the end, checked */
    weir__kafka_stage_reader_free(rd);

    /* Cut short (its end frame missing): damaged at the fourth record. */
    struct stat st;
    CHECK_INT(stat(path, &st), 0);
    CHECK_INT(truncate(path, st.st_size - 9), 0);
    CHECK_INT(weir__kafka_stage_open(&rd, path, &e), 0);
    for (int i = 0; rd && i < 3; i++)
        CHECK_INT(weir__kafka_stage_next(rd, &r, &e), 0);
    CHECK_INT(weir__kafka_stage_next(rd, &r, &e), WEIR_ECORRUPT);
    CHECK_STR(e.error_class, "KAFKA_SINK_STAGE_DAMAGED");
    weir__kafka_stage_reader_free(rd);
    /* Not a staged batch at all; no file. */
    write_file(path, "hello, world");
    CHECK_INT(weir__kafka_stage_open(&rd, path, &e), WEIR_ECORRUPT);
    CHECK(rd == NULL);
    unlink(path);
    CHECK_INT(weir__kafka_stage_open(&rd, path, &e), 0);
    CHECK(rd == NULL);
    teardown(&fx);
}

TEST_MAIN(RUN(test_validate_options); RUN(test_kafka_options);
          RUN(test_partition_cols);
          RUN(test_percent_coding); RUN(test_move); RUN(test_parquet_sink);
          RUN(test_json_sink); RUN(test_csv_sink);
          RUN(test_cross_device_publish); RUN(test_csv_options);
          RUN(test_kafka_stage_file))
