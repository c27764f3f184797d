/*
 * The UI's HTTP server (libmicrohttpd): serves the pages of the current
 * snapshot read-only on a fixed set of routes, to requests that present the
 * session token, and follows the storage in a refresh thread: when
 * weir.duckdb (or its WAL) changes, or the last read found the storage held
 * by an update, the loader builds a new snapshot. Rendered pages are cached
 * per snapshot generation. Graphviz is not thread-safe, so rendering is
 * serialized under the server's mutex.
 *
 * Routes (GET and HEAD only; anything else is 404, or 405 for other
 * methods): "/" [?update=ID], "/dataset?name=NAME[&update=ID]", "/ui.js",
 * "/api/state". No route maps to a file: the URL never names a path.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "ui/gate.h"
#include "ui/ui.h"

#define CACHE_SLOTS 32
#define MAX_CONNECTIONS 256
/* Per address, unless the address is loopback: there every local user
 * shares it, and the gate tells them apart. */
#define MAX_PER_ADDRESS 64
#define POOL_THREADS 4
#define CONNECTION_TIMEOUT_S 10 /* idle, with the token or not */
#define AUTH_MS 10000 /* until a request with the token (gate.c) */
#define CONNECTION_MEMORY (64 * 1024)
#define COOKIE "weir_ui"

typedef struct cache_slot {
    char *key; /* route and arguments */
    char *body;
    size_t len;
} cache_slot;

typedef struct signature {
    long long mtime_ns[2];
    long long size[2];
} signature;

struct ui_server {
    struct MHD_Daemon *daemon;
    ui_gate *gate;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    pthread_t refresher;
    bool refresher_started, stop;
    ui_snapshot *snap;
    uint64_t generation;
    char *token, *watch;
    ui_loader_fn load;
    void *load_payload;
    unsigned poll_ms;
    unsigned port;
    signature sig;
    long long progress_sig[2]; /* mtime and size of the live progress file */
    cache_slot cache[CACHE_SLOTS];
    size_t cache_next;
};

/* --- Following the storage ----------------------------------------------- */

static void read_signature(const char *dir, signature *out)
{
    static const char *const files[2] = { "weir.duckdb", "weir.duckdb.wal" };
    memset(out, 0, sizeof *out);
    for (int i = 0; dir && i < 2; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (stat(path, &st) == 0) {
            out->mtime_ns[i] =
                (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
            out->size[i] = (long long)st.st_size;
        }
    }
}

/* Whether an update still holds the storage's lock (storage.md, "Locking"):
 * checked before loading again after a busy read, so that a long run is
 * not met with a dry run of the whole pipeline every poll. The probe takes
 * the lock for an instant only when nobody holds it. */
static bool still_busy(const char *dir)
{
    char path[4096];
    ui_storage_path(path, sizeof path, dir, "weir.lock");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool busy = flock(fd, LOCK_SH | LOCK_NB) != 0;
    close(fd); /* releases the probe's lock */
    return busy;
}

static void cache_clear(ui_server *s)
{
    for (size_t i = 0; i < CACHE_SLOTS; i++) {
        free(s->cache[i].key);
        free(s->cache[i].body);
        memset(&s->cache[i], 0, sizeof s->cache[i]);
    }
}

/* While an update holds the storage, follow its live progress file
 * (mutex held): read it again when it changed (or when forced). */
static void follow(ui_server *s, bool force)
{
    char path[4096];
    struct stat st;
    long long sig[2] = { 0, 0 };
    ui_storage_path(path, sizeof path, s->watch, WEIR_PROGRESS_FILE);
    if (stat(path, &st) == 0) {
        sig[0] = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        sig[1] = (long long)st.st_size;
    }
    if (!force && !memcmp(sig, s->progress_sig, sizeof sig))
        return;
    memcpy(s->progress_sig, sig, sizeof sig);
    if (ui_snapshot_follow(s->snap)) {
        s->generation++;
        cache_clear(s);
    }
}

/* Take a new snapshot (mutex held; released while loading). */
static void refresh(ui_server *s)
{
    ui_snapshot *next = NULL;
    signature sig;
    read_signature(s->watch, &sig);
    pthread_mutex_unlock(&s->mu);
    int code = s->load(s->load_payload, &next);
    pthread_mutex_lock(&s->mu);
    if (code != 0 || !next)
        return;
    if (next->busy) {
        /* Keep showing what was read last, with the reason it is old. */
        bool was_busy = s->snap->busy != NULL;
        s->snap->busy = weir__arena_strdup(&s->snap->arena, next->busy);
        ui_snapshot_free(next);
        if (!was_busy) {
            s->generation++;
            cache_clear(s);
        }
        follow(s, true);
        return;
    }
    ui_snapshot_free(s->snap);
    s->snap = next;
    s->sig = sig;
    s->generation++;
    cache_clear(s);
}

static void *refresher(void *arg)
{
    ui_server *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += s->poll_ms / 1000;
        until.tv_nsec += (long)(s->poll_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->wake, &s->mu, &until);
        if (s->stop)
            break;
        signature now;
        read_signature(s->watch, &now);
        bool changed = memcmp(&now, &s->sig, sizeof now) != 0;
        if (s->snap->busy ? !still_busy(s->watch) : changed)
            refresh(s);
        else if (s->snap->busy)
            follow(s, false);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* --- Requests -------------------------------------------------------------- */

/* Compare without stopping at the first difference. */
static bool same(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    unsigned char diff = (unsigned char)(na != nb);
    for (size_t i = 0; i < nb; i++)
        diff |= (unsigned char)((i < na ? a[i] : 0) ^ b[i]);
    return diff == 0;
}

/* The token the request presents matches: 1 by cookie or header, 2 by the
 * query (then the response sets the cookie), 0 not at all. */
static int authorized(const ui_server *s, struct MHD_Connection *c)
{
    const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    const char *k = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, COOKIE);
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_AUTHORIZATION);
    if (k && same(k, s->token))
        return 1;
    if (h && strncmp(h, "Bearer ", 7) == 0 && same(h + 7, s->token))
        return 1;
    if (q && same(q, s->token))
        return 2;
    return 0;
}

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status,
                            const char *type, char *body, size_t len,
                            const ui_server *s, bool set_cookie)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'none'; script-src 'self'; "
                            "style-src 'unsafe-inline'; img-src 'self' data:; "
                            "connect-src 'self'; base-uri 'none'; "
                            "form-action 'none'; frame-ancestors 'none'");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    if (set_cookie) {
        char cookie[700];
        snprintf(cookie, sizeof cookie,
                 COOKIE "=%s; Path=/; HttpOnly; SameSite=Strict", s->token);
        MHD_add_response_header(r, MHD_HTTP_HEADER_SET_COOKIE, cookie);
    }
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status,
                                 const char *text, const ui_server *s)
{
    char *body = strdup(text);
    return body ? respond(c, status, "text/plain; charset=utf-8", body,
                       strlen(body), s, false)
                : MHD_NO;
}

/* A cached copy of the page for key, or NULL (mutex held). */
static char *cached(ui_server *s, const char *key, size_t *len)
{
    for (size_t i = 0; i < CACHE_SLOTS; i++)
        if (s->cache[i].key && strcmp(s->cache[i].key, key) == 0) {
            char *copy = malloc(s->cache[i].len + 1);
            if (copy)
                memcpy(copy, s->cache[i].body, s->cache[i].len + 1);
            *len = s->cache[i].len;
            return copy;
        }
    return NULL;
}

static void remember(ui_server *s, const char *key, const weir_buf *page)
{
    cache_slot *slot = &s->cache[s->cache_next];
    s->cache_next = (s->cache_next + 1) % CACHE_SLOTS;
    free(slot->key);
    free(slot->body);
    slot->key = strdup(key);
    slot->body = malloc(page->len + 1);
    slot->len = page->len;
    if (!slot->key || !slot->body) {
        free(slot->key);
        free(slot->body);
        memset(slot, 0, sizeof *slot);
        return;
    }
    memcpy(slot->body, weir__buf_cstr(page), page->len + 1);
}

/* Render route (mutex held): 200 with the page in *body, or 404. */
static unsigned render(ui_server *s, bool dataset, const char *name,
                       const char *update, char **body, size_t *len)
{
    const ui_snapshot *snap = s->snap;
    size_t d = SIZE_MAX;
    if (update && !ui_snapshot_update(snap, update))
        return MHD_HTTP_NOT_FOUND;
    if (dataset) {
        d = ui_snapshot_dataset(snap, name);
        if (d == SIZE_MAX || !snap->datasets[d].kind)
            return MHD_HTTP_NOT_FOUND;
    }
    weir_buf key = WEIR_BUF_INIT;
    weir__buf_printf(&key, "%c\n%s\n%s", dataset ? 'd' : 'o',
                     name ? name : "", update ? update : "");
    if (key.failed)
        return MHD_HTTP_INTERNAL_SERVER_ERROR;
    *body = cached(s, weir__buf_cstr(&key), len);
    if (!*body) {
        weir_buf page = WEIR_BUF_INIT;
        if (dataset)
            ui_page_dataset(&page, snap, d, update, s->generation);
        else
            ui_page_overview(&page, snap, update, UI_SERVER, s->generation);
        if (!page.failed)
            remember(s, weir__buf_cstr(&key), &page);
        *len = page.len;
        *body = page.failed ? NULL : weir__buf_detach(&page);
        weir__buf_free(&page);
    }
    weir__buf_free(&key);
    return *body ? MHD_HTTP_OK : MHD_HTTP_INTERNAL_SERVER_ERROR;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
                              const char *url, const char *method,
                              const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
    ui_server *s = cls;
    (void)version;
    (void)upload_data;
    (void)con_cls;
    if (*upload_data_size)
        return send_text(c, MHD_HTTP_CONTENT_TOO_LARGE, "no request bodies\n", s);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "read-only\n", s);
    int auth = authorized(s, c);
    if (!auth)
        return send_text(c, MHD_HTTP_UNAUTHORIZED,
                         "this page needs the token printed by `weir ui`\n", s);
    ui_gate_admit(s->gate, c);
    bool cookie = auth == 2;
    if (strcmp(url, "/ui.js") == 0) {
        char *body = strdup(ui_script);
        return body ? respond(c, MHD_HTTP_OK, "text/javascript; charset=utf-8",
                           body, strlen(body), s, cookie)
                    : MHD_NO;
    }
    bool overview = strcmp(url, "/") == 0, dataset = strcmp(url, "/dataset") == 0;
    bool state = strcmp(url, "/api/state") == 0;
    if (!overview && !dataset && !state)
        return send_text(c, MHD_HTTP_NOT_FOUND, "not found\n", s);
    const char *update = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                                     "update");
    const char *name = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "name");
    char *body = NULL;
    size_t len = 0;
    unsigned status = MHD_HTTP_OK;
    pthread_mutex_lock(&s->mu);
    if (state) {
        weir_buf b = WEIR_BUF_INIT;
        weir__buf_printf(&b, "{\"generation\": %" PRIu64 ", \"busy\": ",
                         s->generation);
        weir__buf_put_json_string(&b, ui_snapshot_busy_note(s->snap));
        weir__buf_puts(&b, ", \"running\": ");
        weir__buf_put_json_string(&b, s->snap->live ? s->snap->updates[0].id
                                                    : NULL);
        weir__buf_printf(&b, ", \"updates\": %zu}\n", s->snap->n_updates);
        len = b.len;
        body = weir__buf_detach(&b);
        status = body ? MHD_HTTP_OK : MHD_HTTP_INTERNAL_SERVER_ERROR;
    } else if (dataset && !name) {
        status = MHD_HTTP_NOT_FOUND;
    } else {
        status = render(s, dataset, name, update, &body, &len);
    }
    pthread_mutex_unlock(&s->mu);
    if (status != MHD_HTTP_OK) {
        free(body);
        return send_text(c, status, status == MHD_HTTP_NOT_FOUND ? "not found\n"
                                                                 : "server error\n",
                         s);
    }
    return respond(c, MHD_HTTP_OK,
                state ? "application/json" : "text/html; charset=utf-8", body,
                len, s, cookie);
}

/* --- Life cycle ------------------------------------------------------------- */

int ui_server_start(ui_server **out, ui_snapshot *first,
                    const ui_server_options *opts, weir_error *err)
{
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *addr = NULL;
    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD;

    *out = NULL;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (opts->port > 65535) {
        ui_snapshot_free(first);
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "port %u is out of range",
                        opts->port);
    }
    if (inet_pton(AF_INET, opts->host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons((uint16_t)opts->port);
        addr = (struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, opts->host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons((uint16_t)opts->port);
        addr = (struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        ui_snapshot_free(first);
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "'%s' is not a numeric IP address", opts->host);
    }
    ui_server *s = calloc(1, sizeof *s);
    if (!s) {
        ui_snapshot_free(first);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->wake, NULL);
    s->snap = first;
    s->generation = 1;
    s->token = strdup(opts->token ? opts->token : "");
    s->watch = opts->watch ? strdup(opts->watch) : NULL;
    s->load = opts->load;
    s->load_payload = opts->load_payload;
    s->poll_ms = opts->poll_ms ? opts->poll_ms : 1000;
    read_signature(s->watch, &s->sig);
    s->gate = ui_gate_new(AUTH_MS);
    if (!s->token || (opts->watch && !s->watch) || !s->gate) {
        ui_server_stop(s);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    bool loopback = (addr == (struct sockaddr *)&v4 &&
                     (ntohl(v4.sin_addr.s_addr) >> 24) == 127) ||
                    (addr == (struct sockaddr *)&v6 &&
                     IN6_IS_ADDR_LOOPBACK(&v6.sin6_addr));
    s->daemon = MHD_start_daemon(
        flags, (uint16_t)opts->port, NULL, NULL, handle, s,
        MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)POOL_THREADS,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)(loopback ? MAX_CONNECTIONS : MAX_PER_ADDRESS),
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
        MHD_OPTION_NOTIFY_CONNECTION, ui_gate_notify, s->gate,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)MAX_CONNECTIONS,
        MHD_OPTION_END);
    if (!s->daemon) {
        ui_server_stop(s);
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot listen on %s port %u",
                        opts->host, opts->port);
    }
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : opts->port;
    if (s->load && pthread_create(&s->refresher, NULL, refresher, s) == 0)
        s->refresher_started = true;
    *out = s;
    return 0;
}

unsigned ui_server_port(const ui_server *s)
{
    return s->port;
}

void ui_server_stop(ui_server *s)
{
    if (!s)
        return;
    if (s->daemon)
        MHD_stop_daemon(s->daemon);
    ui_gate_free(s->gate);
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->mu);
    if (s->refresher_started)
        pthread_join(s->refresher, NULL);
    cache_clear(s);
    ui_snapshot_free(s->snap);
    free(s->token);
    free(s->watch);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
