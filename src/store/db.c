/*
 * DuckDB instances (their settings, memory and thread budget and the
 * gate of the metadata tables), connections, statements and transactions
 * (see db.h). Results are read in db_result.c and db_stream.c.
 */
#include "db.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <duckdb.h>

#include "sql/sql.h"
#include "store/credentials.h"
#include "store/db_conn.h"
#include "store/extensions.h"
#include "store/macros.h"
#include "store/scan.h"
#include "store/spark_hash.h"
#include "store/spark_text.h"
#include "store/spark_type.h"
#include "store/tally.h"
#include "store/wal_guard.h"
#include "util/kv.h"
#include "util/str.h"
#include "util/url.h"
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
    weir_extensions *extensions; /* those loaded (extensions.h) */
    pthread_mutex_t s3_mu;
    weir_s3_conf *s3;      /* the configuration's S3 settings, or NULL */
    bool s3_ready;         /* their secrets exist in DuckDB */
    bool http_ready;       /* httpfs's retries and timeout are set */
    pthread_mutex_t attach_mu; /* weir__db_attach_once */
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
        rc = weir__db_error(err, "session setup failed: ",
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

/* The S3 secrets of db's configuration (credentials.h), created once
 * httpfs is loaded; a failure names no secret. */
static int s3_secrets(weir_db *db, weir_error *err)
{
    pthread_mutex_lock(&db->s3_mu);
    int rc = 0;
    if (db->s3_ready)
        goto out;
    if (weir__credentials_chain(db->s3) &&
        (rc = weir__db_extension(db, "aws", "AWS's credential chain", err)))
        goto out;
    weir_buf sql = WEIR_BUF_INIT;
    weir__credentials_sql(db->s3, &sql);
    duckdb_connection c;
    duckdb_result r;
    if (duckdb_connect(db->handle, &c) == DuckDBError) {
        rc = WEIR_ERR(err, WEIR_EENGINE, NULL, "cannot connect to DuckDB");
    } else {
        if (duckdb_query(c, weir__buf_cstr(&sql), &r) == DuckDBError) {
            weir_buf m = WEIR_BUF_INIT;
            weir__credentials_mask(db->s3, duckdb_result_error(&r), &m);
            rc = WEIR_ERR(err, WEIR_EINVAL, "OBJECT_STORE_SETTINGS_INVALID",
                          "the S3 settings (spark.hadoop.fs.s3a.*, AWS_*) "
                          "were refused: %s",
                          weir__buf_cstr(&m));
            weir__buf_free(&m);
        } else {
            db->s3_ready = true;
        }
        duckdb_destroy_result(&r);
        duckdb_disconnect(&c);
    }
    weir__buf_free(&sql);
out:
    pthread_mutex_unlock(&db->s3_mu);
    return rc;
}

/* httpfs's retries and timeout from db's configuration (credentials.h),
 * set once httpfs is loaded. */
static int http_settings(weir_db *db, weir_error *err)
{
    pthread_mutex_lock(&db->s3_mu);
    int rc = 0;
    if (!db->http_ready) {
        weir_buf sql = WEIR_BUF_INIT;
        weir__credentials_http_sql(db->s3, &sql);
        duckdb_connection c;
        duckdb_result r;
        if (duckdb_connect(db->handle, &c) == DuckDBError) {
            rc = WEIR_ERR(err, WEIR_EENGINE, NULL, "cannot connect to DuckDB");
        } else {
            if (duckdb_query(c, weir__buf_cstr(&sql), &r) == DuckDBError)
                rc = WEIR_ERR(err, WEIR_EINVAL, "OBJECT_STORE_SETTINGS_INVALID",
                              "httpfs's retries and timeout (fs.s3a.retry.*, "
                              "fs.s3a.connection.timeout) were refused: %s",
                              duckdb_result_error(&r));
            else
                db->http_ready = true;
            duckdb_destroy_result(&r);
            duckdb_disconnect(&c);
        }
        weir__buf_free(&sql);
    }
    pthread_mutex_unlock(&db->s3_mu);
    return rc;
}

/* The extensions the object-store URLs in text need, loaded into db
 * (httpfs for S3, GCS and HTTP, azure for Azure), and the S3 secrets. */
int weir__db_extensions_for(weir_db *db, const char *text, weir_error *err)
{
    weir_url_kind k;
    for (const char *u = weir__url_find(text, &k); u;
         u = weir__url_find(strstr(u, "://") + 3, &k)) {
        char what[64];
        snprintf(what, sizeof(what), "%s URLs", weir__url_kind_name(k));
        int rc = weir__db_extension(db, k == WEIR_URL_AZURE ? "azure" : "httpfs",
                                    what, err);
        if (!rc && k != WEIR_URL_AZURE)
            rc = http_settings(db, err);
        if (!rc && k == WEIR_URL_S3)
            rc = s3_secrets(db, err);
        if (rc)
            return rc;
    }
    return 0;
}

int weir__db_extension(weir_db *db, const char *name, const char *what,
                       weir_error *err)
{
    return weir__extensions_load(db->extensions, db->handle, name, what, err);
}

int weir__db_attach_once(weir_db *db, const char *alias, const char *sql,
                         char *msg, size_t size)
{
    pthread_mutex_lock(&db->attach_mu);
    int rc = 0;
    duckdb_connection c;
    duckdb_result r;
    msg[0] = 0;
    if (duckdb_connect(db->handle, &c) == DuckDBError) {
        snprintf(msg, size, "cannot connect to DuckDB");
        pthread_mutex_unlock(&db->attach_mu);
        return WEIR_EENGINE;
    }
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT count(*) FROM duckdb_databases() WHERE database_name = ");
    weir__buf_put_sql_string(&q, alias);
    bool there = false;
    if (duckdb_query(c, weir__buf_cstr(&q), &r) != DuckDBError)
        there = duckdb_value_int64(&r, 0, 0) > 0;
    duckdb_destroy_result(&r);
    weir__buf_free(&q);
    if (!there) {
        if (duckdb_query(c, sql, &r) == DuckDBError) {
            snprintf(msg, size, "%s", duckdb_result_error(&r));
            rc = WEIR_EIO;
        }
        duckdb_destroy_result(&r);
    }
    duckdb_disconnect(&c);
    pthread_mutex_unlock(&db->attach_mu);
    return rc;
}

weir_db *weir__conn_db(weir_conn *c)
{
    return c->db;
}

duckdb_connection weir__conn_counted(weir_conn *c, const char *sql)
{
    c->statements++;
    /* A failure is kept for the statement's error (weir__conn_query_error):
     * DuckDB fails it without the extension. */
    c->extension_failed =
        sql && strstr(sql, "://") &&
        weir__db_extensions_for(c->db, sql, &c->extension_error) != 0;
    weir__macros_ensure(c->db->macros, c->handle, c->made, sql);
    return c->handle;
}

bool weir__db_gate_share(weir_db *db, const char *sql)
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

void weir__db_gate_unshare(weir_db *db, bool shared)
{
    if (!shared)
        return;
    gate *g = &db->gate;
    pthread_mutex_lock(&g->mu);
    if (--g->sharing == 0 && g->waiting)
        pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

duckdb_state weir__conn_query_shared(weir_conn *c, const char *sql,
                                     duckdb_result *r)
{
    bool shared = weir__db_gate_share(c->db, sql);
    duckdb_state st = duckdb_query(weir__conn_counted(c, sql), sql, r);
    weir__db_gate_unshare(c->db, shared);
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

int weir__conn_prepare_error(weir_conn *c, weir_error *err, const char *msg)
{
    if (!c->extension_failed)
        return weir__db_error(err, "", msg, c->memory_limit);
    if (err)
        *err = c->extension_error;
    return c->extension_error.code;
}

int weir__conn_query_error(weir_conn *c, weir_error *err, const char *msg)
{
    int rc = c->extension_failed
                 ? weir__conn_prepare_error(c, err, msg)
                 : weir__scans_take_error(c->db->scans, c, err)
                 ? err->code
                 : weir__db_error(err, "", msg, c->memory_limit);
    weir__str_copy(c->failed, sizeof(c->failed),
                   err && err->message[0] ? err->message : msg ? msg : "");
    return rc;
}

const char *weir__conn_last_failure(const weir_conn *c)
{
    return c->failed;
}

static void db_free(weir_db *db)
{
    weir__extensions_free(db->extensions);
    weir__credentials_free(db->s3);
    pthread_mutex_destroy(&db->s3_mu);
    pthread_mutex_destroy(&db->attach_mu);
    pthread_mutex_destroy(&db->gate.mu);
    pthread_cond_destroy(&db->gate.cv);
    free(db);
}

/* The instance's threads and memory limit: the pipeline configuration's
 * weir.duckdb.threads and weir.duckdb.memory_limit (the spec's or --conf's,
 * checked when they were given) over cfg's own, for every command that
 * opens the storage (a run, a query, a served query). */
static void db_resources(const weir_db_config *cfg, unsigned *threads,
                         const char **memory_limit)
{
    *threads = cfg ? cfg->threads : 0;
    *memory_limit = cfg ? cfg->memory_limit : NULL;
    if (!cfg)
        return;
    const char *t = weir__kv_get(cfg->conf, cfg->n_conf, "weir.duckdb.threads");
    const char *m = weir__kv_get(cfg->conf, cfg->n_conf,
                                 "weir.duckdb.memory_limit");
    if (t && *t)
        *threads = (unsigned)strtoul(t, NULL, 10);
    if (m && *m)
        *memory_limit = m;
}

int weir__db_open(weir_db **out, const weir_db_config *cfg, weir_error *err)
{
    *out = NULL;
    weir__wal_guard_install();
    weir_db *db = calloc(1, sizeof(*db));
    if (!db)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    pthread_mutex_init(&db->gate.mu, NULL);
    pthread_cond_init(&db->gate.cv, NULL);
    pthread_mutex_init(&db->s3_mu, NULL);
    pthread_mutex_init(&db->attach_mu, NULL);
    if (!(db->s3 = weir__credentials_s3(cfg ? cfg->conf : NULL,
                                        cfg ? cfg->n_conf : 0))) {
        db_free(db);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    duckdb_config config;
    if (duckdb_create_config(&config) == DuckDBError) {
        db_free(db);
        return WEIR_ERR(err, WEIR_EENGINE, NULL, "cannot create DuckDB config");
    }
    unsigned n_threads = 0;
    const char *memory_limit = NULL;
    db_resources(cfg, &n_threads, &memory_limit);
    char threads[32];
    if (n_threads) {
        snprintf(threads, sizeof(threads), "%u", n_threads);
        duckdb_set_config(config, "threads", threads);
    }
    if (memory_limit) {
        duckdb_set_config(config, "memory_limit", memory_limit);
        snprintf(db->memory_limit, sizeof(db->memory_limit), "%s",
                 memory_limit);
    }
    if (cfg && cfg->temp_dir)
        duckdb_set_config(config, "temp_directory", cfg->temp_dir);
    /* Extensions come from weir's folder and are loaded by weir when a
     * statement needs one (extensions.h); DuckDB never downloads or
     * loads one by itself. */
    duckdb_set_config(config, "autoinstall_known_extensions", "false");
    duckdb_set_config(config, "autoload_known_extensions", "false");
    char ext_dir[4096];
    if (weir__extensions_dir(ext_dir, sizeof(ext_dir)))
        duckdb_set_config(config, "extension_directory", ext_dir);
    if (weir__extensions_new(&db->extensions)) {
        duckdb_destroy_config(&config);
        db_free(db);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    char *open_err = NULL;
    if (duckdb_open_ext(NULL, &db->handle, config, &open_err) == DuckDBError) {
        int rc = weir__db_error(err, "cannot open DuckDB: ", open_err,
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
    /* The scans first: the session setup's budget sets their threads. */
    int rc = connected ? weir__scans_install(c, &db->scans, err)
                       : WEIR_ERR(err, WEIR_EENGINE, NULL,
                                  "cannot connect to DuckDB");
    if (!rc)
        rc = global_setup(db, c, lazy, err);
    if (!rc && lazy) {
        rc = weir__macros_new(&db->macros, weir__sql_session_setup());
        if (rc)
            rc = WEIR_ERR(err, rc, NULL, "cannot prepare weir's macros");
    }
    if (!rc && weir__tallies_new(&db->tallies))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc && (weir__tallies_register(db->tallies, c) ||
                weir__spark_hash_register(c) || weir__spark_text_register(c) ||
                weir__spark_type_register(c)))
        rc = WEIR_ERR(err, WEIR_EENGINE, NULL,
                      "cannot register weir's functions in DuckDB");
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
    if (cfg && cfg->n_conf) {
        weir_s3_conf *s3 = weir__credentials_s3(cfg->conf, cfg->n_conf);
        if (!s3)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        pthread_mutex_lock(&db->s3_mu);
        weir__credentials_free(db->s3);
        db->s3 = s3;
        db->s3_ready = false;
        db->http_ready = false;
        pthread_mutex_unlock(&db->s3_mu);
    }
    unsigned threads = 0;
    const char *memory_limit = NULL;
    db_resources(cfg, &threads, &memory_limit);
    if (!threads && !memory_limit)
        return 0;
    weir_buf sql = WEIR_BUF_INIT;
    if (threads)
        weir__buf_printf(&sql, "SET GLOBAL threads = %u;", threads);
    if (memory_limit) {
        weir__buf_puts(&sql, "SET GLOBAL memory_limit = ");
        weir__buf_put_sql_string(&sql, memory_limit);
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
            rc = weir__db_error(err, "cannot configure DuckDB: ",
                                duckdb_result_error(&r), memory_limit);
        duckdb_destroy_result(&r);
        if (!rc)
            read_budget(db, c);
        duckdb_disconnect(&c);
    }
    if (!rc && memory_limit)
        snprintf(db->memory_limit, sizeof(db->memory_limit), "%s",
                 memory_limit);
    weir__buf_free(&sql);
    return rc;
}

void weir__db_close_as_is(weir_db *db)
{
    if (!db)
        return;
    /* A pragma of DuckDB's configuration only: nothing is read or written
     * in the attached files. */
    duckdb_connection c;
    if (duckdb_connect(db->handle, &c) != DuckDBError) {
        duckdb_result r;
        duckdb_query(c, "PRAGMA disable_checkpoint_on_shutdown", &r);
        duckdb_destroy_result(&r);
        duckdb_disconnect(&c);
    }
    weir__db_close(db);
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
                             ? query_patient(weir__conn_counted(c, sql), sql,
                                             &r)
                             : duckdb_query(weir__conn_counted(c, sql), sql, &r);
    if (state == DuckDBError) {
        int rc =
            weir__conn_query_error(c, err, duckdb_result_error(&r));
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
    bool shared = weir__db_gate_share(c->db, sql);
    int rc = conn_run(c, sql, rows_changed, err);
    weir__db_gate_unshare(c->db, shared);
    return rc;
}

int weir__conn_exec_alone(weir_conn *c, const char *sql, weir_error *err)
{
    gate_own(c->db);
    int rc = conn_run(c, sql, NULL, err);
    gate_disown(c->db);
    return rc;
}

int weir__exec_buf(weir_conn *c, weir_buf *sql, weir_error *err)
{
    if (sql->failed)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return weir__conn_exec(c, weir__buf_cstr(sql), NULL, err);
}

int weir__query_buf(weir_conn *c, weir_buf *sql, weir_rows **out,
                    weir_error *err)
{
    *out = NULL;
    if (sql->failed)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return weir__conn_query(c, weir__buf_cstr(sql), out, err);
}

int weir__scalar_buf(weir_conn *c, weir_buf *sql, int64_t *out, bool *null,
                     weir_error *err)
{
    if (sql->failed)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return weir__conn_scalar_i64(c, weir__buf_cstr(sql), out, null, err);
}

int weir__conn_begin(weir_conn *c, weir_error *err)
{
    return weir__conn_exec(c, "BEGIN TRANSACTION", NULL, err);
}

void weir__conn_rollback(weir_conn *c)
{
    duckdb_result r;
    duckdb_query(weir__conn_counted(c, "ROLLBACK"), "ROLLBACK", &r);
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
