/*
 * The storage folder of a pipeline: one DuckDB file per Spark catalog
 * (<storage>/<catalog>.duckdb, holding that catalog's databases as DuckDB
 * schemas plus the schema of weir's state its opener gives, src/state),
 * the system file <storage>/weir.duckdb (event log, updates), an exclusive
 * lock held by `weir run`, and open.sql for stock DuckDB. Layout and
 * protocol: docs/storage.md.
 */
#ifndef WEIR_STORE_STORAGE_H
#define WEIR_STORE_STORAGE_H

#include <pthread.h>
#include <stdbool.h>

#include "store/db.h"
#include "util/map.h"

typedef enum weir_storage_mode {
    WEIR_STORAGE_RUN,   /* lock, create what is missing, read-write */
    WEIR_STORAGE_QUERY, /* like RUN: users create source tables this way */
    WEIR_STORAGE_DRY    /* no lock, no writes: catalogs that exist are
                           attached read-only on use */
} weir_storage_mode;

/* One attached file's checkpoint, on a thread and connection of its own
 * (see weir__storage_checkpoint_catalogs). */
typedef struct {
    weir_db *db;
    const char *alias; /* the attached file's */
    pthread_t thread;
    bool started;
} weir_checkpoint_job;

enum { WEIR_CHECKPOINT_JOBS = 8 };

/* A schema script for catalog files: statements in which '@' stands for
 * the catalog's quoted alias, run in one transaction when a file is new
 * or its version table (a key/value table the script creates, named with
 * '@' too) has no 'schema' row holding a hash of the script's text, which
 * the run then records: a file gets the script once per version of it. */
typedef struct weir_catalog_schema {
    const char *script;
    const char *version_table;
} weir_catalog_schema;

typedef struct weir_storage {
    char *root; /* absolute folder */
    weir_storage_mode mode;
    const weir_catalog_schema *schema; /* of catalog files, or NULL */
    weir_db *db;
    weir_conn *conn; /* the control connection */
    int lock_fd;
    weir_map attached; /* catalog (lower case) -> alias (malloc'd) */
    weir_map inputs;   /* sample runs: input aliases attached (each key
                          its own malloc'd value) */
    bool system_attached;  /* weir.duckdb attached read-write */
    bool system_read_only; /* weir.duckdb attached read-only (QUERY) */
    bool busy; /* DRY: another process holds the storage */
    pthread_mutex_t commit_mu; /* one commit at a time (see storage_commit) */
    bool write_failed;         /* a commit could not write: no more commits */
    /* RUN: create a catalog file again although weir.duckdb says it existed
     * (--full-refresh-all); otherwise that is CATALOG_FILE_MISSING. */
    bool recreate_missing;
    /* A write to weir.duckdb running on a thread of its own (see
     * weir__storage_write_behind). */
    pthread_mutex_t behind_mu;
    pthread_t behind_thread;
    bool behind_running;
    char *behind_sql;
    const char *behind_what; /* static text */
    int behind_rc;
    weir_error behind_err;
    /* Catalog checkpoints started before the close (threads to join). */
    weir_checkpoint_job jobs[WEIR_CHECKPOINT_JOBS];
    size_t n_jobs;
} weir_storage;

/*
 * Open storage in the given mode. RUN and QUERY fail with WEIR_EBUSY when
 * another process holds the storage. DRY never creates the folder and,
 * while another process holds the storage, attaches nothing. schema (may
 * be NULL: none) is what every catalog file attached read-write gets
 * (weir__state_schema(), src/state); borrowed for the storage's life.
 */
int weir__storage_open(weir_storage **out, const char *root,
                       weir_storage_mode mode, const weir_db_config *cfg,
                       const weir_catalog_schema *schema, weir_error *err);
void weir__storage_close(weir_storage *s);
/*
 * An update that will write no more to its catalogs (its flows are done)
 * may start checkpointing them now, a thread each, while it writes its
 * record and events to weir.duckdb; weir__storage_close joins them. Only in
 * RUN mode and not after a failed write (those files are left to DuckDB's
 * close). A write to a catalog after this is still safe: DuckDB makes the
 * checkpoint wait or skip, and the close checkpoints what is left.
 */
void weir__storage_checkpoint_catalogs(weir_storage *s);

/*
 * Commit the transaction open on `c` (a connection of this storage). Commits
 * go one at a time, and after one fails (an I/O error, a full disk, out of
 * memory; not a conflict with another transaction, which may be retried),
 * every later commit in this process is refused and rolled back with
 * WEIR_EIO: DuckDB's in-memory state is not trustworthy after a failed
 * commit, and the next open recovers from the write-ahead log.
 */
int weir__storage_commit(weir_storage *s, weir_conn *c, weir_error *err);
/*
 * Run sql (statements writing weir.duckdb, copied) in one transaction on a
 * thread and connection of its own, committed as weir__storage_commit
 * commits but without the metadata tables' gate (sql writes no catalog's
 * _weir tables: statements on them run while it commits). The caller
 * goes on meanwhile; weir__storage_write_wait waits for it and returns
 * its outcome, and so does every later
 * weir__storage_commit first, until weir__storage_write_forget: an
 * update's RUNNING record is durable before any of its batches, and a
 * batch is not committed when that record could not be written. A failure
 * reads "<what> in weir.duckdb could not be written: <cause>". One at a
 * time: a second call waits for the first.
 */
int weir__storage_write_behind(weir_storage *s, const char *sql,
                               const char *what, weir_error *err);
/* Wait for the write weir__storage_write_behind started, if any; its
 * outcome (0, or its error, each time asked). Thread-safe. */
int weir__storage_write_wait(weir_storage *s, weir_error *err);
/* Wait for it and drop its outcome: the update it belongs to is over. */
void weir__storage_write_forget(weir_storage *s);
/* True once a commit failed (see weir__storage_commit). */
bool weir__storage_write_failed(weir_storage *s);
/* True when an error message reports a failed write of this storage's
 * files: DuckDB invalidated its instance, or an I/O error (disk full, EIO,
 * a failed fsync) names a file under the storage root. An I/O error of a
 * source (a file, an object store, a database) is not one: its flow is
 * retried as any other failure. */
bool weir__storage_write_error(const weir_storage *s, const char *message);

/* Attach the DuckDB file of a catalog (creating it in RUN mode) and make
 * sure `database` exists as a schema in it (RUN mode). Idempotent. */
int weir__storage_use_catalog(weir_storage *s, const char *catalog,
                              const char *database, weir_error *err);
/* Attach every catalog file already in the folder. */
int weir__storage_attach_all(weir_storage *s, weir_error *err);
/* Attach weir.duckdb again, read-only (QUERY mode, once every catalog is
 * attached): DuckDB then refuses any write to weir's system catalog. */
int weir__storage_system_read_only(weir_storage *s, weir_error *err);
/*
 * Switch an open storage between QUERY and RUN (not DRY), keeping its
 * DuckDB instance, lock and attached catalogs: the control connection is
 * replaced by a fresh one (no USE, no search path of the last mode), and
 * for RUN weir.duckdb is attached read-write again. A pipeline that keeps
 * its storage open runs its updates this way (see weir_load_options).
 */
int weir__storage_set_mode(weir_storage *s, weir_storage_mode mode,
                           weir_error *err);
/* True when the catalog's file is attached. */
bool weir__storage_has_catalog(const weir_storage *s, const char *catalog);

/* The DuckDB database alias for a Spark catalog name (lower case; DuckDB's
 * reserved names get a "_catalog" suffix). Written into out. */
void weir__storage_catalog_alias(char *out, size_t size, const char *catalog);

/* Append the path of catalog's file: <root>/<its alias, encoded so that
 * no name reaches outside the folder>.duckdb. */
void weir__storage_catalog_path(weir_buf *out, const weir_storage *s,
                                const char *catalog);

/* Append the quoted DuckDB name of a table: "alias"."db"."name". */
void weir__storage_table_ref(weir_buf *out, const char *catalog,
                             const char *database, const char *name);

/* The folder of a dataset weir stores as a Delta table (docs/delta.md):
 * location when given (its table property, absolute), else
 * <root>/tables/<catalog>/<database>/<name>, each name encoded as a file
 * name (weir__path_put_name). */
void weir__storage_delta_dir(weir_buf *out, const weir_storage *s,
                             const char *location, const char *catalog,
                             const char *database, const char *name);

/* Load DuckDB's delta extension (the views of Delta datasets read through
 * delta_scan) when a catalog attached to s holds such a view. */
int weir__storage_delta_reader(weir_storage *s, weir_error *err);

/* Sample runs (weir run --sample) read external tables from the real
 * storage: its file of `catalog`, when there is one, attached read-only
 * under the catalog's alias plus WEIR_INPUT_ALIAS_SUFFIX (once; a file
 * another process holds is an error naming it). */
#define WEIR_INPUT_ALIAS_SUFFIX "__input"
/* That alias, for catalog: written into out (size bytes; truncated). */
void weir__storage_input_alias(char *out, size_t size, const char *catalog);
/* True when catalog's file of the real storage is attached. */
bool weir__storage_has_input(const weir_storage *s, const char *catalog);
int weir__storage_attach_input(weir_storage *s, const char *input_root,
                               const char *catalog, weir_error *err);
/* Append "alias__input"."db"."name", a table of the real storage. */
void weir__storage_input_table_ref(weir_buf *out, const char *catalog,
                                   const char *database, const char *name);

/* Sample runs write what their sinks with a path publish into this folder
 * of the sample storage (the sinks' paths below it, weir_engine_opts
 * .sink_root), never into the sinks' destinations. */
#define WEIR_SAMPLE_OUTPUTS "outputs"

/* Rewrite open.sql, the script that attaches every file for stock DuckDB
 * and, when catalog and database are given, USEs the pipeline's schema. */
int weir__storage_write_open_script(weir_storage *s, const char *catalog,
                                    const char *database, weir_error *err);

#define WEIR_SYSTEM_ALIAS "weir"

#endif
