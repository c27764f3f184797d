/*
 * The write-ahead log guard (store/wal_guard.c): a commit whose WAL write
 * fails, and whose rollback cannot truncate the WAL either, fails instead
 * of aborting the process, and the instance never writes that WAL again.
 *
 * The failure half runs with the I/O fault shim preloaded
 * (tests/CMakeLists.txt sets LD_PRELOAD and WEIR_FAULT_*): in a folder
 * named faulty, the second write-ahead-log call fails (the commit's
 * fsync, after its one write), and so does the ftruncate after it
 * (WEIR_FAULT_COUNT=2); later calls pass. Without the guard DuckDB 1.4.4
 * aborts in that commit.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/db.h"
#include "store/wal_guard.h"

/* The pinned DuckDB (1.4) is the one the guard is for: it must be in
 * place, or a change of DuckDB or of the build has to look again at what
 * a failed rollback does (e2e/fault-wal-rollback). */
TEST(test_store_wal_guard__installed)
{
    weir_db *db = NULL;
    weir_error e;
    CHECK_INT(weir__db_open(&db, NULL, &e), 0);
    CHECK(weir__wal_guard_install());
    weir__db_close(db);
}

static int64_t count_rows(weir_conn *c, const char *table)
{
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    int64_t n = -1;
    weir_error e;
    CHECK_INT(weir__conn_scalar_i64(c, sql, &n, NULL, &e), 0);
    return n;
}

TEST(test_store_wal_guard__failed_rollback)
{
    if (!getenv("LD_PRELOAD") || !getenv("WEIR_FAULT_PATH")) {
        fprintf(stderr, "  (skipped: needs the fault shim preloaded)\n");
        return;
    }
    char dir[] = "/tmp/weir-wal-guard-XXXXXX", sql[600];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(sql, sizeof sql, "%s/faulty", dir);
    CHECK_INT(mkdir(sql, 0755), 0);

    weir_db *db = NULL;
    weir_conn *c = NULL;
    weir_error e;
    CHECK_INT(weir__db_open(&db, NULL, &e), 0);
    CHECK_INT(weir__db_connect(&c, db, &e), 0);
    /* A table checkpointed into a file (no WAL), moved to faulty/. */
    snprintf(sql, sizeof sql,
             "ATTACH '%s/x.duckdb' AS h; CREATE TABLE h.t AS "
             "SELECT i FROM range(1000) r(i); CHECKPOINT h; DETACH h",
             dir);
    CHECK_INT(weir__conn_exec(c, sql, NULL, &e), 0);
    char from[300], to[300];
    snprintf(from, sizeof from, "%s/x.duckdb", dir);
    snprintf(to, sizeof to, "%s/faulty/x.duckdb", dir);
    CHECK_INT(rename(from, to), 0);
    snprintf(sql, sizeof sql, "ATTACH '%s' AS x", to);
    CHECK_INT(weir__conn_exec(c, sql, NULL, &e), 0);
    /* A commit whose WAL fsync fails, and then the truncate that would
     * take its bytes back out of the WAL. */
    CHECK_INT(weir__conn_begin(c, &e), 0);
    CHECK_INT(weir__conn_exec(c, "INSERT INTO x.t SELECT i FROM range(100) r(i)",
                              NULL, &e),
              0);
    int rc = weir__conn_exec(c, "COMMIT", NULL, &e);
    CHECK(rc != 0);
    if (rc)
        CHECK_CONTAINS(e.message, "fsync");
    weir__conn_rollback(c);
    CHECK_INT(count_rows(c, "x.t"), 1000);
    /* The disk answers again, but that WAL is not written again. */
    rc = weir__conn_exec(c, "INSERT INTO x.t VALUES (-1)", NULL, &e);
    CHECK(rc != 0);
    CHECK_INT(count_rows(c, "x.t"), 1000);
    weir__conn_close(c);
    weir__db_close_as_is(db);

    /* Opened again: the failed commit's bytes, whole in the WAL (only its
     * fsync failed), replay as the commit they are; the refused insert
     * is not there. */
    CHECK_INT(weir__db_open(&db, NULL, &e), 0);
    CHECK_INT(weir__db_connect(&c, db, &e), 0);
    CHECK_INT(weir__conn_exec(c, sql, NULL, &e), 0);
    CHECK_INT(count_rows(c, "x.t"), 1100);
    CHECK_INT(count_rows(c, "x.t WHERE i < 0"), 0);
    weir__conn_close(c);
    weir__db_close(db);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

TEST_MAIN(RUN(test_store_wal_guard__installed);
          RUN(test_store_wal_guard__failed_rollback);)
