/*
 * DuckDB instances, connections, statements and materialised results
 * (see db.h).
 */
#include "db.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <duckdb.h>

#include "sql/sql.h"
#include "store/db_conn.h"
#include "store/macros.h"
#include "store/scan.h"
#include "store/tally.h"
#include "util/str.h"
#include "weir.h"

/* weir's metadata tables (WEIR_META_SCHEMA of each catalog: flow state,
 * file lists, offsets, ...) are shared by every flow of an update. A
 * statement that names them shares the gate; a COMMIT has it alone, so
 * no scan of them runs while DuckDB writes a commit or takes back a
 * failed one: DuckDB 1.4 frees what a failed commit appended while
 * another connection's parallel scan of the table may still walk it (a
 * SEGV in ColumnData::CheckZonemap under ENOSPC on the WAL;
 * tests/unit/test_store_gate.c). Other statements
 * (a flow reading its sources, writing its own target) do not wait: no
 * other flow of the update scans what they write. A waiting owner goes
 * before new sharers, so commits are not starved. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned sharing;  /* statements running */
    unsigned waiting;  /* commits waiting to run alone */
    bool alone;        /* one is running */
} gate;

struct weir_db {
    duckdb_database handle;
    gate gate;
    weir_tallies *tallies; /* of __weir_tally (tally.c) */
    weir_macros *macros;   /* lazy_macros: those not created yet */
    char memory_limit[64]; /* as configured, or "" */
    weir_scans *scans;     /* owned by DuckDB (scan.h) */
    uint64_t budget_bytes; /* DuckDB's memory limit in effect, 0 = unknown */
    unsigned budget_threads; /* DuckDB's threads in effect, 0 = unknown */
};

/* A size as DuckDB prints its memory_limit ("953.6 MiB", "1.5 GB"), in
 * bytes; 0 when it is not one. */
static uint64_t parse_size(const char *s)
{
    static const struct {
        const char *unit;
        double bytes;
    } units[] = { { "bytes", 1.0 }, { "B", 1.0 }, { "KiB", 1024.0 },
                  { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
                  { "TiB", 1099511627776.0 }, { "PiB", 1125899906842624.0 },
                  { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
                  { "PB", 1e15 } };
    char *end;
    double v = s ? strtod(s, &end) : 0.0;
    if (!s || end == s || !(v > 0.0))
        return 0;
    while (*end == ' ')
        end++;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (!strcmp(end, units[i].unit)) {
            double b = v * units[i].bytes;
            return b < 1.8e19 ? (uint64_t)b : UINT64_MAX;
        }
    return 0;
}

/* The statement that reads back the memory limit and threads DuckDB runs
 * with (configured or its defaults), and its result into db's budget. */
#define BUDGET_SQL                                                             \
    "SELECT current_setting('memory_limit')::VARCHAR, "                      \
    "current_setting('threads')::VARCHAR"

static void take_budget(weir_db *db, duckdb_result *r)
{
    char *mem = duckdb_value_varchar(r, 0, 0);
    char *thr = duckdb_value_varchar(r, 1, 0);
    db->budget_bytes = parse_size(mem);
    long t = thr ? strtol(thr, NULL, 10) : 0;
    db->budget_threads = t > 0 && t < 1000000 ? (unsigned)t : 0;
    weir__scans_set_threads(db->scans, db->budget_threads);
    duckdb_free(mem);
    duckdb_free(thr);
}

static void read_budget(weir_db *db, duckdb_connection c)
{
    duckdb_result r;
    if (duckdb_query(c, BUDGET_SQL, &r) != DuckDBError)
        take_budget(db, &r);
    duckdb_destroy_result(&r);
}

/* weir's session setup made instance-wide: settings become SET GLOBAL and
 * the Spark-function macros are created once in the in-memory database's
 * main schema (memory.main), where every connection finds them. */
static int engine_error(weir_error *err, const char *what, const char *msg,
                        const char *memory_limit);

static int global_setup(weir_db *db, duckdb_connection c, bool lazy_macros,
                        weir_error *err)
{
    const char *memory_limit = db->memory_limit;
    weir_buf sql = WEIR_BUF_INIT;
    const char *p = weir__sql_session_setup();
    while (*p) {
        const char *end = strstr(p, ";\n");
        size_t len = end ? (size_t)(end - p) + 2 : strlen(p);
        if (strncmp(p, "SET ", 4) == 0) {
            weir__buf_puts(&sql, "SET GLOBAL ");
            weir__buf_put(&sql, p + 4, len - 4);
        } else if (strncmp(p, "CREATE OR REPLACE TEMP MACRO ", 29) == 0) {
            if (lazy_macros) {
                p += len;
                continue;
            }
            weir__buf_puts(&sql, "CREATE OR REPLACE MACRO memory.main.");
            weir__buf_put(&sql, p + 29, len - 29);
        } else {
            weir__buf_put(&sql, p, len);
        }
        p += len;
    }
    /* Its last statement reads the budget back (one query, not two). */
    weir__buf_puts(&sql, BUDGET_SQL);
    int rc = 0;
    duckdb_result r;
    if (sql.failed) {
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    } else if (duckdb_query(c, weir__buf_cstr(&sql), &r) == DuckDBError) {
        rc = engine_error(err, "session setup failed: ",
                          duckdb_result_error(&r),
                          memory_limit[0] ? memory_limit : NULL);
        duckdb_destroy_result(&r);
    } else {
        take_budget(db, &r);
        duckdb_destroy_result(&r);
    }
    weir__buf_free(&sql);
    return rc;
}

/* c's DuckDB handle, for one more statement, sql (with lazy macros, the
 * macros it calls are created on c first). */
static duckdb_connection counted(weir_conn *c, const char *sql)
{
    c->statements++;
    weir__macros_ensure(c->db->macros, c->handle, c->made, sql);
    return c->handle;
}

/* Enters the gate for sql when it names the metadata schema (quoted or
 * not, as weir and its query guard spell it); returns whether it did (the
 * flag gate_unshare takes). */
static bool gate_share(weir_db *db, const char *sql)
{
    if (!sql || (!strstr(sql, WEIR_META_SCHEMA ".") &&
                 !strstr(sql, "\"" WEIR_META_SCHEMA "\".")))
        return false;
    gate *g = &db->gate;
    pthread_mutex_lock(&g->mu);
    while (g->alone || g->waiting)
        pthread_cond_wait(&g->cv, &g->mu);
    g->sharing++;
    pthread_mutex_unlock(&g->mu);
    return true;
}

static void gate_unshare(weir_db *db, bool shared)
{
    if (!shared)
        return;
    gate *g = &db->gate;
    pthread_mutex_lock(&g->mu);
    if (--g->sharing == 0 && g->waiting)
        pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* duckdb_query() of sql on c, inside the gate when sql needs it. */
static duckdb_state query_shared(weir_conn *c, const char *sql,
                                 duckdb_result *r)
{
    bool shared = gate_share(c->db, sql);
    duckdb_state st = duckdb_query(counted(c, sql), sql, r);
    gate_unshare(c->db, shared);
    return st;
}

static void gate_own(weir_db *db)
{
    gate *g = &db->gate;
    pthread_mutex_lock(&g->mu);
    g->waiting++;
    while (g->alone || g->sharing)
        pthread_cond_wait(&g->cv, &g->mu);
    g->waiting--;
    g->alone = true;
    pthread_mutex_unlock(&g->mu);
}

static void gate_disown(weir_db *db)
{
    gate *g = &db->gate;
    pthread_mutex_lock(&g->mu);
    g->alone = false;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

void weir__conn_budget(const weir_conn *c, uint64_t *memory_limit,
                       unsigned *threads)
{
    *memory_limit = c->db->budget_bytes;
    *threads = c->db->budget_threads;
}

uint64_t weir__conn_statements(const weir_conn *c)
{
    return c->statements;
}

weir_scans *weir__conn_scans(weir_conn *c)
{
    return c->db->scans;
}

/* DuckDB's errors go through weir__db_error (db_error.c); memory_limit
 * names the configured limit in out-of-memory messages. */
static int engine_error(weir_error *err, const char *what, const char *msg,
                        const char *memory_limit)
{
    return weir__db_error(err, what, msg, memory_limit);
}

/* A query of c failed: the error of a scan's reader that failed it (with
 * its class), else DuckDB's. */
static int query_error(weir_conn *c, weir_error *err, const char *msg)
{
    int rc = weir__scans_take_error(c->db->scans, c, err)
                 ? err->code
                 : engine_error(err, "", msg, c->memory_limit);
    weir__str_copy(c->failed, sizeof(c->failed),
                   err && err->message[0] ? err->message : msg ? msg : "");
    return rc;
}

const char *weir__conn_last_failure(const weir_conn *c)
{
    return c->failed;
}

const char *weir__db_version(void)
{
    return duckdb_library_version();
}

static void db_free(weir_db *db)
{
    pthread_mutex_destroy(&db->gate.mu);
    pthread_cond_destroy(&db->gate.cv);
    free(db);
}

int weir__db_open(weir_db **out, const weir_db_config *cfg, weir_error *err)
{
    *out = NULL;
    weir_db *db = calloc(1, sizeof(*db));
    if (!db)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    pthread_mutex_init(&db->gate.mu, NULL);
    pthread_cond_init(&db->gate.cv, NULL);
    duckdb_config config;
    if (duckdb_create_config(&config) == DuckDBError) {
        db_free(db);
        return WEIR_ERR(err, WEIR_EENGINE, NULL, "cannot create DuckDB config");
    }
    char threads[32];
    if (cfg && cfg->threads) {
        snprintf(threads, sizeof(threads), "%u", cfg->threads);
        duckdb_set_config(config, "threads", threads);
    }
    if (cfg && cfg->memory_limit) {
        duckdb_set_config(config, "memory_limit", cfg->memory_limit);
        snprintf(db->memory_limit, sizeof(db->memory_limit), "%s",
                 cfg->memory_limit);
    }
    if (cfg && cfg->temp_dir)
        duckdb_set_config(config, "temp_directory", cfg->temp_dir);
    /* Extensions are bundled; never download anything. */
    duckdb_set_config(config, "autoinstall_known_extensions", "false");
    duckdb_set_config(config, "autoload_known_extensions", "true");
    char *open_err = NULL;
    if (duckdb_open_ext(NULL, &db->handle, config, &open_err) == DuckDBError) {
        int rc = engine_error(err, "cannot open DuckDB: ", open_err,
                              db->memory_limit[0] ? db->memory_limit : NULL);
        duckdb_free(open_err);
        duckdb_destroy_config(&config);
        db_free(db);
        return rc;
    }
    duckdb_destroy_config(&config);
    duckdb_connection c;
    bool connected = duckdb_connect(db->handle, &c) != DuckDBError;
    bool lazy = cfg && cfg->lazy_macros;
    int rc = connected ? global_setup(db, c, lazy, err)
                       : WEIR_ERR(err, WEIR_EENGINE, NULL,
                                  "cannot connect to DuckDB");
    if (!rc && lazy) {
        rc = weir__macros_new(&db->macros, weir__sql_session_setup());
        if (rc)
            rc = WEIR_ERR(err, rc, NULL, "cannot prepare weir's macros");
    }
    if (!rc && weir__tallies_new(&db->tallies))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc && weir__tallies_register(db->tallies, c))
        rc = WEIR_ERR(err, WEIR_EENGINE, NULL,
                      "cannot register weir's functions in DuckDB");
    if (!rc)
        rc = weir__scans_install(c, &db->scans, err);
    if (!rc)
        weir__scans_set_threads(db->scans, db->budget_threads);
    if (connected)
        duckdb_disconnect(&c);
    if (rc) {
        weir__macros_free(db->macros);
        duckdb_close(&db->handle);
        weir__tallies_free(db->tallies);
        db_free(db);
        return rc;
    }
    *out = db;
    return 0;
}

int weir__db_configure(weir_db *db, const weir_db_config *cfg,
                       weir_error *err)
{
    if (!cfg || (!cfg->threads && !cfg->memory_limit))
        return 0;
    weir_buf sql = WEIR_BUF_INIT;
    if (cfg->threads)
        weir__buf_printf(&sql, "SET GLOBAL threads = %u;", cfg->threads);
    if (cfg->memory_limit) {
        weir__buf_puts(&sql, "SET GLOBAL memory_limit = ");
        weir__buf_put_sql_string(&sql, cfg->memory_limit);
        weir__buf_puts(&sql, ";");
    }
    int rc = 0;
    duckdb_connection c;
    duckdb_result r;
    if (sql.failed) {
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    } else if (duckdb_connect(db->handle, &c) == DuckDBError) {
        rc = WEIR_ERR(err, WEIR_EENGINE, NULL, "cannot connect to DuckDB");
    } else {
        if (duckdb_query(c, weir__buf_cstr(&sql), &r) == DuckDBError)
            rc = engine_error(err, "cannot configure DuckDB: ",
                              duckdb_result_error(&r), cfg->memory_limit);
        duckdb_destroy_result(&r);
        if (!rc)
            read_budget(db, c);
        duckdb_disconnect(&c);
    }
    if (!rc && cfg->memory_limit)
        snprintf(db->memory_limit, sizeof(db->memory_limit), "%s",
                 cfg->memory_limit);
    weir__buf_free(&sql);
    return rc;
}

void weir__db_close(weir_db *db)
{
    if (!db)
        return;
    weir__macros_free(db->macros);
    duckdb_close(&db->handle);
    weir__tallies_free(db->tallies);
    db_free(db);
}

int weir__db_connect(weir_conn **out, weir_db *db, weir_error *err)
{
    *out = NULL;
    weir_conn *c = calloc(1, sizeof(*c));
    if (!c)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (duckdb_connect(db->handle, &c->handle) == DuckDBError) {
        free(c);
        return WEIR_ERR(err, WEIR_EENGINE, NULL, "cannot connect to DuckDB");
    }
    c->memory_limit = db->memory_limit[0] ? db->memory_limit : NULL;
    c->db = db;
    if (db->macros && !(c->made = weir__macros_made_new(db->macros))) {
        duckdb_disconnect(&c->handle);
        free(c);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    *out = c;
    return 0;
}

int weir__conn_tally_open(weir_tally **out, weir_conn *c, size_t n_flags,
                          weir_error *err)
{
    int rc = weir__tally_open(out, c->db->tallies, n_flags);
    if (rc == WEIR_ENOMEM)
        return WEIR_ERR(err, rc, NULL, "out of memory");
    if (rc)
        return WEIR_ERR(err, rc, NULL, "too many expectations (over 256)");
    return 0;
}

void weir__conn_close(weir_conn *c)
{
    if (!c)
        return;
    duckdb_disconnect(&c->handle);
    free(c->made);
    free(c);
}

/* A query that reads a scan (scan.h) runs a task at a time: its reader
 * waits on a DuckDB worker for what it fetches, and duckdb_query()'s
 * client thread would spin all that while for a task to take, a core
 * taken from the reader and the broker. Here the client thread sleeps a
 * little when no task is ready. A statement that does not prepare alone
 * (several statements) is left to duckdb_query(). Returns DuckDBError
 * with *r set as duckdb_query() does. */
static duckdb_state query_patient(duckdb_connection h, const char *sql,
                                  duckdb_result *r)
{
    duckdb_prepared_statement st = NULL;
    if (duckdb_prepare(h, sql, &st) == DuckDBError) {
        duckdb_destroy_prepare(&st);
        return duckdb_query(h, sql, r);
    }
    duckdb_pending_result pending = NULL;
    if (duckdb_pending_prepared(st, &pending) == DuckDBError) {
        duckdb_destroy_pending(&pending);
        duckdb_destroy_prepare(&st);
        return duckdb_query(h, sql, r);
    }
    for (bool done = false; !done;) {
        switch (duckdb_pending_execute_task(pending)) {
        case DUCKDB_PENDING_NO_TASKS_AVAILABLE: {
            struct timespec nap = { 0, 200000 };
            nanosleep(&nap, NULL);
            break;
        }
        case DUCKDB_PENDING_RESULT_NOT_READY:
            break;
        default: /* ready, or an error that execute_pending reports */
            done = true;
        }
    }
    duckdb_state state = duckdb_execute_pending(pending, r);
    duckdb_destroy_pending(&pending);
    duckdb_destroy_prepare(&st);
    return state;
}

static int conn_run(weir_conn *c, const char *sql, int64_t *rows_changed,
                    weir_error *err)
{
    duckdb_result r;
    duckdb_state state = weir__scans_live(c->db->scans, c)
                             ? query_patient(counted(c, sql), sql, &r)
                             : duckdb_query(counted(c, sql), sql, &r);
    if (state == DuckDBError) {
        int rc = query_error(c, err, duckdb_result_error(&r));
        duckdb_destroy_result(&r);
        return rc;
    }
    if (rows_changed)
        *rows_changed = (int64_t)duckdb_rows_changed(&r);
    duckdb_destroy_result(&r);
    return 0;
}

int weir__conn_exec(weir_conn *c, const char *sql, int64_t *rows_changed,
                    weir_error *err)
{
    bool shared = gate_share(c->db, sql);
    int rc = conn_run(c, sql, rows_changed, err);
    gate_unshare(c->db, shared);
    return rc;
}

int weir__conn_exec_alone(weir_conn *c, const char *sql, weir_error *err)
{
    gate_own(c->db);
    int rc = conn_run(c, sql, NULL, err);
    gate_disown(c->db);
    return rc;
}

int weir__conn_execf(weir_conn *c, weir_error *err, const char *fmt, ...)
{
    weir_buf b = WEIR_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    char small[1024];
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "bad format");
    if ((size_t)n >= sizeof(small)) {
        if (!weir__buf_reserve(&b, (size_t)n + 1))
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        va_start(ap, fmt);
        vsnprintf(b.ptr, (size_t)n + 1, fmt, ap);
        va_end(ap);
        b.len = (size_t)n;
    } else {
        weir__buf_put(&b, small, (size_t)n);
    }
    int rc = b.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_exec(c, weir__buf_cstr(&b), NULL, err);
    weir__buf_free(&b);
    return rc;
}

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
    char *wrapped = wrap_nested(counted(c, sql), sql, &types_arena,
                                &nested_types, &ready);
    duckdb_result r;
    duckdb_state qs;
    if (ready) {
        qs = duckdb_execute_prepared(ready, &r);
        duckdb_destroy_prepare(&ready);
    } else {
        const char *run = wrapped ? wrapped : sql;
        qs = duckdb_query(counted(c, run), run, &r);
    }
    free(wrapped);
    if (qs == DuckDBError) {
        weir__arena_free(&types_arena);
        int rc = query_error(c, err, duckdb_result_error(&r));
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
    bool shared = gate_share(c->db, sql);
    int rc = conn_query(c, sql, out, err);
    gate_unshare(c->db, shared);
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
    if (query_shared(c, sql, &r) == DuckDBError) {
        int rc = query_error(c, err, duckdb_result_error(&r));
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
    if (query_shared(c, sql, &r) == DuckDBError) {
        int rc = query_error(c, err, duckdb_result_error(&r));
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

int weir__conn_describe(weir_conn *c, const char *sql, weir_db_column **out,
                        size_t *n_out, weir_arena *arena, weir_error *err)
{
    *out = NULL;
    *n_out = 0;
    duckdb_prepared_statement st;
    int rc;
    if (duckdb_prepare(counted(c, sql), sql, &st) == DuckDBError)
        rc = engine_error(err, "", duckdb_prepare_error(st), c->memory_limit);
    else
        rc = prepared_columns(st, out, n_out, arena, err);
    duckdb_destroy_prepare(&st);
    return rc;
}

int weir__conn_table_columns(weir_conn *c, const char *table, bool *exists,
                             weir_db_column **out, size_t *n_out,
                             weir_arena *arena, weir_error *err)
{
    *exists = false;
    *out = NULL;
    *n_out = 0;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_printf(&q, "SELECT * FROM %s", table);
    if (q.failed) {
        weir__buf_free(&q);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    duckdb_prepared_statement st;
    int rc = 0;
    if (duckdb_prepare(counted(c, weir__buf_cstr(&q)), weir__buf_cstr(&q),
                       &st) == DuckDBError) {
        /* A name that does not resolve (no such table or schema: a
         * Catalog Error; no such catalog: a Binder Error): absent. */
        const char *msg = duckdb_prepare_error(st);
        bool absent = msg && (strncmp(msg, "Catalog Error: ", 15) == 0 ||
                              (strncmp(msg, "Binder Error: Catalog ", 22) == 0 &&
                               strstr(msg, "does not exist")));
        if (!absent)
            rc = engine_error(err, "", msg, c->memory_limit);
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

int weir__conn_begin(weir_conn *c, weir_error *err)
{
    return weir__conn_exec(c, "BEGIN TRANSACTION", NULL, err);
}

void weir__conn_rollback(weir_conn *c)
{
    duckdb_result r;
    duckdb_query(counted(c, "ROLLBACK"), "ROLLBACK", &r);
    duckdb_destroy_result(&r);
    weir__macros_forget(c->db->macros, c->made);
}

void weir__conn_interrupt(weir_conn *c)
{
    duckdb_interrupt(c->handle);
}

int64_t weir__conn_progress_rows(weir_conn *c)
{
    duckdb_query_progress_type p = duckdb_query_progress(c->handle);
    if (p.percentage < 0)
        return -1;
    return (int64_t)p.rows_processed;
}

/* ---- Arrow export ------------------------------------------------------- */

struct weir_arrow_stream {
    duckdb_result result;
    duckdb_arrow_options options;
    bool done;
    const char *memory_limit;
};

int weir__conn_arrow(weir_conn *c, const char *sql, weir_arrow_stream **out,
                     weir_error *err)
{
    *out = NULL;
    weir_arrow_stream *s = calloc(1, sizeof(*s));
    if (!s)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (query_shared(c, sql, &s->result) == DuckDBError) {
        int rc = query_error(c, err, duckdb_result_error(&s->result));
        duckdb_destroy_result(&s->result);
        free(s);
        return rc;
    }
    s->options = duckdb_result_get_arrow_options(&s->result);
    s->memory_limit = c->memory_limit;
    *out = s;
    return 0;
}

static int arrow_error(weir_error *err, duckdb_error_data e)
{
    int rc = engine_error(err, "Arrow export failed: ",
                          duckdb_error_data_message(e), NULL);
    duckdb_destroy_error_data(&e);
    return rc;
}

int weir__arrow_schema(weir_arrow_stream *s, struct ArrowSchema *out,
                       weir_error *err)
{
    idx_t n = duckdb_column_count(&s->result);
    duckdb_logical_type *types = calloc(n + 1, sizeof(*types));
    const char **names = calloc(n + 1, sizeof(*names));
    if (!types || !names) {
        free(types);
        free(names);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    for (idx_t i = 0; i < n; i++) {
        types[i] = duckdb_column_logical_type(&s->result, i);
        names[i] = duckdb_column_name(&s->result, i);
    }
    duckdb_error_data e = duckdb_to_arrow_schema(s->options, types, names, n,
                                                 out);
    for (idx_t i = 0; i < n; i++)
        duckdb_destroy_logical_type(&types[i]);
    free(types);
    free(names);
    if (e)
        return arrow_error(err, e);
    return 0;
}

int weir__arrow_next(weir_arrow_stream *s, struct ArrowArray *out,
                     weir_error *err)
{
    memset(out, 0, sizeof(*out));
    if (s->done)
        return 0;
    duckdb_data_chunk chunk = duckdb_fetch_chunk(s->result);
    if (!chunk) {
        s->done = true;
        return 0;
    }
    duckdb_error_data e = duckdb_data_chunk_to_arrow(s->options, chunk, out);
    duckdb_destroy_data_chunk(&chunk);
    if (e)
        return arrow_error(err, e);
    return 0;
}

void weir__arrow_free(weir_arrow_stream *s)
{
    if (!s)
        return;
    duckdb_destroy_arrow_options(&s->options);
    duckdb_destroy_result(&s->result);
    free(s);
}

/* ---- Streaming cursor --------------------------------------------------- */

struct weir_db_cursor {
    weir_db *db;
    bool shared; /* shares db's gate until freed */
    duckdb_prepared_statement stmt;
    duckdb_result result;
    bool have_result;
    duckdb_data_chunk chunk;
    size_t n_cols;
    duckdb_vector *vecs;
    uint64_t **valid;
    const char *memory_limit;
};

int weir__conn_cursor(weir_conn *c, const char *sql, weir_db_cursor **out,
                      weir_error *err)
{
    *out = NULL;
    weir_db_cursor *k = calloc(1, sizeof *k);
    if (!k)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    k->memory_limit = c->memory_limit;
    /* A streaming result runs its query as it is fetched. */
    k->db = c->db;
    k->shared = gate_share(c->db, sql);
    int rc = 0;
    if (duckdb_prepare(counted(c, sql), sql, &k->stmt) == DuckDBError) {
        rc = engine_error(err, "", duckdb_prepare_error(k->stmt), c->memory_limit);
    } else {
        if (duckdb_execute_prepared_streaming(k->stmt, &k->result) == DuckDBError)
            rc = query_error(c, err, duckdb_result_error(&k->result));
        k->have_result = true;
    }
    if (!rc) {
        k->n_cols = duckdb_column_count(&k->result);
        k->vecs = calloc(k->n_cols + 1, sizeof *k->vecs);
        k->valid = calloc(k->n_cols + 1, sizeof *k->valid);
        if (!k->vecs || !k->valid)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    if (rc) {
        weir__cursor_free(k);
        return rc;
    }
    *out = k;
    return 0;
}

int weir__cursor_next(weir_db_cursor *k, size_t *n_rows, weir_error *err)
{
    *n_rows = 0;
    if (k->chunk)
        duckdb_destroy_data_chunk(&k->chunk);
    k->chunk = NULL;
    for (;;) {
        k->chunk = duckdb_fetch_chunk(k->result);
        if (!k->chunk) {
            const char *e = duckdb_result_error(&k->result);
            return e ? engine_error(err, "", e, k->memory_limit) : 0;
        }
        idx_t n = duckdb_data_chunk_get_size(k->chunk);
        if (n) {
            for (size_t i = 0; i < k->n_cols; i++) {
                k->vecs[i] = duckdb_data_chunk_get_vector(k->chunk, i);
                k->valid[i] = duckdb_vector_get_validity(k->vecs[i]);
            }
            *n_rows = n;
            return 0;
        }
        duckdb_destroy_data_chunk(&k->chunk);
    }
}

static bool cursor_null(const weir_db_cursor *k, size_t col, size_t row)
{
    return k->valid[col] && !duckdb_validity_row_is_valid(k->valid[col], row);
}

bool weir__cursor_bytes(const weir_db_cursor *k, size_t col, size_t row,
                        const void **p, size_t *len)
{
    if (cursor_null(k, col, row)) {
        *p = NULL;
        *len = 0;
        return false;
    }
    duckdb_string_t *s = (duckdb_string_t *)duckdb_vector_get_data(k->vecs[col]) + row;
    *len = duckdb_string_t_length(*s);
    *p = duckdb_string_is_inlined(*s) ? (const void *)s->value.inlined.inlined
                                      : (const void *)s->value.pointer.ptr;
    return true;
}

bool weir__cursor_i32(const weir_db_cursor *k, size_t col, size_t row,
                      int32_t *out)
{
    if (cursor_null(k, col, row))
        return false;
    *out = ((const int32_t *)duckdb_vector_get_data(k->vecs[col]))[row];
    return true;
}

bool weir__cursor_i64(const weir_db_cursor *k, size_t col, size_t row,
                      int64_t *out)
{
    if (cursor_null(k, col, row))
        return false;
    *out = ((const int64_t *)duckdb_vector_get_data(k->vecs[col]))[row];
    return true;
}

void weir__cursor_free(weir_db_cursor *k)
{
    if (!k)
        return;
    if (k->chunk)
        duckdb_destroy_data_chunk(&k->chunk);
    if (k->have_result)
        duckdb_destroy_result(&k->result);
    duckdb_destroy_prepare(&k->stmt);
    gate_unshare(k->db, k->shared);
    free(k->vecs);
    free(k->valid);
    free(k);
}
