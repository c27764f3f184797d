/*
 * The UI server's bound on connections that have not shown the token
 * (gate.h): libmicrohttpd reports each connection as it starts and
 * closes (MHD_OPTION_NOTIFY_CONNECTION); the gate keeps those that have
 * not sent a request with the token, and ends one (shutdown(2) of its
 * socket, which libmicrohttpd then closes as a connection the client
 * ended) when it has had auth_ms, or when its peer, or everyone, holds too
 * many: the oldest goes first, so a client with the token, which sends it
 * at once, gets in. libmicrohttpd's own options bound the rest: the
 * connection count, per address, and idle time. Owns the connection
 * records and a thread that checks the deadlines.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "ui/gate.h"
#include "util/clock.h"
#include "util/peer.h"

/* Connections without the token, in all and per peer: above what one
 * browser or script opens at once (the e2e/ui load test: 100). */
#define MAX_PENDING 192
#define MAX_PENDING_PER_PEER 128
#define TICK_MS 250

typedef struct gate_conn {
    int fd;
    int64_t born_ms;
    char peer[WEIR_PEER_KEY];
    bool authed, ended;
    struct gate_conn *prev, *next;
} gate_conn;

struct ui_gate {
    pthread_mutex_t mu;
    pthread_cond_t wake;
    pthread_t thread;
    bool started, stop;
    unsigned auth_ms;
    gate_conn *conns;
};

static int64_t now_ms(void)
{
    return weir__monotonic_us() / 1000;
}

/* End a connection: libmicrohttpd sees its client leave and closes it,
 * and reports it closed (under g->mu, so the descriptor is still its). */
static void end(gate_conn *c)
{
    if (!c->ended) {
        c->ended = true;
        shutdown(c->fd, SHUT_RDWR);
    }
}

/* Caller holds g->mu. */
static void check_deadlines(ui_gate *g)
{
    int64_t now = now_ms();
    for (gate_conn *c = g->conns; c; c = c->next)
        if (!c->authed && now - c->born_ms > (int64_t)g->auth_ms)
            end(c);
}

/* Room for a connection from peer (caller holds g->mu): the oldest
 * waiting connection of that peer goes when it holds too many, else the
 * oldest of all when too many wait. */
static void make_room(ui_gate *g, const char *peer)
{
    size_t pending = 0, mine = 0;
    gate_conn *oldest = NULL, *my_oldest = NULL;
    for (gate_conn *c = g->conns; c; c = c->next) {
        if (c->authed || c->ended)
            continue;
        pending++;
        if (!oldest || c->born_ms < oldest->born_ms)
            oldest = c;
        if (strcmp(c->peer, peer) == 0) {
            mine++;
            if (!my_oldest || c->born_ms < my_oldest->born_ms)
                my_oldest = c;
        }
    }
    if (mine >= MAX_PENDING_PER_PEER)
        end(my_oldest);
    else if (pending >= MAX_PENDING)
        end(oldest);
}

void ui_gate_notify(void *cls, struct MHD_Connection *connection,
                    void **socket_context, enum MHD_ConnectionNotificationCode toe)
{
    ui_gate *g = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        gate_conn *c = info ? calloc(1, sizeof *c) : NULL;
        *socket_context = c;
        if (!c)
            return; /* not tracked: libmicrohttpd's own bounds hold it */
        c->fd = info->connect_fd;
        c->born_ms = now_ms();
        weir__peer_key(c->fd, c->peer);
        pthread_mutex_lock(&g->mu);
        check_deadlines(g);
        make_room(g, c->peer);
        c->next = g->conns;
        if (g->conns)
            g->conns->prev = c;
        g->conns = c;
        pthread_mutex_unlock(&g->mu);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
        gate_conn *c = *socket_context;
        pthread_mutex_lock(&g->mu);
        if (c->prev)
            c->prev->next = c->next;
        else
            g->conns = c->next;
        if (c->next)
            c->next->prev = c->prev;
        pthread_mutex_unlock(&g->mu);
        free(c);
        *socket_context = NULL;
    }
}

void ui_gate_admit(ui_gate *g, struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    gate_conn *c = info ? info->socket_context : NULL;
    if (!c)
        return;
    pthread_mutex_lock(&g->mu);
    c->authed = true;
    pthread_mutex_unlock(&g->mu);
}

static void *watch(void *arg)
{
    ui_gate *g = arg;
    pthread_mutex_lock(&g->mu);
    while (!g->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&g->wake, &g->mu, &until);
        check_deadlines(g);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

ui_gate *ui_gate_new(unsigned auth_ms)
{
    ui_gate *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->wake, NULL);
    g->auth_ms = auth_ms;
    if (pthread_create(&g->thread, NULL, watch, g) != 0) {
        ui_gate_free(g);
        return NULL;
    }
    g->started = true;
    return g;
}

void ui_gate_free(ui_gate *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->stop = true;
    pthread_cond_broadcast(&g->wake);
    pthread_mutex_unlock(&g->mu);
    if (g->started)
        pthread_join(g->thread, NULL);
    /* libmicrohttpd has closed every connection by now (its daemon is
     * stopped first), so the list is empty. */
    while (g->conns) {
        gate_conn *c = g->conns;
        g->conns = c->next;
        free(c);
    }
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->mu);
    free(g);
}
