/*
 * Macros made on first use (store/macros.h): what a statement names is
 * created, with what those macros use; a transaction gets all of them; and
 * several threads may ask at once. tests/CMakeLists.txt also builds this
 * file under ThreadSanitizer (tsan/store_macros), where the threads' calls
 * must not race: the fast path reads "every macro is made" without the lock.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <pthread.h>
#include <stdbool.h>

#include "store/macros.h"

static const char SETUP[] =
    "SET TimeZone = 'UTC';\n"
    "CREATE OR REPLACE TEMP MACRO weir_t_inc(a) AS a + 1;\n"
    "CREATE OR REPLACE TEMP MACRO weir_t_twice(a) AS weir_t_inc(a) * 2;\n"
    "CREATE OR REPLACE TEMP MACRO weir_t_dec(a) AS a - 1;\n";

/* Whether sql runs on a fresh connection of db. */
static bool runs(duckdb_database db, const char *sql)
{
    duckdb_connection c;
    if (duckdb_connect(db, &c) == DuckDBError)
        return false;
    duckdb_result r;
    bool ok = duckdb_query(c, sql, &r) != DuckDBError;
    duckdb_destroy_result(&r);
    duckdb_disconnect(&c);
    return ok;
}

TEST(test_store_macros__on_first_use)
{
    duckdb_database db;
    CHECK(duckdb_open(NULL, &db) != DuckDBError);
    weir_macros *ms = NULL;
    CHECK_INT(weir__macros_new(&ms, db, SETUP), 0);
    CHECK(!runs(db, "SELECT weir_t_dec(1)"));
    /* weir_t_twice, and weir_t_inc that it uses; not weir_t_dec */
    weir__macros_ensure(ms, "SELECT WEIR_T_TWICE(1)");
    CHECK(runs(db, "SELECT weir_t_twice(1)"));
    CHECK(runs(db, "SELECT weir_t_inc(1)"));
    CHECK(!runs(db, "SELECT weir_t_dec(1)"));
    /* a statement that may open a transaction: all of them */
    weir__macros_ensure(ms, "BEGIN; SELECT 1");
    CHECK(runs(db, "SELECT weir_t_dec(1)"));
    weir__macros_ensure(ms, NULL);
    weir__macros_ensure(NULL, "SELECT 1");
    weir__macros_free(ms);
    duckdb_close(&db);
}

typedef struct round_state {
    weir_macros *ms;
    pthread_barrier_t start;
} round_state;

typedef struct asker_arg {
    round_state *rs;
    int who;
} asker_arg;

/* Each thread asks for the macros in turn, "BEGIN" (all of them) too. */
static void *asker(void *arg)
{
    round_state *rs = ((asker_arg *)arg)->rs;
    int who = ((asker_arg *)arg)->who;
    static const char *const SQL[] = { "SELECT weir_t_dec(1)",
                                       "SELECT weir_t_twice(2)",
                                       "SELECT weir_t_inc(3)", "BEGIN" };
    pthread_barrier_wait(&rs->start);
    for (int i = 0; i < 50; i++)
        weir__macros_ensure(rs->ms, SQL[(who + i) % 4]);
    return NULL;
}

TEST(test_store_macros__threads)
{
    enum { THREADS = 4, ROUNDS = 10 };
    for (int round = 0; round < ROUNDS; round++) {
        duckdb_database db;
        CHECK(duckdb_open(NULL, &db) != DuckDBError);
        round_state rs;
        CHECK_INT(weir__macros_new(&rs.ms, db, SETUP), 0);
        pthread_barrier_init(&rs.start, NULL, THREADS);
        pthread_t th[THREADS];
        asker_arg args[THREADS];
        for (int t = 0; t < THREADS; t++) {
            args[t] = (asker_arg){ &rs, t };
            CHECK_INT(pthread_create(&th[t], NULL, asker, &args[t]), 0);
        }
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
        pthread_barrier_destroy(&rs.start);
        CHECK(runs(db, "SELECT weir_t_twice(1) + weir_t_dec(1)"));
        weir__macros_free(rs.ms);
        duckdb_close(&db);
    }
}

TEST_MAIN(RUN(test_store_macros__on_first_use); RUN(test_store_macros__threads);)
