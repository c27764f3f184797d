/*
 * Cancelling a query (weir_pipeline_set_query_cancel): while a query of a
 * pipeline with a cancel callback runs, a watcher thread asks the callback
 * every WATCH_MS; once it says yes, the watcher marks the query stopped
 * (query.c looks at the mark between statements and before every table
 * reference and type probe of the translation) and interrupts DuckDB's
 * statement on the query connection, again at every tick until the query
 * returns, since DuckDB forgets an interrupt that comes before its
 * statement begins. Owns the watcher (one per query, joined at its end).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "api/internal.h"
#include "store/db.h"

#define WATCH_MS 50

struct weir_query_watch {
    bool (*cancelled)(void *payload);
    void *payload;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    bool done;       /* the query returned: the watcher ends */
    weir_conn *conn; /* the connection to interrupt, once the storage is open */
    atomic_bool stop;
    pthread_t thread;
};

static struct timespec in_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += ms * 1000000L;
    t.tv_sec += t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    return t;
}

static void *watch_main(void *arg)
{
    weir_query_watch *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->done) {
        if (atomic_load(&w->stop) || w->cancelled(w->payload)) {
            atomic_store(&w->stop, true);
            if (w->conn)
                weir__conn_interrupt(w->conn);
        }
        struct timespec until = in_ms(WATCH_MS);
        pthread_cond_timedwait(&w->wake, &w->mu, &until);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int weir__query_watch_start(weir_pipeline *p, weir_error *err)
{
    p->qwatch = NULL;
    if (!p->query_cancelled)
        return 0;
    weir_query_watch *w = calloc(1, sizeof *w);
    if (!w)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    w->cancelled = p->query_cancelled;
    w->payload = p->query_cancel_payload;
    /* Asked once before anything runs: a query cancelled already does
     * not start. */
    atomic_init(&w->stop, w->cancelled(w->payload));
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL,
                        "cannot start the thread that watches for a cancel");
    }
    p->qwatch = w;
    return 0;
}

void weir__query_watch_conn(weir_pipeline *p, weir_conn *conn)
{
    weir_query_watch *w = p->qwatch;
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->conn = conn;
    pthread_mutex_unlock(&w->mu);
}

bool weir__query_cancelled(const weir_pipeline *p)
{
    return p->qwatch && atomic_load(&p->qwatch->stop);
}

int weir__query_cancel_error(weir_error *err)
{
    return WEIR_ERR(err, WEIR_ECANCELED, "OPERATION_CANCELED",
                    "Operation has been canceled: the query was stopped "
                    "before it finished.");
}

int weir__query_watch_end(weir_pipeline *p, int rc, weir_error *err)
{
    weir_query_watch *w = p->qwatch;
    if (!w)
        return rc;
    pthread_mutex_lock(&w->mu);
    w->done = true;
    w->conn = NULL;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    /* A statement the interrupt stopped fails with DuckDB's own words. */
    if (rc && rc != WEIR_ECANCELED && atomic_load(&w->stop))
        rc = weir__query_cancel_error(err);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->mu);
    free(w);
    p->qwatch = NULL;
    return rc;
}

int weir_pipeline_set_query_cancel(weir_pipeline *p,
                                   bool (*cancelled)(void *payload),
                                   void *payload)
{
    if (!p)
        return WEIR_EINVAL;
    p->query_cancelled = cancelled;
    p->query_cancel_payload = cancelled ? payload : NULL;
    return 0;
}
