/*
 * Two pipelines in one process: two threads, each with its own pipeline
 * (created from one shared session) on its own storage, define, run
 * several updates, query as text and as Arrow, and drop, all at the same
 * time. Each checks its own results; neither sees the other's tables.
 * Shared mutable state between pipelines would show as wrong results,
 * a sanitizer report or a crash.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <weir.h>

enum { N_THREADS = 2, N_RUNS = 3 };

typedef struct worker {
    int index;
    weir_session *session;
    pthread_barrier_t *start;
    char dir[64];
    int failures;
    char why[2048];
    unsigned events;
    double began, ended; /* seconds, monotonic: the runs overlapped */
} worker;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned log_messages;

/* The session's log callback may run on both threads at once. */
static void on_log(const char *message, void *payload)
{
    (void)message;
    (void)payload;
    pthread_mutex_lock(&log_lock);
    log_messages++;
    pthread_mutex_unlock(&log_lock);
}

static void on_event(const weir_event *e, void *payload)
{
    worker *w = (worker *)payload;
    (void)e;
    w->events++; /* only this worker's thread calls it */
}

#define FAIL_IF(cond, ...)                                                    \
    do {                                                                      \
        if (cond) {                                                           \
            snprintf(w->why, sizeof(w->why), __VA_ARGS__);                    \
            w->failures++;                                                    \
            goto out;                                                         \
        }                                                                     \
    } while (0)

static void write_batch(const worker *w, int run)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/in/batch-%d.json", w->dir, run);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    /* worker i, run r: r + 1 rows with value i */
    for (int k = 0; k <= run; k++)
        fprintf(f, "{\"id\": %d, \"owner\": %d}\n", run * 10 + k, w->index);
    fclose(f);
}

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    weir_error err;
    weir_pipeline *p = NULL;
    char storage[128], in[128];
    snprintf(storage, sizeof(storage), "%s/storage", w->dir);
    snprintf(in, sizeof(in), "%s/in", w->dir);
    mkdir(in, 0755);

    pthread_barrier_wait(w->start);
    w->began = now();
    weir_pipeline_options po = WEIR_PIPELINE_OPTIONS_INIT;
    char db[32];
    snprintf(db, sizeof(db), "db%d", w->index);
    po.database = db;
    po.storage = storage;
    po.root_dir = w->dir;
    int rc = weir_pipeline_create(&p, w->session, &po, &err);
    FAIL_IF(rc, "create: %s", err.message);

    weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
    d.name = "events";
    d.query = "SELECT id, owner FROM STREAM read_files('in', format => 'json')";
    rc = weir_pipeline_create_table(p, &d, NULL, &err);
    FAIL_IF(rc, "create_table: %s", err.message);
    rc = weir_pipeline_define_sql(p,
                                  "CREATE MATERIALIZED VIEW totals AS\n"
                                  "SELECT owner, count(*) AS n FROM events\n"
                                  "GROUP BY owner;\n",
                                  "totals.sql", &err);
    FAIL_IF(rc, "define_sql: %s", err.message);

    for (int run = 0; run < N_RUNS; run++) {
        write_batch(w, run);
        weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
        ro.on_event = on_event;
        ro.event_payload = w;
        weir_run_result r;
        rc = weir_pipeline_start_run(p, &ro, &r, &err);
        FAIL_IF(rc || r.state != WEIR_RUN_COMPLETED, "run %d: %d %s", run, rc,
                err.message);

        /* 1 + 2 + ... + (run + 1) rows, all of this worker. */
        weir_result *res;
        rc = weir_pipeline_query(p, "SELECT owner, n FROM totals", &res, &err);
        FAIL_IF(rc, "query: %s", err.message);
        int want = (run + 1) * (run + 2) / 2;
        char owner[16], n[16];
        snprintf(owner, sizeof(owner), "%d", w->index);
        snprintf(n, sizeof(n), "%d", want);
        bool ok = weir_result_row_count(res) == 1 &&
                  strcmp(weir_result_value(res, 0, 0), owner) == 0 &&
                  strcmp(weir_result_value(res, 1, 0), n) == 0;
        weir_result_free(res);
        FAIL_IF(!ok, "run %d: totals of worker %d are wrong", run, w->index);

        struct ArrowArrayStream st;
        rc = weir_pipeline_query_arrow(p, "SELECT sum(id) AS s FROM events",
                                       &st, &err);
        FAIL_IF(rc, "query_arrow: %s", err.message);
        struct ArrowArray batch;
        int64_t sum = -1;
        if (st.get_next(&st, &batch) == 0 && batch.release) {
            sum = batch.length == 1 ? ((const int64_t *)
                                           batch.children[0]->buffers[1])[0]
                                    : -2;
            batch.release(&batch);
        }
        st.release(&st);
        int64_t want_sum = 0;
        for (int r2 = 0; r2 <= run; r2++)
            for (int k = 0; k <= r2; k++)
                want_sum += r2 * 10 + k;
        FAIL_IF(sum != want_sum, "run %d: sum %lld, expected %lld", run,
                (long long)sum, (long long)want_sum);
    }

    /* The other worker's database is not in this storage. */
    weir_result *res;
    char other[64];
    snprintf(other, sizeof(other), "SELECT * FROM db%d.events",
             1 - w->index);
    rc = weir_pipeline_query(p, other, &res, &err);
    FAIL_IF(rc != WEIR_ESQL, "the other worker's table is visible (%d)", rc);
out:
    w->ended = now();
    weir_pipeline_drop(p);
    return NULL;
}

TEST(test_two_pipelines_two_threads)
{
    weir_session_options so = WEIR_SESSION_OPTIONS_INIT;
    so.on_log = on_log;
    so.threads = 2;
    weir_session *s;
    weir_error err;
    CHECK_INT(weir_session_open(&s, &so, &err), 0);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, N_THREADS);
    worker w[N_THREADS];
    pthread_t t[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        memset(&w[i], 0, sizeof(w[i]));
        w[i].index = i;
        w[i].session = s;
        w[i].start = &start;
        snprintf(w[i].dir, sizeof(w[i].dir), "/tmp/weir-test-threads-XXXXXX");
        CHECK(mkdtemp(w[i].dir) != NULL);
        CHECK_INT(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(t[i], NULL);
        if (w[i].failures)
            fprintf(stderr, "  worker %d: %s\n", i, w[i].why);
        CHECK_INT(w[i].failures, 0);
        CHECK(w[i].events > 0);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", w[i].dir);
        CHECK_INT(system(cmd), 0);
    }
    /* Both were at work at the same time. */
    CHECK(w[0].began < w[1].ended && w[1].began < w[0].ended);
    pthread_barrier_destroy(&start);
    weir_session_close(s);
}

TEST_MAIN(RUN(test_two_pipelines_two_threads);)
