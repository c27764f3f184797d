/*
 * Delta tables that hold a pipeline's datasets (docs/delta.md): the
 * commits weir makes to such a table outside its flows' batches. A table
 * is created with its schema (version 0), overwritten when DuckDB has
 * committed a full refresh of the dataset (every active file removed, the
 * new schema), and widened when the dataset gained columns. The table's
 * epoch, which counts full refreshes (_weir.tables), travels in a txn
 * action of its own, so that the log tells which refreshes it has seen:
 * a crash between DuckDB's commit and the log's is made good by the next
 * update, and a retry never removes a second time. The batches themselves
 * are written by the Delta sink's stage and publish (delta.c).
 */
#include <stdlib.h>
#include <string.h>

#include "sinks/delta.h"
#include "sinks/internal.h"
#include "util/clock.h"
#include "util/kv.h"
#include "util/str.h"

#define EPOCH_APP "weir.table_epoch"

/* The Delta schema of the dataset's columns (all nullable, as the
 * batches the sink writes). */
static int dataset_schema(weir_dschema *out, weir_arena *a,
                          const weir_column *cols, size_t n, weir_error *err)
{
    out->n = 0;
    out->fields = weir__arena_array(a, n + 1, sizeof(*out->fields));
    if (!out->fields)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        weir_dfield *f = &out->fields[out->n++];
        f->name = cols[i].name;
        f->nullable = true;
        f->metadata = "{}";
        int rc = weir__delta_type_from_duckdb(&f->type, a, cols[i].duck_type,
                                              err);
        if (rc) {
            weir__error_prefix(err, "column %s: ", f->name);
            return rc;
        }
    }
    return 0;
}

int weir__delta_put_removes(weir_buf *c, const weir_delta_log *l, int64_t now_ms,
                       weir_arena *a, weir_error *err)
{
    weir_delta_add **files;
    size_t n;
    int rc = weir__delta_log_active(l, &files, &n, a, err);
    for (size_t i = 0; !rc && i < n; i++) {
        weir__buf_puts(c, "{\"remove\":{\"path\":");
        weir__buf_put_json_string(c, files[i]->path);
        weir__buf_printf(c, ",\"deletionTimestamp\":%lld,\"dataChange\":true,"
                            "\"extendedFileMetadata\":true,"
                            "\"partitionValues\":",
                         (long long)now_ms);
        if (files[i]->values)
            weir__sink_json_write(c, files[i]->values);
        else
            weir__buf_puts(c, "{}");
        weir__buf_printf(c, ",\"size\":%lld}}\n", (long long)files[i]->size);
    }
    return rc;
}

static void put_commit_info(weir_buf *c, const char *operation,
                            const weir_delta_log *l, int64_t now_ms)
{
    weir__buf_printf(c, "{\"commitInfo\":{\"timestamp\":%lld,\"operation\":"
                        "\"%s\",\"operationParameters\":{}",
                     (long long)now_ms, operation);
    if (l->version >= 0)
        weir__buf_printf(c, ",\"readVersion\":%lld", (long long)l->version);
    weir__buf_puts(c, ",\"isolationLevel\":\"Serializable\",\"isBlindAppend\":"
                      "false,\"engineInfo\":\"weir/" WEIR_VERSION "\"}}\n");
}

/* The commit that brings l to the dataset's schema and epoch, or nothing
 * (c left empty) when l is there already. */
static int build(weir_buf *c, const weir_delta_log *l,
                 const weir_dschema *want, const char *const *parts,
                 size_t n_parts, int64_t epoch, bool evolve, weir_arena *a,
                 weir_error *err)
{
    int64_t now_ms = weir__now_us() / 1000;
    int64_t seen = weir__delta_log_txn(l, EPOCH_APP);
    if (l->version < 0 || seen < epoch) {
        bool fresh = l->version < 0;
        put_commit_info(c, fresh ? "CREATE TABLE" : "CREATE OR REPLACE TABLE",
                        l, now_ms);
        if (fresh)
            weir__buf_puts(c, "{\"protocol\":{\"minReaderVersion\":1,"
                              "\"minWriterVersion\":2}}\n");
        weir__delta_put_metadata(c, l, want, parts, n_parts, now_ms);
        weir__buf_printf(c, "{\"txn\":{\"appId\":\"" EPOCH_APP "\",\"version\":"
                            "%lld,\"lastUpdated\":%lld}}\n",
                         (long long)epoch, (long long)now_ms);
        return fresh ? 0 : weir__delta_put_removes(c, l, now_ms, a, err);
    }
    if (!evolve)
        return 0;
    weir_dschema merged;
    size_t added = 0;
    int rc = weir__delta_schema_merge(&merged, &added, a, &l->schema, want,
                                      true, err);
    if (rc || !added)
        return rc;
    put_commit_info(c, "ADD COLUMNS", l, now_ms);
    weir__delta_put_metadata(c, l, &merged, l->partition_cols,
                             l->n_partition_cols, now_ms);
    return 0;
}

int weir__delta_dataset_sync(const char *table, const weir_column *cols,
                             size_t n, const char *const *parts,
                             size_t n_parts, int64_t epoch, bool evolve,
                             weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_dschema want;
    int rc = dataset_schema(&want, &a, cols, n, err);
    bool done = false;
    for (int attempt = 0; !rc && !done && attempt < 100; attempt++) {
        weir_delta_log l;
        rc = weir__delta_log_read(&l, table, err);
        if (!rc)
            rc = weir__delta_log_check(&l, true, err);
        weir_buf c = WEIR_BUF_INIT;
        if (!rc)
            rc = build(&c, &l, &want, parts, n_parts, epoch, evolve, &a, err);
        if (!rc && c.failed)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        if (!rc && c.len)
            rc = weir__delta_log_commit(table, l.version + 1, c.ptr, c.len,
                                        err);
        if (rc == WEIR_EEXISTS) {
            weir__error_clear(err); /* another writer: read the log again */
            rc = 0;
        } else if (!rc) {
            done = true;
        }
        weir__buf_free(&c);
        weir__delta_log_free(&l);
    }
    if (!rc && !done)
        rc = WEIR_ERR(err, WEIR_EBUSY, "DELTA_CONCURRENT_WRITE",
                      "gave up committing to %s after 100 conflicting "
                      "commits",
                      table);
    if (rc && err)
        weir__error_prefix(err, "Delta table %s: ", table);
    weir__arena_free(&a);
    return rc;
}

int weir__delta_dataset_overwrite(weir_conn *conn, weir_sink_batch *b,
                                  const char *sql, int64_t *rows,
                                  weir_error *err)
{
    const char *table = weir__kv_get(b->options, b->n_options, "path");
    weir_delta_log l;
    int rc = weir__delta_log_read(&l, table, err);
    if (rc)
        return rc;
    b->batch_id = weir__delta_log_txn(&l, b->flow) + 1;
    b->generation = 0;
    b->overwrite = true;
    weir__delta_log_free(&l);
    weir_error ignore;
    weir__sink_delta.discard(b, &ignore); /* leftovers of a crashed try */
    rc = weir__sink_delta.stage(conn, b, sql, rows, NULL, err);
    return rc ? rc : weir__sink_delta.publish(b, NULL, err);
}
