/*
 * The watch of cancellable work (watch.h): its thread, which asks the
 * caller's callback and interrupts the connection named, and the stop
 * mark the work reads. Owns the thread (joined at the end) and the mark.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "store/watch.h"

#define WATCH_MS 50

struct weir_watch {
    bool (*cancelled)(void *payload);
    void *payload;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    bool done;       /* the work ended: the thread ends */
    weir_conn *conn; /* the connection to interrupt */
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
    weir_watch *w = arg;
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

int weir__watch_start(weir_watch **out, bool (*cancelled)(void *payload),
                      void *payload, weir_error *err)
{
    *out = NULL;
    weir_watch *w = calloc(1, sizeof *w);
    if (!w)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    w->cancelled = cancelled;
    w->payload = payload;
    atomic_init(&w->stop, cancelled(payload));
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL,
                        "cannot start the thread that watches for a cancel");
    }
    *out = w;
    return 0;
}

void weir__watch_conn(weir_watch *w, weir_conn *conn)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->conn = conn;
    pthread_mutex_unlock(&w->mu);
}

bool weir__watch_stopped(const weir_watch *w)
{
    return w && atomic_load(&w->stop);
}

bool weir__watch_end(weir_watch *w)
{
    if (!w)
        return false;
    pthread_mutex_lock(&w->mu);
    w->done = true;
    w->conn = NULL;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    bool stopped = atomic_load(&w->stop);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->mu);
    free(w);
    return stopped;
}
