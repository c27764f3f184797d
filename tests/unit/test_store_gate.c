/*
 * A failed commit while other connections scan the same metadata table
 * (store/db.c, the gate). DuckDB 1.4 takes back what a commit that could
 * not write its WAL appended, and another connection's parallel scan of
 * that table could walk the freed row groups (an ASan SEGV in
 * ColumnData::CheckZonemap, about one round in five without the gate).
 *
 * Run with the I/O fault shim preloaded (tests/CMakeLists.txt sets
 * LD_PRELOAD and WEIR_FAULT_*): every write of a WAL file in a folder
 * named faulty fails with ENOSPC. Each round builds a table in a
 * healthy file, copies the file into faulty/, and has two threads update
 * (and roll back) rows of it while the main thread's commit fails.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/db.h"

#define ROUNDS 12
#define SCANNERS 2

typedef struct {
    weir_db *db;
    atomic_bool stop;
    atomic_int scans;
} shared;

static void *scanner(void *arg)
{
    shared *s = arg;
    weir_conn *c = NULL;
    weir_error e;
    if (weir__db_connect(&c, s->db, &e))
        return NULL;
    for (long i = 0; !atomic_load(&s->stop); i++) {
        char sql[128];
        snprintf(sql, sizeof sql,
                 "UPDATE x._weir.t SET g = g + 1 WHERE flow = 'f%ld'", i % 50);
        if (weir__conn_begin(c, &e) == 0) {
            weir__conn_exec(c, sql, NULL, &e);
            weir__conn_rollback(c);
        }
        atomic_fetch_add(&s->scans, 1);
    }
    weir__conn_close(c);
    return NULL;
}

static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = -1, rc = -1;
    if (in >= 0)
        out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char buf[65536];
    ssize_t n;
    if (out >= 0) {
        while ((n = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)n) != n)
                break;
        rc = n == 0 ? 0 : -1;
    }
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return rc;
}

static void round_once(const char *dir, int round)
{
    char healthy[256], faulty_dir[256], faulty[300], sql[800];
    snprintf(healthy, sizeof healthy, "%s/r%d.duckdb", dir, round);
    snprintf(faulty_dir, sizeof faulty_dir, "%s/faulty", dir);
    snprintf(faulty, sizeof faulty, "%s/r%d.duckdb", faulty_dir, round);
    mkdir(faulty_dir, 0755);

    weir_db *db = NULL;
    weir_conn *c = NULL;
    weir_error e;
    CHECK_INT(weir__db_open(&db, NULL, &e), 0);
    CHECK_INT(weir__db_connect(&c, db, &e), 0);
    snprintf(sql, sizeof sql,
             "ATTACH '%s' AS h; CREATE SCHEMA h._weir; CREATE TABLE h._weir.t AS SELECT 'f' || (i %% 50) "
             "AS flow, i AS g, 'u' AS u FROM range(200000) r(i); "
             "CHECKPOINT h; DETACH h",
             healthy);
    CHECK_INT(weir__conn_exec(c, sql, NULL, &e), 0);
    CHECK_INT(copy_file(healthy, faulty), 0);
    snprintf(sql, sizeof sql, "ATTACH '%s' AS x", faulty);
    CHECK_INT(weir__conn_exec(c, sql, NULL, &e), 0);

    shared s = { .db = db };
    atomic_init(&s.stop, false);
    atomic_init(&s.scans, 0);
    pthread_t th[SCANNERS];
    for (int i = 0; i < SCANNERS; i++)
        pthread_create(&th[i], NULL, scanner, &s);
    while (atomic_load(&s.scans) < 4) {
        struct timespec nap = { 0, 1000000 };
        nanosleep(&nap, NULL);
    }
    /* The commit appends 3000 rows and updates others, and cannot write
     * its WAL. */
    CHECK_INT(weir__conn_begin(c, &e), 0);
    CHECK_INT(weir__conn_exec(c,
                              "UPDATE x._weir.t SET g = -g WHERE flow = 'f7'; "
                              "INSERT INTO x._weir.t SELECT 'new', i, 'u' FROM "
                              "range(3000) r(i)",
                              NULL, &e),
              0);
    int rc = weir__conn_exec_alone(c, "COMMIT", &e);
    CHECK(rc != 0);
    if (rc)
        CHECK_CONTAINS(e.message, "No space left");
    weir__conn_rollback(c);
    atomic_store(&s.stop, true);
    for (int i = 0; i < SCANNERS; i++)
        pthread_join(th[i], NULL);
    weir__conn_close(c);
    weir__db_close(db);
}

TEST(test_store_gate__failed_commit_beside_scans)
{
    const char *pattern = getenv("WEIR_FAULT_PATH");
    if (!pattern || !getenv("LD_PRELOAD")) {
        fprintf(stderr, "  (skipped: needs the fault shim preloaded)\n");
        return;
    }
    char dir[] = "/tmp/weir-gate-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    for (int r = 0; r < ROUNDS; r++)
        round_once(dir, r);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

TEST_MAIN(RUN(test_store_gate__failed_commit_beside_scans);)
