/*
 * Scans (store/scan.h): relations a query reads while weir produces them.
 * A counting reader stands in for the Kafka source's.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <time.h>

#include "store/db.h"
#include "store/scan.h"
#include "util/buf.h"

static const weir_db_column COLS[] = {
    { "n", "BIGINT" }, { "s", "VARCHAR" }, { "b", "BLOB" }, { "i", "INTEGER" },
    { "t", "TIMESTAMP" },
};

/* Rows 0..rows-1; fails at row fail_at (when >= 0); chunks of at most
 * step rows (an empty chunk first, to be asked again). With lanes > 1, lane
 * l has the rows n with n % lanes == l, in order; lanes_seen counts the
 * lanes that DuckDB filled at once. */
typedef struct counter {
    int64_t rows, fail_at, step;
    int opened, closed;
    size_t lanes;
    int filling, most_filling;
} counter;

enum { MAX_LANES = 8 };

typedef struct count_reader {
    counter *c;
    size_t lanes;
    int64_t next[MAX_LANES];
    bool gave_empty[MAX_LANES];
} count_reader;

static int c_open(void *payload, size_t max_lanes, void **out, size_t *lanes,
                  weir_error *err)
{
    (void)err;
    counter *c = payload;
    count_reader *r = calloc(1, sizeof(*r));
    r->c = c;
    r->lanes = c->lanes < 1 ? 1 : c->lanes < max_lanes ? c->lanes : max_lanes;
    for (size_t l = 0; l < r->lanes; l++)
        r->next[l] = (int64_t)l;
    c->opened++;
    *out = r;
    *lanes = r->lanes;
    return 0;
}

static int c_fill(void *reader, size_t lane, weir_scan_chunk *ch, bool *done,
                  weir_error *err)
{
    count_reader *r = reader;
    if (!r->gave_empty[lane]) {
        r->gave_empty[lane] = true;
        return 0;
    }
    int filling = __atomic_add_fetch(&r->c->filling, 1, __ATOMIC_SEQ_CST);
    int most = __atomic_load_n(&r->c->most_filling, __ATOMIC_SEQ_CST);
    while (filling > most &&
           !__atomic_compare_exchange_n(&r->c->most_filling, &most, filling,
                                        false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
        ;
    int64_t *next = &r->next[lane];
    int64_t step = (int64_t)r->lanes;
    int rc = 0;
    for (int64_t k = 0; !rc && k < r->c->step && weir__scan_room(ch) > 0 &&
                        *next < r->c->rows;
         k++, *next += step) {
        if (*next == r->c->fail_at) {
            rc = WEIR_ERR(err, WEIR_EIO, "KAFKA_BROKER_UNREACHABLE",
                          "no broker answered at row %lld", (long long)*next);
            break;
        }
        char s[32];
        int len = snprintf(s, sizeof(s), "row number %lld", (long long)*next);
        weir__scan_col_i64(ch, 0, *next);
        weir__scan_col_bytes(ch, 1, s, (size_t)len);
        if (*next % 2)
            weir__scan_col_null(ch, 2);
        else
            weir__scan_col_bytes(ch, 2, "\x00\x01", 2);
        weir__scan_col_i32(ch, 3, (int32_t)(*next % 7));
        weir__scan_col_i64(ch, 4, 1000000 * *next);
        weir__scan_end_row(ch);
    }
    /* A little time in the fill, as a reader waiting for the network:
     * lanes filled at once overlap here. */
    struct timespec ts = { 0, 200000 };
    nanosleep(&ts, NULL);
    __atomic_sub_fetch(&r->c->filling, 1, __ATOMIC_SEQ_CST);
    *done = *next >= r->c->rows;
    return rc;
}

static void c_close(void *reader)
{
    count_reader *r = reader;
    r->c->closed++;
    free(r);
}

static const weir_scan_ops OPS = { c_open, c_fill, c_close };

typedef struct fixture {
    weir_db *db;
    weir_conn *conn;
    int64_t id; /* a scan of the counter */
} fixture;

static void fx_open(fixture *fx, counter *c)
{
    weir_error e;
    CHECK_INT(weir__db_open(&fx->db, NULL, &e), 0);
    CHECK_INT(weir__db_connect(&fx->conn, fx->db, &e), 0);
    CHECK_INT(weir__scan_add(fx->conn, COLS, 5, &OPS, c, false, &fx->id, &e), 0);
}

static void fx_close(fixture *fx)
{
    weir__scan_remove(fx->conn, fx->id);
    weir__conn_close(fx->conn);
    weir__db_close(fx->db);
}

/* The query's single value as text, or its error message (malloc'd). */
static char *scalar(weir_conn *conn, const char *sql)
{
    char *out = NULL;
    weir_error e;
    if (weir__conn_scalar_text(conn, sql, &out, &e))
        return strdup(e.message);
    return out;
}

static char sql_[512];
#define SCALAR(conn, ...) \
    (snprintf(sql_, sizeof(sql_), __VA_ARGS__), scalar(conn, sql_))

TEST(scan_rows_chunks_and_types)
{
    counter c = { 5000, -1, 700, 0, 0, 1, 0, 0 };
    fixture fx;
    fx_open(&fx, &c);
    int64_t id = fx.id;
    char *v = SCALAR(fx.conn, "SELECT count(*) || ' ' || sum(n) || ' ' || count(b) || ' ' "
                     "|| max(s) || ' ' || sum(i) || ' ' || max(t) FROM "
                     "__weir_scan(%lld)", (long long)id);
    CHECK_STR(v, "5000 12497500 2500 row number 999 14995 1970-01-01 01:23:19");
    free(v);
    CHECK_INT(c.opened, 1);
    CHECK_INT(c.closed, 1);
    /* A column the query does not read is not asked for. */
    v = SCALAR(fx.conn, "SELECT typeof(b) || octet_length(b) FROM "
                        "__weir_scan(%lld) WHERE n = 0", (long long)id);
    CHECK_STR(v, "BLOB2");
    free(v);
    /* Two reads in one query (a self-join): a reader each. */
    c.opened = c.closed = 0;
    v = SCALAR(fx.conn, "SELECT count(*) FROM __weir_scan(%lld) AS a JOIN "
                        "__weir_scan(%lld) AS b USING (n)", (long long)id,
               (long long)id);
    CHECK_STR(v, "5000");
    free(v);
    CHECK_INT(c.opened, 2);
    CHECK_INT(c.closed, 2);
    /* Stopped early (LIMIT): the reader is closed all the same. */
    c.opened = c.closed = 0;
    v = SCALAR(fx.conn, "SELECT count(*) FROM (SELECT * FROM __weir_scan(%lld) "
                        "LIMIT 3)", (long long)id);
    CHECK_STR(v, "3");
    free(v);
    CHECK_INT(c.closed, c.opened);
    fx_close(&fx);
}

TEST(scan_into_a_table_in_a_transaction)
{
    counter c = { 3000, -1, 3000, 0, 0, 1, 0, 0 };
    fixture fx;
    fx_open(&fx, &c);
    int64_t id = fx.id;
    weir_error e;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "BEGIN; CREATE TABLE t AS SELECT n, s FROM ");
    weir__scan_sql(&q, id);
    weir__buf_puts(&q, "; ROLLBACK; BEGIN; CREATE TABLE t AS SELECT * FROM ");
    weir__scan_sql(&q, id);
    weir__buf_puts(&q, "; COMMIT");
    CHECK_INT(weir__conn_exec(fx.conn, weir__buf_cstr(&q), NULL, &e), 0);
    weir__buf_free(&q);
    /* One statement: run a task at a time (the client thread waits
     * without spinning while the reader works). */
    weir__scan_sql(&q, id);
    char sql[128];
    snprintf(sql, sizeof(sql), "INSERT INTO t SELECT * FROM %s",
             weir__buf_cstr(&q));
    weir__buf_free(&q);
    int64_t changed = 0;
    CHECK_INT(weir__conn_exec(fx.conn, sql, &changed, &e), 0);
    CHECK_INT(changed, 3000);
    char *v = SCALAR(fx.conn, "SELECT count(*) + 0 * %lld FROM t", (long long)id);
    CHECK_STR(v, "6000");
    free(v);
    fx_close(&fx);
}

TEST(scan_reader_error_keeps_its_class)
{
    counter c = { 5000, 4321, 5000, 0, 0, 1, 0, 0 };
    fixture fx;
    fx_open(&fx, &c);
    int64_t id = fx.id;
    weir_error e;
    char sql[128];
    snprintf(sql, sizeof(sql), "CREATE TABLE t AS SELECT * FROM __weir_scan(%lld)",
             (long long)id);
    memset(&e, 0, sizeof(e));
    CHECK(weir__conn_exec(fx.conn, sql, NULL, &e) != 0);
    CHECK_STR(e.error_class, "KAFKA_BROKER_UNREACHABLE");
    CHECK_CONTAINS(e.message, "no broker answered at row 4321");
    CHECK_INT(c.closed, c.opened);
    /* Taken once: a later failure of another kind is DuckDB's own. */
    memset(&e, 0, sizeof(e));
    CHECK(weir__conn_exec(fx.conn, "SELECT * FROM no_such_table", NULL, &e) != 0);
    CHECK(strcmp(e.error_class, "KAFKA_BROKER_UNREACHABLE") != 0);
    fx_close(&fx);
}

TEST(scan_unknown_or_removed_is_an_error)
{
    counter c = { 10, -1, 10, 0, 0, 1, 0, 0 };
    fixture fx;
    fx_open(&fx, &c);
    int64_t id = fx.id;
    weir_error e;
    weir__scan_remove(fx.conn, id);
    char *v = SCALAR(fx.conn, "SELECT count(*) FROM __weir_scan(%lld)", (long long)id);
    CHECK_CONTAINS(v, "no such scan");
    free(v);
    v = SCALAR(fx.conn, "SELECT count(*) FROM __weir_scan(%lld + 12345)", (long long)id);
    CHECK_CONTAINS(v, "no such scan");
    free(v);
    CHECK_INT(c.opened, 0);
    /* Types a scan cannot have. */
    static const weir_db_column bad[] = { { "x", "DOUBLE" } };
    CHECK(weir__scan_add(fx.conn, bad, 1, &OPS, &c, false, &id, &e) != 0);
    fx_close(&fx);
}

/* A reader in lanes: DuckDB's threads fill them at once, every row is read
 * once, and each lane's rows keep their order into the table, whatever
 * the interleaving across lanes (the connection does not preserve it
 * while the scan is live, and does again once it is removed). */
TEST(scan_lanes_fill_at_once_each_in_order)
{
    weir_error e;
    weir_db *db = NULL;
    weir_conn *conn = NULL;
    weir_db_config cfg = { 4, NULL, NULL, false, NULL, 0 };
    CHECK_INT(weir__db_open(&db, &cfg, &e), 0);
    CHECK_INT(weir__db_connect(&conn, db, &e), 0);
    counter c = { 200000, -1, 2048, 0, 0, 4, 0, 0 };
    int64_t id = 0;
    /* Not in lanes: one, and the connection's order is kept. */
    CHECK_INT(weir__scan_add(conn, COLS, 5, &OPS, &c, false, &id, &e), 0);
    char *one = scalar(conn, "SELECT current_setting('preserve_insertion_order')");
    CHECK_STR(one, "true");
    free(one);
    char q1[160];
    snprintf(q1, sizeof(q1), "SELECT count(*) FROM __weir_scan(%lld)", (long long)id);
    one = scalar(conn, q1);
    CHECK_STR(one, "200000");
    free(one);
    CHECK_INT(c.most_filling, 1);
    weir__scan_remove(conn, id);
    c.opened = c.closed = 0;
    CHECK_INT(weir__scan_add(conn, COLS, 5, &OPS, &c, true, &id, &e), 0);
    char *v = scalar(conn, "SELECT current_setting('preserve_insertion_order')");
    CHECK_STR(v, "false");
    free(v);
    char sql[160];
    snprintf(sql, sizeof(sql), "CREATE TABLE t AS SELECT n, i FROM "
                               "__weir_scan(%lld)", (long long)id);
    CHECK_INT(weir__conn_exec(conn, sql, NULL, &e), 0);
    CHECK_INT(c.opened, 1);
    CHECK_INT(c.closed, 1);
    CHECK(c.most_filling > 1);
    v = scalar(conn, "SELECT count(*) || ' ' || count(DISTINCT n) || ' ' || "
                     "sum(n) FROM t");
    CHECK_STR(v, "200000 200000 19999900000");
    free(v);
    /* In table order, each lane's rows ascend. */
    v = scalar(conn, "SELECT count(*) FROM (SELECT n, lag(n) OVER (PARTITION "
                     "BY n % 4 ORDER BY rowid) AS prev FROM t) WHERE n < prev");
    CHECK_STR(v, "0");
    free(v);
    weir__scan_remove(conn, id);
    v = scalar(conn, "SELECT current_setting('preserve_insertion_order')");
    CHECK_STR(v, "true");
    free(v);
    weir__conn_close(conn);
    weir__db_close(db);
}

/* The memory limit and threads DuckDB runs with are read back (the file
 * readers size their longest record from them), on open and configure. */
static void db_budget_read_back(void)
{
    weir_error e;
    weir_db *db = NULL;
    weir_conn *c = NULL;
    weir_db_config cfg = { 3, "1GB", NULL, false, NULL, 0 };
    CHECK_INT(weir__db_open(&db, &cfg, &e), 0);
    CHECK_INT(weir__db_connect(&c, db, &e), 0);
    uint64_t mem = 0;
    unsigned threads = 0;
    weir__conn_budget(c, &mem, &threads);
    /* DuckDB says "953.6 MiB" for 1 GB */
    CHECK(mem > 999000000ull && mem < 1000100000ull);
    CHECK_INT(threads, 3);
    weir_db_config more = { 1, "4GiB", NULL, false, NULL, 0 };
    CHECK_INT(weir__db_configure(db, &more, &e), 0);
    weir__conn_budget(c, &mem, &threads);
    CHECK(mem == 4ull << 30);
    CHECK_INT(threads, 1);
    weir__conn_close(c);
    weir__db_close(db);
    /* DuckDB's defaults: some memory, some threads */
    CHECK_INT(weir__db_open(&db, NULL, &e), 0);
    CHECK_INT(weir__db_connect(&c, db, &e), 0);
    weir__conn_budget(c, &mem, &threads);
    CHECK(mem > 0 && threads > 0);
    weir__conn_close(c);
    weir__db_close(db);
}

TEST_MAIN(RUN(scan_rows_chunks_and_types); RUN(db_budget_read_back); RUN(scan_into_a_table_in_a_transaction);
          RUN(scan_reader_error_keeps_its_class);
          RUN(scan_unknown_or_removed_is_an_error);
          RUN(scan_lanes_fill_at_once_each_in_order))
