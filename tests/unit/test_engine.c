/*
 * Unit tests for src/engine that need to look inside an update: a reader
 * running while a materialized view is recomputed sees the old or the new
 * contents, never an empty or partial table; expectations are evaluated in
 * the statement that writes, with exact counts.
 */
#define _DEFAULT_SOURCE
#include "harness.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/analyze.h"
#include "engine/common.h"
#include "engine/exec.h"
#include "engine/materialize.h"
#include "graph/graph.h"
#include "sql/sql.h"
#include "state/state.h"
#include "store/db.h"
#include "store/storage.h"
#include "util/fs.h"

typedef struct fixture {
    char dir[64];
    weir_arena arena;
    weir_defs defs;
    weir__diags diags;
    weir_graph *g;
    weir_storage *st;
} fixture;

/* A temporary storage with `pre` run first (source tables), then the
 * pipeline `sql` registered, built and resolved. */
static int setup(fixture *fx, const char *pre, const char *sql)
{
    memset(fx, 0, sizeof(*fx));
    snprintf(fx->dir, sizeof(fx->dir), "/tmp/weir-test-engine-XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    weir__arena_init(&fx->arena);
    fx->defs.default_catalog = "spark_catalog";
    fx->defs.default_database = "default";
    weir_sql_source *src = weir__arena_alloc(&fx->arena, sizeof(*src));
    src->path = "t.sql";
    src->text = sql;
    src->len = strlen(sql);
    weir_sql_stmt *stmts;
    size_t n;
    weir_error e;
    if (weir__sql_parse_file(&stmts, &n, &fx->arena, src, &fx->diags) ||
        weir__defs_add_sql(&fx->defs, &fx->arena, stmts, n, &fx->diags) ||
        weir__graph_build(&fx->g, &fx->defs, &fx->diags, &e))
        return -1;
    char *root = weir__path_join(fx->dir, "storage");
    int rc = weir__storage_open(&fx->st, root, WEIR_STORAGE_RUN, NULL,
                                weir__state_schema(), &e);
    free(root);
    if (!rc)
        rc = weir__storage_use_catalog(fx->st, "spark_catalog", "default", &e);
    if (!rc && pre)
        rc = weir__conn_exec(fx->st->conn, pre, NULL, &e);
    if (!rc)
        rc = weir__analyze(fx->g, fx->st, fx->dir, false, NULL, NULL,
                           &fx->diags, &e);
    return rc;
}

static void teardown(fixture *fx)
{
    weir__storage_close(fx->st);
    weir__graph_free(fx->g);
    weir__defs_free(&fx->defs);
    weir__diags_free(&fx->diags);
    weir__arena_free(&fx->arena);
    weir__fs_remove_tree(fx->dir, NULL);
}

/* What a flow did, for run_flows' callers. */
typedef struct flow_seen {
    uint64_t statements; /* on the flow's connection */
    char details[2048];  /* its flow_progress details */
    char reason[800];    /* a materialized view's technique_reason */
} flow_seen;

/* Run every flow of the graph once (in order) on its own connection, as
 * an update does (engine/run.c); seen (may be NULL) gets, by flow order,
 * what each did. */
static int run_flows_seen(fixture *fx, flow_seen *seen)
{
    bool sel[16], reset[16] = { false }, fresh[16] = { false };
    int64_t fresh_rows[16] = { 0 };
    weir_error errs[16], e;
    memset(errs, 0, sizeof(errs));
    for (size_t i = 0; i < 16; i++)
        sel[i] = true;
    int rc = weir__materialize(fx->st, fx->g, sel, reset, "test", fresh, errs,
                               &e);
    for (size_t k = 0; !rc && k < fx->g->n_flows; k++) {
        weir_flow_exec x;
        memset(&x, 0, sizeof(x));
        x.g = fx->g;
        x.f = &fx->g->flows[fx->g->flow_order[k]];
        x.st = fx->st;
        x.root_dir = fx->dir;
        x.update_id = "test";
        x.fresh = fresh;
        x.fresh_rows = fresh_rows;
        rc = weir__db_connect(&x.conn, fx->st->db, &e);
        if (!rc)
            rc = weir__flow_exec(&x);
        if (x.altered)
            fresh[x.f->target] = false;
        fresh_rows[x.f->target] += x.rows_written;
        if (seen && x.conn) {
            seen[k].statements = weir__conn_statements(x.conn);
            snprintf(seen[k].details, sizeof(seen[k].details), "%s",
                     x.details.len ? weir__buf_cstr(&x.details) : "");
            snprintf(seen[k].reason, sizeof(seen[k].reason), "%s",
                     x.technique_reason);
        }
        weir__conn_close(x.conn);
        weir__buf_free(&x.details);
    }
    return rc;
}

static int run_flows(fixture *fx)
{
    return run_flows_seen(fx, NULL);
}

typedef struct recompute {
    fixture *fx;
    int rc;
    volatile int done;
} recompute;

static void *recompute_main(void *arg)
{
    recompute *r = arg;
    r->rc = run_flows(r->fx);
    r->done = 1;
    return NULL;
}

TEST(test_engine_mv__readers_never_see_partial)
{
    /* The view's contents depend on a table the test changes between
     * updates; the recompute is slowed by a heavy side computation. */
    fixture fx;
    const char *sql =
        "CREATE MATERIALIZED VIEW mv AS\n"
        "SELECT v FROM spark_catalog.default.src\n"
        "WHERE (SELECT count(*) FROM range(20000000) WHERE hash(id) % 7 = 1) "
        "> 0;";
    weir_error e;
    CHECK_INT(setup(&fx,
                    "CREATE TABLE spark_catalog.\"default\".src AS "
                    "SELECT range AS v FROM range(1000)",
                    sql),
              0);
    CHECK_INT(run_flows(&fx), 0); /* mv = 0..999 */

    /* Change the source, recompute in a thread, read all along. */
    CHECK_INT(weir__conn_exec(fx.st->conn,
                              "UPDATE spark_catalog.\"default\".src SET v = v + 1000",
                              NULL, &e),
              0);
    weir_conn *reader;
    CHECK_INT(weir__db_connect(&reader, fx.st->db, &e), 0);
    recompute r = { &fx, 0, 0 };
    pthread_t t;
    CHECK_INT(pthread_create(&t, NULL, recompute_main, &r), 0);
    int reads = 0, old_seen = 0, new_seen = 0, bad = 0;
    while (!r.done) {
        weir_rows *rows = NULL;
        if (weir__conn_query(reader,
                             "SELECT count(*), min(v), max(v) FROM "
                             "spark_catalog.\"default\".mv",
                             &rows, &e) == 0) {
            const char *c = weir__rows_get(rows, 0, 0);
            const char *lo = weir__rows_get(rows, 0, 1);
            if (c && !strcmp(c, "1000") && lo && !strcmp(lo, "0"))
                old_seen++;
            else if (c && !strcmp(c, "1000") && lo && !strcmp(lo, "1000"))
                new_seen++;
            else
                bad++;
            reads++;
        }
        weir__rows_free(rows);
        usleep(2000);
    }
    pthread_join(t, NULL);
    CHECK_INT(r.rc, 0);
    CHECK_INT(bad, 0);
    CHECK(old_seen > 0); /* the recompute took long enough to be observed */
    weir_rows *rows = NULL;
    CHECK_INT(weir__conn_query(reader, "SELECT min(v) FROM spark_catalog.\"default\".mv",
                               &rows, &e),
              0);
    CHECK_STR(weir__rows_get(rows, 0, 0), "1000");
    weir__rows_free(rows);
    printf("  %d reads during the recompute: %d old, %d new, %d partial\n",
           reads, old_seen, new_seen, bad);
    weir__conn_close(reader);
    teardown(&fx);
}

/* The flow order index of a dataset's flow. */
static size_t order_of(const fixture *fx, const char *display)
{
    for (size_t k = 0; k < fx->g->n_flows; k++) {
        const weir_gflow *f = &fx->g->flows[fx->g->flow_order[k]];
        if (!strcmp(fx->g->datasets[f->target].display, display))
            return k;
    }
    return 0;
}

TEST(test_engine_expectations__one_statement)
{
    /* The same view with and without expectations: the checked one writes
     * in as many statements as the plain one (no copy of the batch, no
     * second scan), and its counts are exact though its DROP condition
     * reads the nullable side of a LEFT JOIN (a filter pushed into the
     * join would drop or count other rows). */
    fixture fx;
    const char *q = "SELECT o.id, o.amount, c.country FROM "
                    "spark_catalog.default.orders o LEFT JOIN "
                    "spark_catalog.default.customers c ON o.cust = c.cust";
    char sql[1024];
    snprintf(sql, sizeof(sql),
             "CREATE MATERIALIZED VIEW plain AS %s;\n"
             "CREATE MATERIALIZED VIEW checked (\n"
             "  CONSTRAINT has_amount EXPECT (amount IS NOT NULL),\n"
             "  CONSTRAINT known EXPECT (country IS NOT NULL) ON VIOLATION "
             "DROP ROW,\n"
             "  CONSTRAINT has_id EXPECT (id IS NOT NULL) ON VIOLATION FAIL "
             "UPDATE\n) AS %s;",
             q, q);
    CHECK_INT(setup(&fx,
                    "CREATE TABLE spark_catalog.\"default\".customers AS "
                    "SELECT * FROM (VALUES (1, 'fr'), (2, NULL)) t(cust, country);"
                    "CREATE TABLE spark_catalog.\"default\".orders AS "
                    "SELECT range AS id, range % 4 AS cust, "
                    "CASE WHEN range % 5 = 0 THEN NULL ELSE range END AS amount "
                    "FROM range(10000)",
                    sql),
              0);
    flow_seen seen[16];
    memset(seen, 0, sizeof(seen));
    CHECK_INT(run_flows_seen(&fx, seen), 0);
    const flow_seen *plain = &seen[order_of(&fx, "spark_catalog.default.plain")];
    const flow_seen *checked =
        &seen[order_of(&fx, "spark_catalog.default.checked")];
    CHECK(plain->statements > 0);
    CHECK_INT(checked->statements, plain->statements);
    /* cust 1 of 0..3 has a country: 2,500 rows kept, 7,500 dropped; 2,000
     * amounts are NULL. */
    CHECK(strstr(checked->details, "\"dropped_records\": 7500") != NULL);
    CHECK(strstr(checked->details, "\"name\": \"has_amount\", \"dataset\": "
                                   "\"spark_catalog.default.checked\", "
                                   "\"action\": \"warn\", \"passed_records\": "
                                   "8000, \"failed_records\": 2000") != NULL);
    CHECK(strstr(checked->details, "\"action\": \"fail\", \"passed_records\": "
                                   "10000, \"failed_records\": 0") != NULL);
    weir_rows *rows = NULL;
    weir_error e;
    CHECK_INT(weir__conn_query(fx.st->conn,
                               "SELECT count(*), count(DISTINCT country) FROM "
                               "spark_catalog.\"default\".checked",
                               &rows, &e),
              0);
    CHECK_STR(weir__rows_get(rows, 0, 0), "2500");
    CHECK_STR(weir__rows_get(rows, 0, 1), "1");
    weir__rows_free(rows);
    if (T_.failures)
        printf("  plain: %llu statements; checked: %llu, %s\n",
               (unsigned long long)plain->statements,
               (unsigned long long)checked->statements, checked->details);
    teardown(&fx);
}

/* The rows of query q as text, one line per row, cells by commas. */
static void rows_text(weir_conn *c, const char *q, char *out, size_t size)
{
    weir_rows *rows = NULL;
    weir_error e;
    weir_buf b = WEIR_BUF_INIT;
    if (weir__conn_query(c, q, &rows, &e) != 0)
        weir__buf_printf(&b, "error: %s", e.message);
    for (size_t r = 0; rows && r < rows->n_rows; r++)
        for (size_t k = 0; k < rows->n_cols; k++) {
            const char *v = weir__rows_get(rows, r, k);
            weir__buf_printf(&b, "%s%s", v ? v : "NULL",
                             k + 1 < rows->n_cols ? "," : "\n");
        }
    snprintf(out, size, "%s", b.len ? weir__buf_cstr(&b) : "");
    weir__buf_free(&b);
    weir__rows_free(rows);
}

TEST(test_engine_mv__fills_new_table)
{
    /* A first update creates a view's table once: the materialize step
     * creates it with the view's resolved schema and the view's flow fills
     * it, with no epoch of its own and, when the tables it reads are new
     * too, no describe of them and no count of their rows (the update's
     * flows wrote them). The result is what a recomputation into an
     * existing table gives: the same rows and types, the same reason. */
    fixture fx;
    const char *sql =
        "CREATE MATERIALIZED VIEW a AS SELECT id % 3 AS k, sum(amt) AS s, "
        "count(*) AS n FROM spark_catalog.default.src GROUP BY 1;\n"
        "CREATE MATERIALIZED VIEW b AS SELECT k, n FROM a;\n"
        "CREATE MATERIALIZED VIEW c AS SELECT x.k, sum(y.n) AS t, "
        "max(x.n) AS m FROM b x JOIN b y ON x.k = y.k GROUP BY x.k;\n"
        "CREATE MATERIALIZED VIEW d AS SELECT k, t FROM c;";
    CHECK_INT(setup(&fx,
                    "CREATE TABLE spark_catalog.\"default\".src AS SELECT "
                    "range AS id, CAST(range % 7 AS DECIMAL(10,2)) AS amt "
                    "FROM range(1000)",
                    sql),
              0);
    const char *facts =
        "SELECT table_name, column_name, data_type FROM duckdb_columns() "
        "WHERE table_name IN ('a', 'b', 'c') AND schema_name = 'default' "
        "ORDER BY table_name, column_index";
    const char *contents =
        "SELECT 'a', k, s, n, NULL FROM spark_catalog.\"default\".a UNION ALL "
        "SELECT 'b', k, NULL, n, NULL FROM spark_catalog.\"default\".b UNION "
        "ALL SELECT 'c', k, NULL, t, m FROM spark_catalog.\"default\".c "
        "ORDER BY ALL";
    char types1[2048], types2[2048], rows1[2048], rows2[2048], epochs[256];
    flow_seen first[16], second[16];
    memset(first, 0, sizeof(first));
    memset(second, 0, sizeof(second));
    size_t c = order_of(&fx, "spark_catalog.default.c");
    CHECK_INT(run_flows_seen(&fx, first), 0);
    rows_text(fx.st->conn, facts, types1, sizeof(types1));
    rows_text(fx.st->conn, contents, rows1, sizeof(rows1));
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT name, epoch FROM ");
    weir__buf_puts(&q, "spark_catalog._weir.tables");
    weir__buf_puts(&q, " ORDER BY name");
    rows_text(fx.st->conn, weir__buf_cstr(&q), epochs, sizeof(epochs));
    CHECK_STR(epochs, "spark_catalog.default.a,0\nspark_catalog.default.b,0\n"
                      "spark_catalog.default.c,0\nspark_catalog.default.d,0\n");
    /* Again: the tables exist, the views are recomputed into them. */
    CHECK_INT(run_flows_seen(&fx, second), 0);
    rows_text(fx.st->conn, facts, types2, sizeof(types2));
    rows_text(fx.st->conn, contents, rows2, sizeof(rows2));
    rows_text(fx.st->conn, weir__buf_cstr(&q), epochs, sizeof(epochs));
    CHECK_STR(epochs, "spark_catalog.default.a,1\nspark_catalog.default.b,1\n"
                      "spark_catalog.default.c,1\nspark_catalog.default.d,1\n");
    CHECK_STR(types1, types2);
    CHECK_STR(rows1, rows2);
    CHECK(strstr(types1, "a,s,DECIMAL(") != NULL);
    CHECK(strstr(rows1, "c,0,NULL,") != NULL);
    /* b holds 3 rows, read twice: a self-join is always recomputed. */
    CHECK_STR(first[c].reason, "it joins spark_catalog.default.b with itself "
                               "(a refresh from new rows reads each input's "
                               "new rows in its own term)");
    CHECK_STR(first[c].reason, second[c].reason);
    /* No second creation with its epoch, no describe of b, no count. */
    CHECK(first[c].statements + 3 <= second[c].statements);
    if (T_.failures)
        printf("  statements of c: %llu first, %llu second\n%s%s",
               (unsigned long long)first[c].statements,
               (unsigned long long)second[c].statements, types1, rows1);
    /* Views' tables dropped outside weir: recreated with a new epoch and
     * a new checkpoint generation, and recomputed (c's input is no new
     * table: c is replaced, another epoch, and so is d, which reads a
     * table the update created but replaced). */
    weir_error e;
    CHECK_INT(weir__conn_exec(fx.st->conn,
                              "DROP TABLE spark_catalog.\"default\".c; "
                              "DROP TABLE spark_catalog.\"default\".d",
                              NULL, &e),
              0);
    CHECK_INT(run_flows_seen(&fx, NULL), 0);
    rows_text(fx.st->conn, contents, rows2, sizeof(rows2));
    CHECK_STR(rows1, rows2);
    rows_text(fx.st->conn, weir__buf_cstr(&q), epochs, sizeof(epochs));
    CHECK_STR(epochs, "spark_catalog.default.a,2\nspark_catalog.default.b,2\n"
                      "spark_catalog.default.c,3\nspark_catalog.default.d,3\n");
    weir__buf_clear(&q);
    weir__buf_puts(&q, "SELECT target, batch_id FROM ");
    weir__buf_puts(&q, "spark_catalog._weir.checkpoints");
    weir__buf_puts(&q, " ORDER BY target");
    rows_text(fx.st->conn, weir__buf_cstr(&q), epochs, sizeof(epochs));
    CHECK_STR(epochs, "spark_catalog.default.c,-1\nspark_catalog.default.d,-1\n");
    weir__buf_free(&q);
    teardown(&fx);
}

/* How many of weir's macros connection c sees in `database`. */
static long macros_made(weir_conn *c, const char *database)
{
    weir_rows *rows = NULL;
    weir_error e;
    long n = -1;
    char q[300];
    snprintf(q, sizeof(q),
             "SELECT count(DISTINCT function_name) FROM duckdb_functions() "
             "WHERE database_name = '%s' AND function_name LIKE 'weir\\_%%' "
             "ESCAPE '\\'",
             database);
    if (weir__conn_query(c, q, &rows, &e) == 0)
        n = strtol(weir__rows_get(rows, 0, 0), NULL, 10);
    weir__rows_free(rows);
    return n;
}

/* A new folder under /tmp (dir, 64 bytes) and the storage root in it
 * (caller frees); drop_temp removes both. */
static char *temp_root(char *dir)
{
    snprintf(dir, 64, "/tmp/weir-test-engine-XXXXXX");
    return mkdtemp(dir) ? weir__path_join(dir, "storage") : NULL;
}

static void drop_temp(const char *dir, char *root)
{
    free(root);
    weir__fs_remove_tree(dir, NULL);
}

TEST(test_engine_dry__macros_on_first_use)
{
    /* The instances of dry runs and updates create weir's Spark macros as
     * statements call them, with the macros those use, on the calling
     * connection: a transaction open on it sees them, and after a
     * rollback they are made again. A query's instance has them all. */
    char dir[64];
    char *root = temp_root(dir);
    CHECK(root != NULL);
    weir_error e;
    for (int mode = 0; mode < 2; mode++) {
        weir_storage *st = NULL;
        CHECK_INT(weir__storage_open(&st, root,
                                     mode ? WEIR_STORAGE_RUN : WEIR_STORAGE_DRY,
                                     NULL, weir__state_schema(), &e),
                  0);
        if (!st)
            continue;
        weir_conn *other = NULL;
        CHECK_INT(weir__db_connect(&other, st->db, &e), 0);
        CHECK_INT(macros_made(st->conn, "memory"), 0);
        CHECK_INT(macros_made(st->conn, "temp"), 0);
        weir_db_column *cols = NULL;
        size_t n = 0;
        weir_arena a = WEIR_ARENA_INIT;
        /* weir_conv calls weir_conv_out, weir_conv_unsigned, ... */
        CHECK_INT(weir__conn_describe(other, "SELECT weir_conv('ff', 16, 10) "
                                             "AS v",
                                      &cols, &n, &a, &e),
                  0);
        long some = macros_made(other, "temp");
        CHECK(some > 1);
        CHECK_INT(macros_made(st->conn, "temp"), 0);
        weir_rows *rows = NULL;
        CHECK_INT(weir__conn_query(st->conn, "SELECT weir_conv('ff', 16, 10) AS v",
                                   &rows, &e),
                  0);
        CHECK_STR(rows ? weir__rows_get(rows, 0, 0) : NULL, "255");
        weir__rows_free(rows);
        CHECK_INT(macros_made(st->conn, "temp"), some);
        /* Inside a transaction that has read the catalog. */
        CHECK_INT(weir__conn_begin(other, &e), 0);
        CHECK_INT(macros_made(other, "temp"), some);
        /* Made in the transaction; after its rollback, made again. */
        for (int pass = 0; pass < 2; pass++) {
            CHECK_INT(weir__conn_exec(other, "SELECT weir_overlay('abc', 'X', "
                                             "2, 1)",
                                      NULL, &e),
                      0);
            CHECK(macros_made(other, "temp") > some);
            if (pass == 0) {
                weir__conn_rollback(other);
                CHECK_INT(macros_made(other, "temp"), some);
            }
        }
        weir__conn_close(other);
        weir__arena_free(&a);
        weir__storage_close(st);
    }
    weir_storage *q = NULL;
    CHECK_INT(weir__storage_open(&q, root, WEIR_STORAGE_QUERY, NULL,
                                 weir__state_schema(), &e), 0);
    CHECK(q && macros_made(q->conn, "memory") > 40);
    weir__storage_close(q);
    drop_temp(dir, root);
}

TEST(test_engine_store__table_columns)
{
    /* A table's columns by binding a query of it; a table, schema or
     * catalog that does not exist is absent, not an error. */
    weir_db *db = NULL;
    weir_conn *c = NULL;
    weir_error e;
    CHECK_INT(weir__db_open(&db, NULL, &e), 0);
    CHECK_INT(weir__db_connect(&c, db, &e), 0);
    CHECK_INT(weir__conn_exec(c, "CREATE TABLE t (id BIGINT, amount "
                                 "DECIMAL(12,2), tags VARCHAR[]); CREATE TABLE "
                                 "\"a\"\"b:c\" (x INTEGER)",
                              NULL, &e),
              0);
    weir_arena a = WEIR_ARENA_INIT;
    weir_db_column *cols = NULL;
    size_t n = 0;
    bool exists = false, view = true;
    CHECK_INT(weir__conn_table_columns(c, "memory", "main", "t", &exists,
                                       &view, &cols, &n, &a, &e),
              0);
    CHECK(exists);
    CHECK(!view);
    CHECK(weir__conn_is_table(c, "memory", "main", "t"));
    CHECK_INT((long)n, 3);
    if (n == 3) {
        CHECK_STR(cols[0].name, "id");
        CHECK_STR(cols[0].type, "BIGINT");
        CHECK_STR(cols[1].type, "DECIMAL(12,2)");
        CHECK_STR(cols[2].name, "tags");
    }
    /* A view resolves too (a dataset that was a view before). */
    CHECK_INT(weir__conn_exec(c, "CREATE VIEW v AS SELECT 1 AS one", NULL, &e),
              0);
    CHECK_INT(weir__conn_table_columns(c, "memory", "main", "v", &exists,
                                       NULL, &cols, &n, &a, &e),
              0);
    CHECK(exists);
    CHECK_INT((long)n, 1);
    /* Asked whether it is a view: yes, and not bound (a view whose
     * sources are gone does not bind). */
    CHECK_INT(weir__conn_exec(c, "CREATE TABLE gone (x INTEGER); CREATE VIEW "
                                 "stale AS SELECT * FROM gone; DROP TABLE gone",
                              NULL, &e),
              0);
    CHECK_INT(weir__conn_table_columns(c, "memory", "main", "stale", &exists,
                                       &view, &cols, &n, &a, &e),
              0);
    CHECK(exists);
    CHECK(view);
    CHECK_INT((long)n, 0);
    CHECK(!weir__conn_is_table(c, "memory", "main", "stale"));
    /* Names are DuckDB's, quoted here. */
    CHECK_INT(weir__conn_table_columns(c, "memory", "main", "a\"b:c", &exists,
                                       NULL, &cols, &n, &a, &e),
              0);
    CHECK(exists);
    CHECK_INT((long)n, 1);
    static const char *const absent[][3] = { { "memory", "main", "nope" },
                                             { "memory", "nope", "t" },
                                             { "nope", "main", "t" } };
    for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
        exists = true;
        CHECK_INT(weir__conn_table_columns(c, absent[i][0], absent[i][1],
                                           absent[i][2], &exists, &view, &cols,
                                           &n, &a, &e),
                  0);
        CHECK(!exists);
        CHECK(!view);
        CHECK(!weir__conn_is_table(c, absent[i][0], absent[i][1], absent[i][2]));
        CHECK_INT((long)n, 0);
    }
    weir__arena_free(&a);
    weir__conn_close(c);
    weir__db_close(db);
}

TEST(test_engine_store__schema_once)
{
    /* An open runs the schema scripts of weir.duckdb and of a catalog
     * only when the file lacks their tag (new, or made by another
     * version of weir), then tags it. */
    char dir[64];
    char *root = temp_root(dir);
    CHECK(root != NULL);
    weir_storage *st = NULL;
    weir_error e;
    int64_t n = -1;
    const char *count_sample =
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'cat' "
        "AND schema_name = '_weir' AND table_name = 'table_sample'";
    for (int round = 0; round < 3; round++) {
        CHECK_INT(weir__storage_open(&st, root, WEIR_STORAGE_RUN, NULL,
                                     weir__state_schema(), &e), 0);
        if (!st)
            break;
        CHECK_INT(weir__storage_use_catalog(st, "cat", "db", &e), 0);
        CHECK_INT(weir__conn_scalar_i64(st->conn, count_sample, &n, NULL, &e), 0);
        /* 0: created; 1: tagged, the dropped table stays dropped; 2: the
         * tag removed (an older weir's file), the table is back. */
        CHECK_INT((long)n, round == 1 ? 0 : 1);
        CHECK_INT(weir__conn_scalar_i64(st->conn,
                                        "SELECT count(*) FROM weir.main.meta "
                                        "WHERE key = 'schema'",
                                        &n, NULL, &e),
                  0);
        CHECK_INT((long)n, 1);
        const char *next = round == 0
                               ? "DROP TABLE cat._weir.table_sample"
                               : "DELETE FROM cat._weir.meta WHERE key = "
                                 "'schema'";
        CHECK_INT(weir__conn_exec(st->conn, next, NULL, &e), 0);
        weir__storage_close(st);
        st = NULL;
    }
    drop_temp(dir, root);
}

/* Storage in a temporary folder (see temp_root) with a table cat.db.t (i
 * INT), or NULL. */
static weir_storage *storage_with_table(char *root)
{
    weir_storage *st = NULL;
    weir_error e;
    CHECK_INT(weir__storage_open(&st, root, WEIR_STORAGE_RUN, NULL,
                                     weir__state_schema(), &e), 0);
    if (st && (weir__storage_use_catalog(st, "cat", "db", &e) ||
               weir__conn_exec(st->conn, "CREATE TABLE cat.db.t (i INT)", NULL,
                               &e))) {
        CHECK_STR(e.message, "");
        weir__storage_close(st);
        st = NULL;
    }
    return st;
}

/* Insert i into cat.db.t in a transaction of its own: the commit's rc. */
static int insert_commit(weir_storage *st, int i, weir_error *e)
{
    char sql[64];
    snprintf(sql, sizeof(sql), "INSERT INTO cat.db.t VALUES (%d)", i);
    CHECK_INT(weir__conn_begin(st->conn, e), 0);
    CHECK_INT(weir__conn_exec(st->conn, sql, NULL, e), 0);
    return weir__storage_commit(st, st->conn, e);
}

TEST(test_engine_store__commit_of_aborted_transaction)
{
    /* DuckDB commits nothing, and reports success, for a transaction an
     * earlier statement aborted; weir's commit fails instead, so a batch
     * whose error went unnoticed is never reported done. */
    char dir[64];
    char *root = temp_root(dir);
    CHECK(root != NULL);
    weir_storage *st = root ? storage_with_table(root) : NULL;
    weir_error e;
    int64_t n = -1;
    if (st) {
        CHECK_INT(weir__conn_begin(st->conn, &e), 0);
        CHECK_INT(weir__conn_exec(st->conn, "INSERT INTO cat.db.t VALUES (1)",
                                  NULL, &e),
                  0);
        /* A statement fails and its error is (wrongly) ignored. */
        CHECK(weir__conn_exec(st->conn, "SELECT error('boom')", NULL, &e) != 0);
        CHECK(weir__storage_commit(st, st->conn, &e) != 0);
        CHECK(strstr(e.message, "not committed") != NULL);
        CHECK(strstr(e.message, "boom") != NULL);
        /* Nothing was committed, the connection is usable, and storage is
         * not marked as failed: the next transaction commits. */
        CHECK_INT(insert_commit(st, 2, &e), 0);
        CHECK_INT(weir__conn_scalar_i64(st->conn, "SELECT sum(i) FROM cat.db.t",
                                        &n, NULL, &e),
                  0);
        CHECK_INT((long)n, 2);
        weir__storage_close(st);
    }
    drop_temp(dir, root);
}

TEST(test_engine_store__write_behind_holds_commits)
{
    /* A write behind (an update's RUNNING record) that fails: every commit
     * after it is refused with its cause, until the update it belongs to
     * forgets it; one that succeeds lets commits through. */
    char dir[64];
    char *root = temp_root(dir);
    CHECK(root != NULL);
    weir_storage *st = root ? storage_with_table(root) : NULL;
    weir_error e;
    int64_t n = -1;
    if (st) {
        CHECK_INT(weir__storage_write_behind(
                      st, "INSERT INTO weir.main.no_such_table VALUES (1)",
                      "the record", &e),
                  0);
        CHECK(weir__storage_write_wait(st, &e) != 0);
        CHECK(strstr(e.message, "the record in weir.duckdb could not be "
                                "written") != NULL);
        for (int i = 0; i < 2; i++) { /* each commit, not only the first */
            CHECK(insert_commit(st, 1, &e) != 0);
            CHECK(strstr(e.message, "not committed: the record") != NULL);
        }
        /* Forgotten: the next update's work (or a query) commits. */
        weir__storage_write_forget(st);
        CHECK_INT(insert_commit(st, 5, &e), 0);
        CHECK_INT(weir__storage_write_behind(
                      st, "INSERT INTO weir.main.meta VALUES ('k', 'v')",
                      "the record", &e),
                  0);
        CHECK_INT(insert_commit(st, 2, &e), 0);
        CHECK_INT(weir__conn_scalar_i64(
                      st->conn,
                      "SELECT (SELECT sum(i) FROM cat.db.t) * 10 + (SELECT "
                      "count(*) FROM weir.main.meta WHERE key = 'k')",
                      &n, NULL, &e),
                  0);
        CHECK_INT((long)n, 71);
        weir__storage_close(st);
    }
    drop_temp(dir, root);
}

typedef struct {
    weir_storage *st;
    atomic_int done; /* 1 ok, 2 failed */
} behind_wait;

static void *wait_behind(void *arg)
{
    behind_wait *w = arg;
    weir_error e;
    atomic_store(&w->done, weir__storage_write_wait(w->st, &e) ? 2 : 1);
    return NULL;
}

TEST(test_engine_store__write_behind_not_alone)
{
    /* The RUNNING record's commit does not take the metadata tables' gate:
     * a statement on a catalog's _weir tables that is running (a cursor
     * shares the gate until it is freed) does not hold it up, and flows'
     * checkpoint reads do not wait for its WAL. With the gate, the record
     * would wait for the cursor (bounded here: the cursor is freed after
     * 10 s either way). */
    char dir[64];
    char *root = temp_root(dir);
    CHECK(root != NULL);
    weir_storage *st = root ? storage_with_table(root) : NULL;
    weir_error e;
    weir_conn *c = NULL;
    weir_db_cursor *k = NULL;
    if (st) {
        CHECK_INT(weir__db_connect(&c, st->db, &e), 0);
        CHECK_INT(weir__conn_cursor(c, "SELECT * FROM cat._weir.meta", &k, &e), 0);
        CHECK_INT(weir__storage_write_behind(
                      st, "INSERT INTO weir.main.meta VALUES ('k', 'v')",
                      "the record", &e),
                  0);
        behind_wait w = { st, 0 };
        pthread_t th;
        CHECK_INT(pthread_create(&th, NULL, wait_behind, &w), 0);
        for (int i = 0; i < 1000 && !atomic_load(&w.done); i++)
            usleep(10000);
        CHECK_INT(atomic_load(&w.done), 1);
        weir__cursor_free(k);
        pthread_join(th, NULL);
        weir__conn_close(c);
        weir__storage_close(st);
    }
    drop_temp(dir, root);
}

/* A dataset's name in an error's hint, as `weir run --full-refresh`
 * takes it from a shell. */
TEST(test_engine_common__cli_name)
{
    weir_graph g;
    memset(&g, 0, sizeof(g));
    g.default_catalog = "spark_catalog";
    g.default_database = "default";
    static const char *const cases[][4] = {
        { "spark_catalog", "default", "x", "x" },
        { "spark_catalog", "s2", "t", "s2.t" },
        { "other", "default", "t", "other.default.t" },
        { "spark_catalog", "s2", "we.ird", "'s2.`we.ird`'" },
        { "spark_catalog", "default", "My X", "'`My X`'" },
        { "spark_catalog", "default", "a`b", "'`a``b`'" },
        { "spark_catalog", "default", "it's", "'`it'\\''s`'" },
        { "spark_catalog", "default", "1st", "'`1st`'" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        weir_gdataset d;
        memset(&d, 0, sizeof(d));
        d.catalog = cases[i][0];
        d.database = cases[i][1];
        d.name = cases[i][2];
        weir_buf b = WEIR_BUF_INIT;
        weir__cli_name(&b, &g, &d);
        CHECK_STR(weir__buf_cstr(&b), cases[i][3]);
        weir__buf_free(&b);
    }
}

TEST_MAIN(RUN(test_engine_mv__readers_never_see_partial);
          RUN(test_engine_mv__fills_new_table);
          RUN(test_engine_dry__macros_on_first_use);
          RUN(test_engine_expectations__one_statement);
          RUN(test_engine_store__table_columns);
          RUN(test_engine_store__schema_once);
          RUN(test_engine_store__commit_of_aborted_transaction);
          RUN(test_engine_store__write_behind_holds_commits);
          RUN(test_engine_store__write_behind_not_alone);
          RUN(test_engine_common__cli_name))
