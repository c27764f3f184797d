/*
 * Opening and laying out a pipeline's storage folder (see storage.h and
 * docs/storage.md).
 */
#include "storage.h"

#include <assert.h>
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/fs.h"
#include "util/str.h"

#define STORAGE_FORMAT "1"

static const char SYSTEM_SCHEMA_SQL[] =
    "CREATE TABLE IF NOT EXISTS weir.main.meta ("
    "  key VARCHAR PRIMARY KEY, value VARCHAR);"
    "INSERT OR IGNORE INTO weir.main.meta VALUES ('storage_format', '" STORAGE_FORMAT "');"
    "CREATE TABLE IF NOT EXISTS weir.main.event_log ("
    "  id VARCHAR, update_id VARCHAR, sequence BIGINT, timestamp TIMESTAMP,"
    "  level VARCHAR, event_type VARCHAR, message VARCHAR, flow_name VARCHAR,"
    "  dataset_name VARCHAR, details JSON, error JSON, origin JSON);"
    "CREATE TABLE IF NOT EXISTS weir.main.updates ("
    "  update_id VARCHAR, pipeline VARCHAR, started_at TIMESTAMP,"
    "  ended_at TIMESTAMP, state VARCHAR, options JSON);"
    "CREATE TABLE IF NOT EXISTS weir.main.catalogs ("
    "  alias VARCHAR, created_at TIMESTAMP);";

/* The tag of a schema script: a hash of its text, kept in the meta table
 * it creates ("schema" row) once the script ran, so an open runs it only
 * when the file predates it (another version of weir) or is new. */
static void schema_tag(char out[17], const char *script)
{
    uint64_t h = 14695981039346656037ULL; /* FNV-1a */
    for (const char *p = script; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* Run script (its meta table: meta, which the script creates) unless the
 * table's "schema" row says it ran already; then record that it ran.
 * meta_key_pk: the table's key column is its primary key. created: the
 * file was just created, so there is nothing to look up (a lookup of a
 * missing table fails slowly: DuckDB looks for similar names). */
static int ensure_schema(weir_conn *c, const char *script, const char *meta,
                         bool meta_key_pk, bool created, weir_error *err)
{
    char tag[17];
    schema_tag(tag, script);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_printf(&q, "SELECT value FROM %s WHERE key = 'schema'", meta);
    char *have = NULL;
    weir_error ignore; /* a file without the table: run the script */
    int rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory") : 0;
    if (!rc && !created &&
        weir__conn_scalar_text(c, weir__buf_cstr(&q), &have, &ignore) == 0 &&
        have && strcmp(have, tag) == 0) {
        free(have);
        weir__buf_free(&q);
        return 0;
    }
    free(have);
    /* One transaction: one commit (a WAL sync) for the whole script, not
     * one per statement, and no half-made schema. */
    weir__buf_clear(&q);
    weir__buf_puts(&q, "BEGIN TRANSACTION; ");
    weir__buf_puts(&q, script);
    if (!meta_key_pk)
        weir__buf_printf(&q, "; DELETE FROM %s WHERE key = 'schema'", meta);
    weir__buf_printf(&q, "; INSERT %sINTO %s VALUES ('schema', '%s'); COMMIT",
                     meta_key_pk ? "OR REPLACE " : "", meta, tag);
    if (!rc)
        rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_exec(c, weir__buf_cstr(&q), NULL, err);
    if (rc)
        weir__conn_rollback(c);
    weir__buf_free(&q);
    return rc;
}

void weir__storage_catalog_alias(char *out, size_t size, const char *catalog)
{
    static const char *const reserved[] = { "main", "temp", "system",
                                            "memory", WEIR_SYSTEM_ALIAS };
    char low[256];
    weir__str_copy(low, sizeof(low), catalog);
    weir__str_lower(low);
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
        if (strcmp(low, reserved[i]) == 0) {
            snprintf(out, size, "%s_catalog", low);
            return;
        }
    }
    weir__str_copy(out, size, low);
}

void weir__storage_table_ref(weir_buf *out, const char *catalog,
                             const char *database, const char *name)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    weir__buf_put_sql_ident(out, alias);
    weir__buf_putc(out, '.');
    weir__buf_put_sql_ident(out, database);
    weir__buf_putc(out, '.');
    weir__buf_put_sql_ident(out, name);
}

void weir__storage_delta_dir(weir_buf *out, const weir_storage *s,
                             const char *location, const char *catalog,
                             const char *database, const char *name)
{
    if (location) {
        weir__buf_puts(out, location);
        return;
    }
    weir__buf_printf(out, "%s/tables/", s->root);
    weir__path_put_name(out, catalog);
    weir__buf_putc(out, '/');
    weir__path_put_name(out, database);
    weir__buf_putc(out, '/');
    weir__path_put_name(out, name);
}

/* How many views of Delta datasets the attached catalogs hold. */
static int delta_views(weir_storage *s, int64_t *n, weir_error *err)
{
    *n = 0;
    return weir__conn_scalar_i64(
        s->conn,
        "SELECT count(*) FROM duckdb_views() WHERE NOT internal AND "
        "sql LIKE '%delta_scan(%'",
        n, NULL, err);
}

int weir__storage_delta_reader(weir_storage *s, weir_error *err)
{
    int64_t n = 0;
    int rc = delta_views(s, &n, err);
    if (!rc && n > 0)
        rc = weir__db_extension(weir__conn_db(s->conn), "delta",
                                "Delta datasets", err);
    return rc;
}

static int attach(weir_storage *s, const char *file, const char *alias,
                  bool read_only, weir_error *err)
{
    char *path = weir__path_join(s->root, file);
    if (!path)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir_buf sql = WEIR_BUF_INIT;
    weir__buf_puts(&sql, "ATTACH ");
    weir__buf_put_sql_string(&sql, path);
    weir__buf_puts(&sql, " AS ");
    weir__buf_put_sql_ident(&sql, alias);
    /* Files in DuckDB 1.4's storage format (typed macros need it). */
    weir__buf_puts(&sql, read_only ? " (READ_ONLY)" : " (STORAGE_VERSION 'v1.4.0')");
    int rc = sql.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                        : weir__conn_exec(s->conn, weir__buf_cstr(&sql), NULL,
                                          err);
    if (rc)
        weir__error_prefix(err, "cannot open %s: ", path);
    weir__buf_free(&sql);
    free(path);
    return rc;
}

void weir__storage_input_alias(char *out, size_t size, const char *catalog)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    snprintf(out, size, "%s" WEIR_INPUT_ALIAS_SUFFIX, alias);
}

bool weir__storage_has_input(const weir_storage *s, const char *catalog)
{
    char alias[300 + sizeof(WEIR_INPUT_ALIAS_SUFFIX)];
    weir__storage_input_alias(alias, sizeof(alias), catalog);
    return weir__map_has(&s->inputs, alias);
}

void weir__storage_input_table_ref(weir_buf *out, const char *catalog,
                                   const char *database, const char *name)
{
    char alias[300 + sizeof(WEIR_INPUT_ALIAS_SUFFIX)];
    weir__storage_input_alias(alias, sizeof(alias), catalog);
    weir__buf_put_sql_ident(out, alias);
    weir__buf_putc(out, '.');
    weir__buf_put_sql_ident(out, database);
    weir__buf_putc(out, '.');
    weir__buf_put_sql_ident(out, name);
}

static bool storage_locked_elsewhere(const char *root, char *holder,
                                     size_t size)
{
    char *lock = weir__path_join(root, "weir.lock");
    if (!lock || !weir__fs_exists(lock)) {
        free(lock);
        return false;
    }
    int fd;
    int rc = weir__fs_lock(&fd, lock, holder, size, NULL);
    free(lock);
    if (rc == WEIR_EBUSY)
        return true;
    weir__fs_unlock(fd);
    return false;
}

int weir__storage_open(weir_storage **out, const char *root,
                       weir_storage_mode mode, const weir_db_config *cfg,
                       const weir_catalog_schema *schema, weir_error *err)
{
    *out = NULL;
    weir_storage *s = calloc(1, sizeof(*s));
    if (!s)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    s->lock_fd = -1;
    s->mode = mode;
    s->schema = schema;
    pthread_mutex_init(&s->commit_mu, NULL);
    pthread_mutex_init(&s->behind_mu, NULL);
    weir__map_init(&s->attached, true);
    weir__map_init(&s->inputs, true);
    s->root = strdup(root);
    int rc = s->root ? 0 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    bool exists = weir__fs_is_dir(root);
    if (!rc && mode != WEIR_STORAGE_DRY)
        rc = weir__fs_mkdirs(root, err);
    if (!rc && mode != WEIR_STORAGE_DRY) {
        char *lock = weir__path_join(root, "weir.lock");
        char holder[64] = "";
        rc = lock ? weir__fs_lock(&s->lock_fd, lock, holder, sizeof(holder), err)
                  : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        if (rc == WEIR_EBUSY && strtol(holder, NULL, 10) == (long)getpid())
            WEIR_ERR(err, WEIR_EBUSY, "PIPELINE_STORAGE_BUSY",
                     "storage %s is in use by another pipeline of this "
                     "process (an update, or queries holding it open); "
                     "wait for it to finish", root);
        else if (rc == WEIR_EBUSY)
            WEIR_ERR(err, WEIR_EBUSY, "PIPELINE_STORAGE_BUSY",
                     "storage %s is in use by another weir process%s%s%s; "
                     "wait for its update to finish",
                     root, holder[0] ? " (pid " : "", holder,
                     holder[0] ? ")" : "");
        free(lock);
    }
    weir_db_config dbcfg = { 0, NULL, NULL, false, NULL, 0 };
    if (cfg)
        dbcfg = *cfg;
    char *tmp = NULL;
    if (!rc && mode != WEIR_STORAGE_DRY) {
        tmp = weir__path_join(root, "tmp");
        dbcfg.temp_dir = tmp;
    }
    /* Updates and dry runs: weir's macros as their statements call them
     * (an update's flows call a few, if any). Queries may call any. */
    dbcfg.lazy_macros = mode != WEIR_STORAGE_QUERY;
    if (!rc)
        rc = weir__db_open(&s->db, &dbcfg, err);
    free(tmp);
    if (!rc)
        rc = weir__db_connect(&s->conn, s->db, err);
    if (!rc && mode != WEIR_STORAGE_DRY) {
        char *sys = weir__path_join(root, "weir.duckdb");
        bool created = sys && !weir__fs_is_file(sys);
        free(sys);
        rc = attach(s, "weir.duckdb", WEIR_SYSTEM_ALIAS, false, err);
        if (!rc)
            rc = ensure_schema(s->conn, SYSTEM_SCHEMA_SQL, "weir.main.meta",
                               true, created, err);
        s->system_attached = !rc;
    } else if (!rc && mode == WEIR_STORAGE_DRY && exists) {
        char holder[64];
        s->busy = storage_locked_elsewhere(root, holder, sizeof(holder));
        if (!s->busy) {
            char *sys = weir__path_join(root, "weir.duckdb");
            if (sys && weir__fs_is_file(sys) &&
                attach(s, "weir.duckdb", WEIR_SYSTEM_ALIAS, true, NULL) == 0)
                s->system_attached = true;
            free(sys);
        }
    }
    if (rc) {
        weir__storage_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* ---- closing ------------------------------------------------------------- */

static void *checkpoint_one(void *arg)
{
    weir_checkpoint_job *j = arg;
    weir_conn *c = NULL;
    weir_error e;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "CHECKPOINT ");
    weir__buf_put_sql_ident(&q, j->alias);
    /* On any failure the file is left to DuckDB's close. */
    if (!q.failed && weir__db_connect(&c, j->db, &e) == 0)
        weir__conn_exec(c, weir__buf_cstr(&q), NULL, &e);
    weir__conn_close(c);
    weir__buf_free(&q);
    return NULL;
}

/* DuckDB checkpoints the files an update wrote one after the other as it
 * closes (weir.duckdb, then each catalog's); weir checkpoints them at
 * once, a thread each: the same writes, in about the time of the longest.
 * Whatever is left (an error, a file past the first WEIR_CHECKPOINT_JOBS)
 * DuckDB's close still checkpoints. */
static bool may_checkpoint(const weir_storage *s)
{
    return s->mode == WEIR_STORAGE_RUN && s->system_attached &&
           !weir__storage_write_failed((weir_storage *)s);
}

void weir__storage_checkpoint_catalogs(weir_storage *s)
{
    if (s->n_jobs || !may_checkpoint(s))
        return; /* started already (or nothing to start) */
    size_t it = 0;
    const char *alias;
    while (s->n_jobs < WEIR_CHECKPOINT_JOBS &&
           weir__map_next(&s->attached, &it, &alias, NULL)) {
        weir_checkpoint_job *j = &s->jobs[s->n_jobs++];
        *j = (weir_checkpoint_job){ .db = s->db, .alias = alias };
        j->started = pthread_create(&j->thread, NULL, checkpoint_one, j) == 0;
    }
}

/* weir.duckdb on this thread, the catalogs on theirs (started now unless
 * weir__storage_checkpoint_catalogs started them). */
static void checkpoint_files(weir_storage *s)
{
    if (may_checkpoint(s)) {
        weir__storage_checkpoint_catalogs(s);
        weir_checkpoint_job sys = { .db = s->db, .alias = WEIR_SYSTEM_ALIAS };
        checkpoint_one(&sys);
    }
    for (size_t i = 0; i < s->n_jobs; i++)
        if (s->jobs[i].started)
            pthread_join(s->jobs[i].thread, NULL);
    s->n_jobs = 0;
}

void weir__storage_close(weir_storage *s)
{
    if (!s)
        return;
    weir__storage_write_wait(s, NULL);
    checkpoint_files(s);
    weir__conn_close(s->conn);
    /* After a failed commit the instance writes nothing more: DuckDB's
     * own checkpoint at close is skipped too (the log replays at the next
     * open). */
    if (weir__storage_write_failed(s))
        weir__db_close_as_is(s->db);
    else
        weir__db_close(s->db);
    weir__fs_unlock(s->lock_fd);
    size_t it = 0;
    void *v;
    while (weir__map_next(&s->attached, &it, NULL, &v))
        free(v);
    /* Each key is its own value (one malloc'd alias), freed above. */
    weir__map_free(&s->attached);
    for (it = 0; weir__map_next(&s->inputs, &it, NULL, &v);)
        free(v);
    weir__map_free(&s->inputs);
    free(s->root);
    free(s->behind_sql);
    pthread_mutex_destroy(&s->commit_mu);
    pthread_mutex_destroy(&s->behind_mu);
    free(s);
}

bool weir__storage_write_error(const weir_storage *s, const char *m)
{
    /* An invalidated instance refuses every write, whatever failed. */
    if (strstr(m, "FATAL Error") || strstr(m, "invalidated"))
        return true;
    if (!strstr(m, "IO Error") && !strstr(m, "No space left") &&
        !strstr(m, "Could not write") && !strstr(m, "fsync"))
        return false;
    /* DuckDB names the file an I/O error is about; weir's own files (the
     * catalogs, their logs, the spill folder) all lie under the root,
     * which is absolute. A source's file, object or database is not. */
    size_t n = strlen(s->root);
    for (const char *p = m; (p = strstr(p, s->root)) != NULL; p += n)
        if (p[n] == '/')
            return true;
    return false;
}

/* A commit that failed other than by a conflict with another transaction
 * (which is retried) leaves DuckDB's state suspect. */
static bool fatal_commit_error(const char *m)
{
    return !strstr(m, "onflict");
}

/* Commit c's transaction, one commit at a time. alone: with the
 * metadata tables' gate held (store/db.c), which a transaction that wrote
 * a catalog's _weir tables needs. */
static int commit_now(weir_storage *s, weir_conn *c, bool alone,
                      weir_error *err)
{
    pthread_mutex_lock(&s->commit_mu);
    int rc;
    if (s->write_failed) {
        weir__conn_rollback(c);
        rc = WEIR_ERR(err, WEIR_EIO, "STORAGE_WRITE_FAILED",
                      "not committed: an earlier write to storage %s failed "
                      "in this process",
                      s->root);
    } else {
        /* DuckDB's COMMIT of a transaction that an earlier statement
         * aborted succeeds and commits nothing: a batch whose error was
         * missed would be reported done and its rows lost. A statement
         * fails in an aborted transaction, so one goes first. */
        weir_error e;
        char cause[512];
        weir__str_copy(cause, sizeof(cause), weir__conn_last_failure(c));
        rc = weir__conn_exec(c, "SELECT 1", NULL, &e);
        if (rc) {
            weir__conn_rollback(c);
            rc = WEIR_ERR(&e, WEIR_EENGINE, NULL,
                          "not committed: a statement of the transaction "
                          "failed before its commit: %s",
                          cause);
        } else {
            rc = alone ? weir__conn_exec_alone(c, "COMMIT", &e)
                       : weir__conn_exec(c, "COMMIT", NULL, &e);
            if (rc && fatal_commit_error(e.message))
                s->write_failed = true;
            if (rc && weir__storage_write_error(s, e.message))
                weir__str_copy(e.error_class, sizeof(e.error_class),
                               "STORAGE_WRITE_FAILED");
        }
        if (rc)
            weir__error_copy(err, &e);
    }
    pthread_mutex_unlock(&s->commit_mu);
    return rc;
}

int weir__storage_commit(weir_storage *s, weir_conn *c, weir_error *err)
{
    weir_error e;
    int rc = weir__storage_write_wait(s, &e);
    if (rc) {
        weir__conn_rollback(c);
        weir__error_prefix(&e, "not committed: ");
        weir__error_copy(err, &e);
        return rc;
    }
    return commit_now(s, c, true, err);
}

static void *write_behind(void *arg)
{
    weir_storage *s = arg;
    weir_conn *c = NULL;
    weir_error *e = &s->behind_err;
    int rc = weir__db_connect(&c, s->db, e);
    if (!rc && (rc = weir__conn_begin(c, e)) == 0) {
        rc = weir__conn_exec(c, s->behind_sql, NULL, e);
        if (rc)
            weir__conn_rollback(c);
        else
            /* Not alone: the record is weir.duckdb's, which no flow
             * scans, and holding the gate would stop every flow's
             * checkpoint reads while its WAL is written. */
            rc = commit_now(s, c, false, e);
    }
    weir__conn_close(c);
    if (rc)
        weir__error_prefix(e, "%s in weir.duckdb could not be written: ",
                           s->behind_what);
    s->behind_rc = rc;
    return NULL;
}

/* The write behind's thread is over (under behind_mu). */
static void join_behind(weir_storage *s)
{
    if (s->behind_running)
        pthread_join(s->behind_thread, NULL);
    s->behind_running = false;
}

int weir__storage_write_behind(weir_storage *s, const char *sql,
                               const char *what, weir_error *err)
{
    int rc = 0;
    pthread_mutex_lock(&s->behind_mu);
    /* The previous write's outcome went to those who waited for it. */
    join_behind(s);
    s->behind_rc = 0;
    s->behind_what = what;
    free(s->behind_sql);
    s->behind_sql = strdup(sql);
    if (!s->behind_sql)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    else if (pthread_create(&s->behind_thread, NULL, write_behind, s) == 0)
        s->behind_running = true;
    else { /* no thread: written here */
        write_behind(s);
        if ((rc = s->behind_rc) != 0)
            weir__error_copy(err, &s->behind_err);
    }
    pthread_mutex_unlock(&s->behind_mu);
    return rc;
}

int weir__storage_write_wait(weir_storage *s, weir_error *err)
{
    pthread_mutex_lock(&s->behind_mu);
    join_behind(s);
    int rc = s->behind_rc;
    if (rc && err)
        weir__error_copy(err, &s->behind_err);
    pthread_mutex_unlock(&s->behind_mu);
    return rc;
}

void weir__storage_write_forget(weir_storage *s)
{
    pthread_mutex_lock(&s->behind_mu);
    join_behind(s);
    s->behind_rc = 0;
    pthread_mutex_unlock(&s->behind_mu);
}

bool weir__storage_write_failed(weir_storage *s)
{
    pthread_mutex_lock(&s->commit_mu);
    bool failed = s->write_failed;
    pthread_mutex_unlock(&s->commit_mu);
    return failed;
}

bool weir__storage_has_catalog(const weir_storage *s, const char *catalog)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    return weir__map_has(&s->attached, alias);
}

/* weir.main.catalogs remembers every catalog file this storage created: one
 * that disappeared took its tables and checkpoints with it, and starting
 * over from nothing (sinks receiving everything again) needs the user's
 * word: --full-refresh-all. */
static int known_catalog(weir_storage *s, const char *alias, bool exists,
                         const char *path, weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT count(*) FROM weir.main.catalogs WHERE alias = ");
    weir__buf_put_sql_string(&q, alias);
    int64_t n = 0;
    int rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_scalar_i64(s->conn, weir__buf_cstr(&q), &n,
                                              NULL, err);
    if (!rc && n && !exists && !s->recreate_missing)
        rc = WEIR_ERR(err, WEIR_ERROR, "CATALOG_FILE_MISSING",
                      "The catalog file %s is missing, but this storage "
                      "created it earlier (weir.duckdb remembers it): its "
                      "tables and checkpoints are gone. Restore it from a "
                      "backup, or rebuild every table from its sources with "
                      "--full-refresh-all.",
                      path);
    if (!rc && !n) {
        weir__buf_clear(&q);
        weir__buf_puts(&q, "INSERT INTO weir.main.catalogs VALUES (");
        weir__buf_put_sql_string(&q, alias);
        weir__buf_puts(&q, ", now()::TIMESTAMP)");
        rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_exec(s->conn, weir__buf_cstr(&q), NULL, err);
    }
    weir__buf_free(&q);
    return rc;
}

/* The file of a catalog in the storage folder: its alias, encoded so that
 * no name reaches outside the folder (weir__path_put_name), + ".duckdb". */
static void catalog_file(weir_buf *out, const char *alias)
{
    weir__path_put_name(out, alias);
    weir__buf_puts(out, ".duckdb");
}

/* text with each '@' replaced by the quoted alias, appended to out. */
static void put_for_alias(weir_buf *out, const char *text, const char *alias)
{
    for (const char *c = text; *c; c++) {
        if (*c == '@')
            weir__buf_put_sql_ident(out, alias);
        else
            weir__buf_putc(out, *c);
    }
}

void weir__storage_catalog_path(weir_buf *out, const weir_storage *s,
                                const char *catalog)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    weir__buf_puts(out, s->root);
    if (!weir__str_ends(s->root, "/"))
        weir__buf_putc(out, '/');
    catalog_file(out, alias);
}

static int attach_alias(weir_storage *s, const char *alias, bool create,
                        weir_error *err)
{
    if (weir__map_has(&s->attached, alias))
        return 0;
    weir_buf fb = WEIR_BUF_INIT;
    catalog_file(&fb, alias);
    const char *file = weir__buf_cstr(&fb);
    char *path = fb.failed ? NULL : weir__path_join(s->root, file);
    if (!path) {
        weir__buf_free(&fb);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    bool exists = weir__fs_is_file(path);
    if ((!exists && !create) || s->busy) {
        free(path);
        weir__buf_free(&fb);
        return 0;
    }
    bool ro = s->mode == WEIR_STORAGE_DRY;
    int rc = 0;
    if (!ro && s->system_attached)
        rc = known_catalog(s, alias, exists, path, err);
    free(path);
    if (!rc)
        rc = attach(s, file, alias, ro, err);
    weir__buf_free(&fb);
    if (!rc && !ro && s->schema) {
        weir_buf sql = WEIR_BUF_INIT;
        weir_buf meta = WEIR_BUF_INIT;
        put_for_alias(&sql, s->schema->script, alias);
        put_for_alias(&meta, s->schema->version_table, alias);
        rc = sql.failed || meta.failed
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                 : ensure_schema(s->conn, weir__buf_cstr(&sql),
                                 weir__buf_cstr(&meta), false, !exists, err);
        weir__buf_free(&sql);
        weir__buf_free(&meta);
    }
    if (rc)
        return rc;
    char *key = strdup(alias);
    if (!key || weir__map_put(&s->attached, key, key)) {
        free(key);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    return exists ? weir__storage_delta_reader(s, err) : 0;
}

int weir__storage_use_catalog(weir_storage *s, const char *catalog,
                              const char *database, weir_error *err)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    int rc = attach_alias(s, alias, s->mode != WEIR_STORAGE_DRY, err);
    if (rc || !database || s->mode == WEIR_STORAGE_DRY ||
        !weir__map_has(&s->attached, alias))
        return rc;
    weir_buf sql = WEIR_BUF_INIT;
    weir__buf_puts(&sql, "CREATE SCHEMA IF NOT EXISTS ");
    weir__buf_put_sql_ident(&sql, alias);
    weir__buf_putc(&sql, '.');
    weir__buf_put_sql_ident(&sql, database);
    rc = weir__conn_exec(s->conn, weir__buf_cstr(&sql), NULL, err);
    weir__buf_free(&sql);
    return rc;
}

int weir__storage_attach_input(weir_storage *s, const char *input_root,
                               const char *catalog, weir_error *err)
{
    char alias[300], key[300 + sizeof(WEIR_INPUT_ALIAS_SUFFIX)];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    weir__storage_input_alias(key, sizeof(key), catalog);
    weir_buf fb = WEIR_BUF_INIT;
    catalog_file(&fb, alias);
    char *path = fb.failed ? NULL : weir__path_join(input_root, weir__buf_cstr(&fb));
    int rc = 0;
    if (!path) {
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    } else if (!weir__map_has(&s->inputs, key) && weir__fs_is_file(path)) {
        weir_buf sql = WEIR_BUF_INIT;
        weir__buf_puts(&sql, "ATTACH ");
        weir__buf_put_sql_string(&sql, path);
        weir__buf_puts(&sql, " AS ");
        weir__buf_put_sql_ident(&sql, key);
        weir__buf_puts(&sql, " (READ_ONLY)");
        rc = sql.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                        : weir__conn_exec(s->conn, weir__buf_cstr(&sql), NULL,
                                          err);
        weir__buf_free(&sql);
        if (rc)
            weir__error_prefix(err, "cannot read the external tables of "
                                    "%s (is a run of that storage going "
                                    "on?): ",
                               path);
        char *k = rc ? NULL : strdup(key);
        if (!rc && (!k || weir__map_put(&s->inputs, k, k) != 0)) {
            free(k);
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        }
    }
    free(path);
    weir__buf_free(&fb);
    return rc;
}

int weir__storage_attach_all(weir_storage *s, weir_error *err)
{
    DIR *d = opendir(s->root);
    if (!d)
        return 0;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        const char *n = e->d_name;
        if (!weir__str_ends(n, ".duckdb") || strcmp(n, "weir.duckdb") == 0)
            continue;
        size_t len = strlen(n) - strlen(".duckdb");
        weir_buf alias = WEIR_BUF_INIT;
        if (len == 0 || !weir__path_decode_name(&alias, n, len)) {
            weir__buf_free(&alias);
            continue; /* not a name weir writes */
        }
        rc = alias.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                          : attach_alias(s, weir__buf_cstr(&alias), false, err);
        weir__buf_free(&alias);
    }
    closedir(d);
    return rc;
}

int weir__storage_system_read_only(weir_storage *s, weir_error *err)
{
    if (!s->system_attached)
        return 0;
    int rc = weir__conn_exec(s->conn, "DETACH " WEIR_SYSTEM_ALIAS, NULL, err);
    s->system_attached = false;
    if (!rc)
        rc = attach(s, "weir.duckdb", WEIR_SYSTEM_ALIAS, true, err);
    /* Read-only now: attach_alias must not register catalogs in it. */
    s->system_read_only = !rc;
    return rc;
}

int weir__storage_set_mode(weir_storage *s, weir_storage_mode mode,
                           weir_error *err)
{
    assert(s->mode != WEIR_STORAGE_DRY && mode != WEIR_STORAGE_DRY);
    weir_conn *c = NULL;
    int rc = weir__db_connect(&c, s->db, err);
    if (rc)
        return rc;
    weir__conn_close(s->conn);
    s->conn = c;
    s->mode = mode;
    if (mode == WEIR_STORAGE_RUN && s->system_read_only) {
        rc = weir__conn_exec(s->conn, "DETACH " WEIR_SYSTEM_ALIAS, NULL, err);
        s->system_read_only = false;
        if (!rc)
            rc = attach(s, "weir.duckdb", WEIR_SYSTEM_ALIAS, false, err);
        s->system_attached = !rc;
    }
    return rc;
}

int weir__storage_write_open_script(weir_storage *s, const char *catalog,
                                    const char *database, weir_error *err)
{
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_puts(&b, "-- Attach this pipeline's storage in a stock DuckDB "
                       "shell: duckdb -init open.sql\n");
    int64_t deltas = 0;
    weir_error ignore_views;
    if (!delta_views(s, &deltas, &ignore_views) && deltas > 0)
        weir__buf_puts(&b, "-- Delta datasets are views over delta_scan: "
                           "DuckDB's delta extension reads them.\n"
                           "INSTALL delta;\nLOAD delta;\n");
    char *sys = weir__path_join(s->root, "weir.duckdb");
    weir__buf_puts(&b, "ATTACH IF NOT EXISTS ");
    weir__buf_put_sql_string(&b, sys ? sys : "");
    weir__buf_puts(&b, " AS weir (READ_ONLY);\n");
    free(sys);
    size_t it = 0;
    const char *alias;
    while (weir__map_next(&s->attached, &it, &alias, NULL)) {
        weir_buf file = WEIR_BUF_INIT;
        catalog_file(&file, alias);
        char *p = file.failed ? NULL
                              : weir__path_join(s->root, weir__buf_cstr(&file));
        weir__buf_free(&file);
        weir__buf_puts(&b, "ATTACH IF NOT EXISTS ");
        weir__buf_put_sql_string(&b, p ? p : "");
        weir__buf_puts(&b, " AS ");
        weir__buf_put_sql_ident(&b, alias);
        weir__buf_puts(&b, " (READ_ONLY);\n");
        free(p);
    }
    if (catalog && database) {
        /* the pipeline's schema, where its tables are, is the current one */
        char own[300];
        weir__storage_catalog_alias(own, sizeof(own), catalog);
        weir__buf_puts(&b, "USE ");
        weir__buf_put_sql_ident(&b, own);
        weir__buf_putc(&b, '.');
        weir__buf_put_sql_ident(&b, database);
        weir__buf_puts(&b, ";\n");
    }
    char *path = weir__path_join(s->root, "open.sql");
    /* Written when it changes (a new catalog), not on every update. */
    char *old = NULL;
    size_t old_len = 0;
    weir_error ignore;
    bool same = path && !b.failed &&
                weir__fs_read(&old, &old_len, path, &ignore) == 0 &&
                old_len == b.len && memcmp(old, b.ptr, b.len) == 0;
    free(old);
    int rc = (b.failed || !path)
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
             : same ? 0
                    : weir__fs_write_atomic(path, b.ptr, b.len, err);
    free(path);
    weir__buf_free(&b);
    return rc;
}
