/*
 * Reading what a statement returns or would return: materialised results
 * (values as text, nested ones cast to VARCHAR), single values, the
 * output columns of a query or table, and DuckDB's spelling of their
 * types (see db.h).
 */
#include "store/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <duckdb.h>

#include "store/db_conn.h"
#include "weir.h"

/* DuckDB's spelling of a logical type, e.g. DECIMAL(12,2), VARCHAR[]. */
static void type_text(weir_buf *b, duckdb_logical_type t)
{
    duckdb_type id = duckdb_get_type_id(t);
    switch (id) {
    case DUCKDB_TYPE_BOOLEAN: weir__buf_puts(b, "BOOLEAN"); return;
    case DUCKDB_TYPE_TINYINT: weir__buf_puts(b, "TINYINT"); return;
    case DUCKDB_TYPE_SMALLINT: weir__buf_puts(b, "SMALLINT"); return;
    case DUCKDB_TYPE_INTEGER: weir__buf_puts(b, "INTEGER"); return;
    case DUCKDB_TYPE_BIGINT: weir__buf_puts(b, "BIGINT"); return;
    case DUCKDB_TYPE_UTINYINT: weir__buf_puts(b, "UTINYINT"); return;
    case DUCKDB_TYPE_USMALLINT: weir__buf_puts(b, "USMALLINT"); return;
    case DUCKDB_TYPE_UINTEGER: weir__buf_puts(b, "UINTEGER"); return;
    case DUCKDB_TYPE_UBIGINT: weir__buf_puts(b, "UBIGINT"); return;
    case DUCKDB_TYPE_HUGEINT: weir__buf_puts(b, "HUGEINT"); return;
    case DUCKDB_TYPE_UHUGEINT: weir__buf_puts(b, "UHUGEINT"); return;
    case DUCKDB_TYPE_FLOAT: weir__buf_puts(b, "FLOAT"); return;
    case DUCKDB_TYPE_DOUBLE: weir__buf_puts(b, "DOUBLE"); return;
    case DUCKDB_TYPE_VARCHAR: weir__buf_puts(b, "VARCHAR"); return;
    case DUCKDB_TYPE_BLOB: weir__buf_puts(b, "BLOB"); return;
    case DUCKDB_TYPE_DATE: weir__buf_puts(b, "DATE"); return;
    case DUCKDB_TYPE_TIME: weir__buf_puts(b, "TIME"); return;
    case DUCKDB_TYPE_TIMESTAMP: weir__buf_puts(b, "TIMESTAMP"); return;
    case DUCKDB_TYPE_TIMESTAMP_S: weir__buf_puts(b, "TIMESTAMP_S"); return;
    case DUCKDB_TYPE_TIMESTAMP_MS: weir__buf_puts(b, "TIMESTAMP_MS"); return;
    case DUCKDB_TYPE_TIMESTAMP_NS: weir__buf_puts(b, "TIMESTAMP_NS"); return;
    case DUCKDB_TYPE_TIMESTAMP_TZ:
        weir__buf_puts(b, "TIMESTAMP WITH TIME ZONE");
        return;
    case DUCKDB_TYPE_INTERVAL: weir__buf_puts(b, "INTERVAL"); return;
    case DUCKDB_TYPE_UUID: weir__buf_puts(b, "UUID"); return;
    case DUCKDB_TYPE_SQLNULL: weir__buf_puts(b, "\"NULL\""); return;
    case DUCKDB_TYPE_DECIMAL:
        weir__buf_printf(b, "DECIMAL(%u,%u)",
                         (unsigned)duckdb_decimal_width(t),
                         (unsigned)duckdb_decimal_scale(t));
        return;
    case DUCKDB_TYPE_LIST:
    case DUCKDB_TYPE_ARRAY: {
        duckdb_logical_type child = id == DUCKDB_TYPE_LIST
                                        ? duckdb_list_type_child_type(t)
                                        : duckdb_array_type_child_type(t);
        type_text(b, child);
        duckdb_destroy_logical_type(&child);
        weir__buf_puts(b, "[]");
        return;
    }
    case DUCKDB_TYPE_STRUCT: {
        idx_t n = duckdb_struct_type_child_count(t);
        weir__buf_puts(b, "STRUCT(");
        for (idx_t i = 0; i < n; i++) {
            char *name = duckdb_struct_type_child_name(t, i);
            duckdb_logical_type child = duckdb_struct_type_child_type(t, i);
            if (i)
                weir__buf_puts(b, ", ");
            weir__buf_put_sql_ident(b, name);
            weir__buf_putc(b, ' ');
            type_text(b, child);
            duckdb_destroy_logical_type(&child);
            duckdb_free(name);
        }
        weir__buf_putc(b, ')');
        return;
    }
    case DUCKDB_TYPE_MAP: {
        duckdb_logical_type k = duckdb_map_type_key_type(t);
        duckdb_logical_type v = duckdb_map_type_value_type(t);
        weir__buf_puts(b, "MAP(");
        type_text(b, k);
        weir__buf_puts(b, ", ");
        type_text(b, v);
        weir__buf_putc(b, ')');
        duckdb_destroy_logical_type(&k);
        duckdb_destroy_logical_type(&v);
        return;
    }
    default: {
        char *alias = duckdb_logical_type_get_alias(t);
        if (alias) {
            weir__buf_puts(b, alias);
            duckdb_free(alias);
        } else {
            weir__buf_printf(b, "TYPE_%d", (int)id);
        }
        return;
    }
    }
}

static bool numeric_type(duckdb_type id)
{
    switch (id) {
    case DUCKDB_TYPE_BOOLEAN:
    case DUCKDB_TYPE_TINYINT:
    case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT:
    case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER:
    case DUCKDB_TYPE_UBIGINT:
    case DUCKDB_TYPE_HUGEINT:
    case DUCKDB_TYPE_UHUGEINT:
    case DUCKDB_TYPE_FLOAT:
    case DUCKDB_TYPE_DOUBLE:
    case DUCKDB_TYPE_DECIMAL:
        return true;
    default:
        return false;
    }
}

static const char *arena_type_text(weir_arena *a, duckdb_logical_type t)
{
    weir_buf b = WEIR_BUF_INIT;
    type_text(&b, t);
    const char *s = weir__arena_strdup(a, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return s;
}

static bool nested_type(duckdb_type id)
{
    return id == DUCKDB_TYPE_LIST || id == DUCKDB_TYPE_STRUCT ||
           id == DUCKDB_TYPE_MAP || id == DUCKDB_TYPE_ARRAY ||
           id == DUCKDB_TYPE_UNION;
}

/* DuckDB's value accessor cannot print nested values (lists, structs,
 * maps). For a single SELECT with such columns, run it wrapped so those
 * columns come back cast to VARCHAR (by position, so duplicate names are
 * fine); *types receives the original type texts. Returns NULL when the
 * query needs no wrapping; then *ready is the statement prepared, to
 * execute as it is (not parsed and planned a second time), or NULL when
 * it does not prepare (several statements: run as text). */
static char *wrap_nested(duckdb_connection c, const char *sql, weir_arena *a,
                         const char ***types, duckdb_prepared_statement *ready)
{
    *ready = NULL;
    duckdb_prepared_statement st;
    if (duckdb_prepare(c, sql, &st) == DuckDBError) {
        duckdb_destroy_prepare(&st);
        return NULL;
    }
    char *wrapped = NULL;
    size_t n = (size_t)duckdb_prepared_statement_column_count(st);
    bool nested = false;
    for (size_t i = 0; i < n; i++)
        nested |= nested_type(duckdb_prepared_statement_column_type(st, i));
    if (nested && duckdb_prepared_statement_type(st) == DUCKDB_STATEMENT_TYPE_SELECT) {
        weir_buf b = WEIR_BUF_INIT;
        *types = weir__arena_array(a, n + 1, sizeof(char *));
        weir__buf_puts(&b, "SELECT ");
        for (size_t i = 0; *types && i < n; i++) {
            duckdb_logical_type t =
                duckdb_prepared_statement_column_logical_type(st, i);
            (*types)[i] = arena_type_text(a, t);
            bool cast = nested_type(duckdb_get_type_id(t));
            duckdb_destroy_logical_type(&t);
            const char *name = duckdb_prepared_statement_column_name(st, i);
            weir__buf_printf(&b, "%s%s#%zu%s AS ", i ? ", " : "",
                             cast ? "CAST(" : "", i + 1, cast ? " AS VARCHAR)" : "");
            weir__buf_put_sql_ident(&b, name ? name : "");
            duckdb_free((void *)name);
        }
        weir__buf_printf(&b, " FROM (%s) AS \"__weir_result\"", sql);
        wrapped = *types ? weir__buf_detach(&b) : NULL;
        weir__buf_free(&b);
    }
    if (!nested) {
        *ready = st;
        return NULL;
    }
    duckdb_destroy_prepare(&st);
    return wrapped;
}

static int conn_query(weir_conn *c, const char *sql, weir_rows **out,
                      weir_error *err)
{
    *out = NULL;
    weir_arena types_arena = WEIR_ARENA_INIT;
    const char **nested_types = NULL;
    duckdb_prepared_statement ready;
    char *wrapped = wrap_nested(weir__conn_counted(c, sql), sql,
                                &types_arena, &nested_types, &ready);
    duckdb_result r;
    duckdb_state qs;
    if (ready) {
        qs = duckdb_execute_prepared(ready, &r);
        duckdb_destroy_prepare(&ready);
    } else {
        const char *run = wrapped ? wrapped : sql;
        qs = duckdb_query(weir__conn_counted(c, run), run, &r);
    }
    free(wrapped);
    if (qs == DuckDBError) {
        weir__arena_free(&types_arena);
        int rc =
            weir__conn_query_error(c, err, duckdb_result_error(&r));
        duckdb_destroy_result(&r);
        return rc;
    }
    weir_rows *rows = calloc(1, sizeof(*rows));
    if (!rows) {
        duckdb_destroy_result(&r);
        weir__arena_free(&types_arena);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir__arena_init(&rows->arena);
    weir_arena *a = &rows->arena;
    rows->statement_type = (int)duckdb_result_statement_type(r);
    rows->rows_changed = (int64_t)duckdb_rows_changed(&r);
    /* Statements that return no relation (DDL, INSERT, ...) have no
     * columns, as in Spark; DuckDB reports a count instead. */
    bool relation = duckdb_result_return_type(r) == DUCKDB_RESULT_TYPE_QUERY_RESULT;
    size_t nc = relation ? (size_t)duckdb_column_count(&r) : 0;
    rows->n_cols = nc;
    rows->names = weir__arena_array(a, nc + 1, sizeof(char *));
    rows->types = weir__arena_array(a, nc + 1, sizeof(char *));
    rows->numeric = weir__arena_array(a, nc + 1, sizeof(bool));
    for (size_t i = 0; a->failed == false && i < nc; i++) {
        rows->names[i] = weir__arena_strdup(a, duckdb_column_name(&r, i));
        duckdb_logical_type t = duckdb_column_logical_type(&r, i);
        rows->types[i] = nested_types
                             ? weir__arena_strdup(a, nested_types[i])
                             : arena_type_text(a, t);
        rows->numeric[i] = numeric_type(duckdb_get_type_id(t));
        duckdb_destroy_logical_type(&t);
    }
    weir__arena_free(&types_arena);
    size_t nr = relation ? (size_t)duckdb_row_count(&r) : 0;
    rows->n_rows = nr;
    if (nc && nr > SIZE_MAX / nc / sizeof(char *)) {
        duckdb_destroy_result(&r);
        weir__rows_free(rows);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "result too large");
    }
    rows->values = weir__arena_array(a, nr * nc + 1, sizeof(char *));
    for (size_t i = 0; !a->failed && i < nr; i++) {
        for (size_t j = 0; j < nc; j++) {
            if (duckdb_value_is_null(&r, j, i))
                continue;
            char *v = duckdb_value_varchar(&r, j, i);
            rows->values[i * nc + j] = weir__arena_strdup(a, v ? v : "");
            duckdb_free(v);
        }
    }
    duckdb_destroy_result(&r);
    if (a->failed) {
        weir__rows_free(rows);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    *out = rows;
    return 0;
}

int weir__conn_query(weir_conn *c, const char *sql, weir_rows **out,
                     weir_error *err)
{
    bool shared = weir__db_gate_share(c->db, sql);
    int rc = conn_query(c, sql, out, err);
    weir__db_gate_unshare(c->db, shared);
    return rc;
}

void weir__rows_free(weir_rows *rows)
{
    if (!rows)
        return;
    weir__arena_free(&rows->arena);
    free(rows);
}

int weir__conn_scalar_i64(weir_conn *c, const char *sql, int64_t *out,
                          bool *is_null, weir_error *err)
{
    duckdb_result r;
    *out = 0;
    if (is_null)
        *is_null = true;
    if (weir__conn_query_shared(c, sql, &r) == DuckDBError) {
        int rc =
            weir__conn_query_error(c, err, duckdb_result_error(&r));
        duckdb_destroy_result(&r);
        return rc;
    }
    if (duckdb_row_count(&r) > 0 && duckdb_column_count(&r) > 0 &&
        !duckdb_value_is_null(&r, 0, 0)) {
        *out = duckdb_value_int64(&r, 0, 0);
        if (is_null)
            *is_null = false;
    }
    duckdb_destroy_result(&r);
    return 0;
}

int weir__conn_scalar_text(weir_conn *c, const char *sql, char **out,
                           weir_error *err)
{
    duckdb_result r;
    *out = NULL;
    if (weir__conn_query_shared(c, sql, &r) == DuckDBError) {
        int rc =
            weir__conn_query_error(c, err, duckdb_result_error(&r));
        duckdb_destroy_result(&r);
        return rc;
    }
    int rc = 0;
    if (duckdb_row_count(&r) > 0 && duckdb_column_count(&r) > 0 &&
        !duckdb_value_is_null(&r, 0, 0)) {
        char *v = duckdb_value_varchar(&r, 0, 0);
        *out = v ? strdup(v) : NULL;
        duckdb_free(v);
        if (!*out)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    duckdb_destroy_result(&r);
    return rc;
}

/* The output columns of a prepared statement, into the arena. */
static int prepared_columns(duckdb_prepared_statement st, weir_db_column **out,
                            size_t *n_out, weir_arena *arena, weir_error *err)
{
    size_t n = (size_t)duckdb_prepared_statement_column_count(st);
    weir_db_column *cols = weir__arena_array(arena, n + 1, sizeof(*cols));
    for (size_t i = 0; cols && i < n; i++) {
        const char *name = duckdb_prepared_statement_column_name(st, i);
        cols[i].name = weir__arena_strdup(arena, name ? name : "");
        duckdb_free((void *)name);
        duckdb_logical_type t =
            duckdb_prepared_statement_column_logical_type(st, i);
        cols[i].type = arena_type_text(arena, t);
        duckdb_destroy_logical_type(&t);
    }
    if (!cols || weir__arena_failed(arena))
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    *out = cols;
    *n_out = n;
    return 0;
}

#ifdef WEIR_TEST_HOOKS
/* Test builds only (option WEIR_TEST_HOOKS, tests/e2e/README.md):
 * WEIR_TEST_PROBE_DELAY_MS=N makes every describe (a type probe) say so on
 * stderr and wait N ms first, so that a test can signal weir while it
 * plans a query. */
static void test_probe_delay(void)
{
    const char *env = getenv("WEIR_TEST_PROBE_DELAY_MS");
    long ms = env ? strtol(env, NULL, 10) : 0;
    if (ms <= 0)
        return;
    /* write(2): the library links no stdio printing (api/exports) */
    char line[80];
    int n = snprintf(line, sizeof line,
                     "weir test hook: type probe delayed %ld ms\n", ms);
    if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0) {
        /* a lost line only makes the test wait longer */
    }
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}
#endif

int weir__conn_describe(weir_conn *c, const char *sql, weir_db_column **out,
                        size_t *n_out, weir_arena *arena, weir_error *err)
{
    *out = NULL;
    *n_out = 0;
    duckdb_prepared_statement st;
    int rc;
#ifdef WEIR_TEST_HOOKS
    test_probe_delay();
#endif
    if (duckdb_prepare(weir__conn_counted(c, sql), sql, &st) == DuckDBError)
        rc = weir__conn_prepare_error(c, err, duckdb_prepare_error(st));
    else
        rc = prepared_columns(st, out, n_out, arena, err);
    duckdb_destroy_prepare(&st);
    return rc;
}

/* What the catalog holds under catalog.schema.name, by one lookup: binding
 * a query of a missing table fails slowly (DuckDB looks for similar names
 * to suggest, ~10 ms). DuckDB 1.4 answers "No table with that schema+name
 * could be located" for a missing table, schema or catalog; anything else
 * it does not describe is not a table (a view). */
typedef enum { NAME_ABSENT, NAME_TABLE, NAME_OTHER } name_kind;

static name_kind look_up_name(weir_conn *c, const char *catalog,
                              const char *schema, const char *name)
{
    duckdb_table_description td = NULL;
    duckdb_state found = duckdb_table_description_create_ext(
        c->handle, catalog, schema, name, &td);
    const char *why = found == DuckDBError && td
                          ? duckdb_table_description_error(td) : NULL;
    name_kind k = found == DuckDBSuccess ? NAME_TABLE
                  : why && strncmp(why, "No table with that", 18) == 0
                      ? NAME_ABSENT
                      : NAME_OTHER;
    duckdb_table_description_destroy(&td);
    return k;
}

bool weir__conn_is_table(weir_conn *c, const char *catalog, const char *schema,
                         const char *name)
{
    return look_up_name(c, catalog, schema, name) == NAME_TABLE;
}

int weir__conn_table_columns(weir_conn *c, const char *catalog,
                             const char *schema, const char *table,
                             bool *exists, bool *view, weir_db_column **out,
                             size_t *n_out, weir_arena *arena, weir_error *err)
{
    *exists = false;
    if (view)
        *view = false;
    *out = NULL;
    *n_out = 0;
    name_kind k = look_up_name(c, catalog, schema, table);
    if (k == NAME_ABSENT)
        return 0;
    /* Not a table (a view): a caller that asks is told so, without
     * binding the view (which may fail: its sources may be gone); other
     * callers get its columns by the query below. */
    if (view && k == NAME_OTHER) {
        *exists = *view = true;
        return 0;
    }
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT * FROM ");
    weir__buf_put_sql_ident(&q, catalog);
    weir__buf_putc(&q, '.');
    weir__buf_put_sql_ident(&q, schema);
    weir__buf_putc(&q, '.');
    weir__buf_put_sql_ident(&q, table);
    if (q.failed) {
        weir__buf_free(&q);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    duckdb_prepared_statement st;
    int rc = 0;
    if (duckdb_prepare(weir__conn_counted(c, weir__buf_cstr(&q)),
                       weir__buf_cstr(&q), &st) == DuckDBError) {
        /* A name that does not resolve (no such table or schema: a
         * Catalog Error; no such catalog: a Binder Error): absent. */
        const char *msg = duckdb_prepare_error(st);
        bool absent = msg && (strncmp(msg, "Catalog Error: ", 15) == 0 ||
                              (strncmp(msg, "Binder Error: Catalog ", 22) == 0 &&
                               strstr(msg, "does not exist")));
        if (!absent)
            rc = weir__db_error(err, "", msg, c->memory_limit);
    } else {
        *exists = true;
        rc = prepared_columns(st, out, n_out, arena, err);
    }
    duckdb_destroy_prepare(&st);
    weir__buf_free(&q);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const weir_db_column *)a)->name,
                  ((const weir_db_column *)b)->name);
}

int weir__conn_sort_columns(weir_conn *c, weir_buf *rel, weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_buf q = WEIR_BUF_INIT;
    weir_db_column *cols = NULL;
    size_t n = 0;
    weir_error ignore;
    weir__buf_printf(&q, "SELECT * FROM %s", weir__buf_cstr(rel));
    int rc = 0;
    if (!q.failed && weir__conn_describe(c, weir__buf_cstr(&q), &cols, &n, &a,
                                         &ignore) == 0 && n > 1) {
        qsort(cols, n, sizeof(*cols), by_name);
        weir__buf_clear(&q);
        weir__buf_puts(&q, "(SELECT ");
        for (size_t i = 0; i < n; i++) {
            if (i)
                weir__buf_puts(&q, ", ");
            weir__buf_put_sql_ident(&q, cols[i].name);
        }
        weir__buf_printf(&q, " FROM %s)", weir__buf_cstr(rel));
        if (q.failed) {
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        } else {
            weir__buf_free(rel);
            *rel = q;
            q = (weir_buf)WEIR_BUF_INIT;
        }
    }
    weir__buf_free(&q);
    weir__arena_free(&a);
    return rc;
}
