/*
 * The schemas of file sources (see file_schemas.h): every read and write
 * of _weir.file_schemas. A schema is stored as a JSON array of
 * {"name": .., "type": ..} objects, DuckDB types.
 */
#include "state/file_schemas.h"

#include <string.h>

#include "state/internal.h"
#include "util/json.h"

static void schema_json(weir_buf *b, const weir_db_column *cols, size_t n)
{
    weir__buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        weir__buf_puts(b, i ? ", {\"name\": " : "{\"name\": ");
        weir__buf_put_json_string(b, cols[i].name);
        weir__buf_puts(b, ", \"type\": ");
        weir__buf_put_json_string(b, cols[i].type);
        weir__buf_putc(b, '}');
    }
    weir__buf_putc(b, ']');
}

static int parse_schema_json(weir_db_column **cols, size_t *n, weir_arena *a,
                             const char *text, weir_error *err)
{
    weir_json *j;
    int rc = weir__json_parse(&j, a, text, strlen(text), err);
    if (rc || j->type != WEIR_JSON_ARRAY)
        return WEIR_ERR(err, WEIR_ECORRUPT, "CORRUPT_CHECKPOINT",
                        "the stored schema of a file source is damaged");
    *cols = weir__arena_array(a, j->len + 1, sizeof(**cols));
    if (!*cols)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    *n = 0;
    for (size_t i = 0; i < j->len; i++) {
        const char *name = weir__json_get_str(j->items[i], "name");
        const char *type = weir__json_get_str(j->items[i], "type");
        if (!name || !type)
            return WEIR_ERR(err, WEIR_ECORRUPT, "CORRUPT_CHECKPOINT",
                            "the stored schema of a file source is damaged");
        (*cols)[*n].name = name;
        (*cols)[*n].type = type;
        (*n)++;
    }
    return 0;
}

int weir__file_schema_read(const weir_checkpoint *cp, int64_t gen,
                           const char *source, weir_arena *a,
                           weir_db_column **cols, size_t *n,
                           int64_t *version, bool *found)
{
    *found = false;
    weir_buf q = WEIR_BUF_INIT;
    /* Every version's row, the latest picked here: an ORDER BY .. LIMIT 1
     * costs DuckDB more than the few rows it saves. */
    weir__buf_puts(&q, "SELECT generation, version, columns FROM ");
    weir__state_table(&q, cp->catalog, "file_schemas");
    weir__buf_puts(&q, " WHERE flow = ");
    weir__buf_put_sql_string(&q, cp->flow);
    if (gen >= 0)
        weir__buf_printf(&q, " AND generation = %lld", (long long)gen);
    weir__buf_puts(&q, " AND source = ");
    weir__buf_put_sql_string(&q, source);
    weir_rows *r = NULL;
    int rc = weir__query_buf(cp->conn, &q, &r, cp->err);
    weir__buf_free(&q);
    size_t best = 0;
    int64_t best_gen = 0, best_version = 0;
    for (size_t i = 0; !rc && i < r->n_rows; i++) {
        int64_t g = weir__state_cell_i64(r, i, 0);
        int64_t v = weir__state_cell_i64(r, i, 1);
        if (i == 0 || g > best_gen || (g == best_gen && v > best_version)) {
            best = i;
            best_gen = g;
            best_version = v;
        }
    }
    if (!rc && r->n_rows) {
        *version = best_version;
        const char *text = weir__rows_get(r, best, 2);
        const char *json = weir__arena_strdup(a, text ? text : "");
        rc = json ? parse_schema_json(cols, n, a, json, cp->err)
                  : WEIR_ERR(cp->err, WEIR_ENOMEM, NULL, "out of memory");
        *found = !rc;
    }
    weir__rows_free(r);
    return rc;
}

int weir__file_schema_add(const weir_checkpoint *cp, int64_t gen,
                          const char *source, int64_t version,
                          const weir_db_column *cols, size_t n)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "INSERT INTO ");
    weir__state_table(&q, cp->catalog, "file_schemas");
    weir__buf_puts(&q, " VALUES (");
    weir__state_put_key(&q, cp, gen, source);
    weir__buf_printf(&q, ", %lld, ", (long long)version);
    weir_buf j = WEIR_BUF_INIT;
    schema_json(&j, cols, n);
    weir__buf_put_sql_string(&q, weir__buf_cstr(&j));
    if (j.failed)
        q.failed = true;
    weir__buf_free(&j);
    weir__buf_puts(&q, ", now()::TIMESTAMP, ");
    weir__buf_put_sql_string(&q, cp->update_id);
    weir__buf_putc(&q, ')');
    int rc = weir__exec_buf(cp->conn, &q, cp->err);
    weir__buf_free(&q);
    return rc;
}
