/*
 * Macros made on first use (store/macros.h): what a statement names is
 * created on the statement's own connection, with what those macros use,
 * once per connection; a rollback forgets what it undid; and one set of
 * macros serves connections on several threads at once. tests/CMakeLists.txt
 * also builds this file under ThreadSanitizer (tsan/store_macros), where the
 * threads sharing the set must not race.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "store/macros.h"

static const char SETUP[] =
    "SET TimeZone = 'UTC';\n"
    "CREATE OR REPLACE TEMP MACRO weir_t_inc(a) AS a + 1;\n"
    "CREATE OR REPLACE TEMP MACRO weir_t_twice(a) AS weir_t_inc(a) * 2;\n"
    "CREATE OR REPLACE TEMP MACRO weir_t_dec(a) AS a - 1;\n";

/* Whether sql runs on connection c. */
static bool runs(duckdb_connection c, const char *sql)
{
    duckdb_result r;
    bool ok = duckdb_query(c, sql, &r) != DuckDBError;
    duckdb_destroy_result(&r);
    return ok;
}

TEST(test_store_macros__on_first_use)
{
    duckdb_database db;
    CHECK(duckdb_open(NULL, &db) != DuckDBError);
    duckdb_connection c, other;
    CHECK(duckdb_connect(db, &c) != DuckDBError);
    CHECK(duckdb_connect(db, &other) != DuckDBError);
    weir_macros *ms = NULL;
    CHECK_INT(weir__macros_new(&ms, SETUP), 0);
    bool *made = weir__macros_made_new(ms);
    CHECK(made != NULL);
    CHECK(!runs(c, "SELECT weir_t_dec(1)"));
    /* weir_t_twice, and weir_t_inc that it uses; not weir_t_dec */
    weir__macros_ensure(ms, c, made, "SELECT WEIR_T_TWICE(1)");
    CHECK(runs(c, "SELECT weir_t_twice(1)"));
    CHECK(runs(c, "SELECT weir_t_inc(1)"));
    CHECK(!runs(c, "SELECT weir_t_dec(1)"));
    /* the connection's own: another connection does not see them */
    CHECK(!runs(other, "SELECT weir_t_twice(1)"));
    /* made inside a transaction that rolls back: forgotten, made again */
    CHECK(runs(c, "BEGIN"));
    weir__macros_ensure(ms, c, made, "SELECT weir_t_dec(1)");
    CHECK(runs(c, "SELECT weir_t_dec(1)"));
    CHECK(runs(c, "ROLLBACK"));
    weir__macros_forget(ms, made);
    weir__macros_ensure(ms, c, made, "SELECT weir_t_dec(1)");
    CHECK(runs(c, "SELECT weir_t_dec(1) + weir_t_twice(1)"));
    /* nothing to do */
    weir__macros_ensure(ms, c, made, NULL);
    weir__macros_ensure(NULL, c, made, "SELECT 1");
    weir__macros_ensure(ms, c, NULL, "SELECT 1");
    free(made);
    weir__macros_free(ms);
    duckdb_disconnect(&other);
    duckdb_disconnect(&c);
    duckdb_close(&db);
}

typedef struct round_state {
    const weir_macros *ms;
    duckdb_database db;
    pthread_barrier_t start;
} round_state;

typedef struct asker_arg {
    round_state *rs;
    int who;
    bool ok;
} asker_arg;

/* Each thread, on its own connection, asks for the macros in turn and
 * calls them. */
static void *asker(void *arg)
{
    asker_arg *a = arg;
    static const char *const SQL[] = { "SELECT weir_t_dec(1)",
                                       "SELECT weir_t_twice(2)",
                                       "SELECT weir_t_inc(3)" };
    duckdb_connection c;
    a->ok = duckdb_connect(a->rs->db, &c) != DuckDBError;
    bool *made = weir__macros_made_new(a->rs->ms);
    a->ok = a->ok && made;
    pthread_barrier_wait(&a->rs->start);
    for (int i = 0; a->ok && i < 30; i++) {
        const char *sql = SQL[(a->who + i) % 3];
        weir__macros_ensure(a->rs->ms, c, made, sql);
        a->ok = runs(c, sql);
    }
    free(made);
    duckdb_disconnect(&c);
    return NULL;
}

TEST(test_store_macros__threads)
{
    enum { THREADS = 4, ROUNDS = 5 };
    weir_macros *ms = NULL;
    CHECK_INT(weir__macros_new(&ms, SETUP), 0);
    for (int round = 0; round < ROUNDS; round++) {
        round_state rs = { .ms = ms };
        CHECK(duckdb_open(NULL, &rs.db) != DuckDBError);
        pthread_barrier_init(&rs.start, NULL, THREADS);
        pthread_t th[THREADS];
        asker_arg args[THREADS];
        for (int t = 0; t < THREADS; t++) {
            args[t] = (asker_arg){ &rs, t, false };
            CHECK_INT(pthread_create(&th[t], NULL, asker, &args[t]), 0);
        }
        for (int t = 0; t < THREADS; t++) {
            pthread_join(th[t], NULL);
            CHECK(args[t].ok);
        }
        pthread_barrier_destroy(&rs.start);
        duckdb_close(&rs.db);
    }
    weir__macros_free(ms);
}

TEST_MAIN(RUN(test_store_macros__on_first_use); RUN(test_store_macros__threads);)
