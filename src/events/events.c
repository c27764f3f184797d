/*
 * Event queue, persistence and delivery (see events.h), and the live
 * progress file that mirrors a running update's events for `weir ui`.
 */
#include "events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/vec.h"

typedef struct queued {
    char id[37];
    int64_t ts;
    int64_t sequence;
    weir_level level;
    char *event_type, *message, *flow, *dataset, *details, *error, *path;
    unsigned line;
} queued;

struct weir_eventlog {
    weir_storage *st; /* NULL: events are not stored */
    char update_id[40];
    weir_event_fn cb;
    void *payload;
    pthread_mutex_t lock;
    WEIR_VEC(queued) q;
    int64_t next_sequence;
    WEIR_VEC(queued) unsaved; /* delivered, not yet stored */
    int64_t saved_at;         /* monotonic time of the last store */
    bool lost;                /* a store failed: some events are missing */
    weir_error lost_err;
    char *progress_path; /* the live progress file, or NULL */
    int progress_fd;     /* -1 when not written (any more) */
};

static const char *level_name(weir_level l)
{
    switch (l) {
    case WEIR_LEVEL_WARN: return "WARN";
    case WEIR_LEVEL_ERROR: return "ERROR";
    case WEIR_LEVEL_METRICS: return "METRICS";
    default: return "INFO";
    }
}

/* --- The live progress file (docs/ui.md, "Following a run") -------------
 * One JSON object per line: a header naming the update and the process,
 * then each event as it is stored. Written by the update only, with one
 * write per batch of events, and removed when the log closes (after the
 * update's record is written). Best effort: when it cannot be written, it
 * is removed and a WARN event says so; the update goes on. */

static void progress_stop(weir_eventlog *log, const char *what, int errnum)
{
    if (log->progress_fd >= 0) {
        close(log->progress_fd);
        unlink(log->progress_path);
    }
    log->progress_fd = -1;
    if (!what)
        return;
    weir_event_spec spec = { .level = WEIR_LEVEL_WARN,
                             .event_type = "user_action" };
    weir__eventlog_emit(log, &spec,
                        "The live progress of this update for `weir ui` "
                        "cannot be %s %s: %s. The update goes on without it.",
                        what, log->progress_path, strerror(errnum));
}

static void progress_write(weir_eventlog *log, const weir_buf *b)
{
    if (b->failed) {
        progress_stop(log, "written to", ENOMEM);
        return;
    }
    const char *at = b->ptr;
    size_t left = b->len;
    while (left) {
        ssize_t n = write(log->progress_fd, at, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            progress_stop(log, "written to", n < 0 ? errno : ENOSPC);
            return;
        }
        at += n;
        left -= (size_t)n;
    }
}

static void progress_start(weir_eventlog *log, const char *path)
{
    log->progress_fd = -1;
    if (!path)
        return;
    log->progress_path = strdup(path);
    if (!log->progress_path)
        return;
    log->progress_fd =
        open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (log->progress_fd < 0) {
        progress_stop(log, "created at", errno);
        return;
    }
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_puts(&b, "{\"weir_progress\": 1, \"update_id\": ");
    weir__buf_put_json_string(&b, log->update_id);
    weir__buf_printf(&b, ", \"pid\": %ld, \"started_at_us\": %lld}\n",
                     (long)getpid(), (long long)weir__now_us());
    progress_write(log, &b);
    weir__buf_free(&b);
}

static void put_json_or_null(weir_buf *b, const char *json)
{
    weir__buf_puts(b, json ? json : "null");
}

/* Append items to the progress file, one line each. */
static void progress_append(weir_eventlog *log, const queued *items, size_t n)
{
    if (log->progress_fd < 0 || !n)
        return;
    weir_buf b = WEIR_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const queued *e = &items[i];
        weir__buf_printf(&b, "{\"sequence\": %lld, \"timestamp_us\": %lld, "
                             "\"level\": \"%s\", \"event_type\": ",
                         (long long)e->sequence, (long long)e->ts,
                         level_name(e->level));
        weir__buf_put_json_string(&b, e->event_type);
        weir__buf_puts(&b, ", \"message\": ");
        weir__buf_put_json_string(&b, e->message);
        weir__buf_puts(&b, ", \"flow_name\": ");
        weir__buf_put_json_string(&b, e->flow);
        weir__buf_puts(&b, ", \"dataset_name\": ");
        weir__buf_put_json_string(&b, e->dataset);
        weir__buf_puts(&b, ", \"details\": ");
        put_json_or_null(&b, e->details);
        weir__buf_puts(&b, ", \"error\": ");
        put_json_or_null(&b, e->error);
        weir__buf_puts(&b, ", \"origin\": ");
        if (e->path) {
            weir__buf_puts(&b, "{\"path\": ");
            weir__buf_put_json_string(&b, e->path);
            weir__buf_printf(&b, ", \"line\": %u}", e->line);
        } else {
            weir__buf_puts(&b, "null");
        }
        weir__buf_puts(&b, "}\n");
    }
    progress_write(log, &b);
    weir__buf_free(&b);
}

int weir__eventlog_open(weir_eventlog **out, weir_storage *st,
                        const char *update_id, const char *progress_path,
                        weir_event_fn cb, void *payload, weir_error *err)
{
    *out = NULL;
    weir_eventlog *log = calloc(1, sizeof(*log));
    if (!log)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    log->st = st;
    snprintf(log->update_id, sizeof(log->update_id), "%s", update_id);
    log->cb = cb;
    log->payload = payload;
    log->progress_fd = -1;
    pthread_mutex_init(&log->lock, NULL);
    if (st) {
        int64_t max = 0;
        bool null;
        int rc = weir__conn_scalar_i64(
            st->conn, "SELECT max(sequence) FROM weir.main.event_log", &max,
            &null,
            err);
        if (rc) {
            weir__eventlog_close(log);
            return rc;
        }
        log->next_sequence = null ? 0 : max + 1;
    }
    /* The first store comes like the others, 250 ms on (a short update's
     * events are stored once, by weir__eventlog_sync). */
    log->saved_at = weir__monotonic_us();
    progress_start(log, progress_path);
    *out = log;
    return 0;
}

static void free_queued(queued *e)
{
    free(e->event_type);
    free(e->message);
    free(e->flow);
    free(e->dataset);
    free(e->details);
    free(e->error);
    free(e->path);
}

static int persist(weir_eventlog *log, const queued *items, size_t n,
                   weir_error *err);

/* Store what was delivered but not stored yet. A failure is remembered
 * (weir__eventlog_sync reports it); the events stay delivered. */
static int save(weir_eventlog *log)
{
    int rc = 0;
    progress_append(log, log->unsaved.items, log->unsaved.len);
    if (log->st && log->unsaved.len) {
        rc = persist(log, log->unsaved.items, log->unsaved.len, &log->lost_err);
        log->lost |= rc != 0;
    }
    for (size_t i = 0; i < log->unsaved.len; i++)
        free_queued(&log->unsaved.items[i]);
    log->unsaved.len = 0;
    log->saved_at = weir__monotonic_us();
    return rc;
}

void weir__eventlog_close(weir_eventlog *log)
{
    if (!log)
        return;
    weir__eventlog_flush(log, NULL);
    save(log);
    progress_stop(log, NULL, 0);
    free(log->progress_path);
    WEIR_VEC_FREE(&log->unsaved);
    for (size_t i = 0; i < log->q.len; i++)
        free_queued(&log->q.items[i]);
    WEIR_VEC_FREE(&log->q);
    pthread_mutex_destroy(&log->lock);
    free(log);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void weir__error_to_json(weir_buf *out, const weir_error *e)
{
    weir__buf_puts(out, "{\"class\": ");
    weir__buf_put_json_string(out, e->error_class[0] ? e->error_class : NULL);
    weir__buf_puts(out, ", \"message\": ");
    weir__buf_put_json_string(out, e->message);
    if (e->path[0]) {
        weir__buf_puts(out, ", \"path\": ");
        weir__buf_put_json_string(out, e->path);
        weir__buf_printf(out, ", \"line\": %u, \"column\": %u", e->line,
                         e->column);
    }
    weir__buf_putc(out, '}');
}

void weir__eventlog_emit(weir_eventlog *log, const weir_event_spec *spec,
                         const char *fmt, ...)
{
    queued e;
    memset(&e, 0, sizeof(e));
    weir__uuid(e.id);
    e.ts = spec->timestamp_us ? spec->timestamp_us : weir__now_us();
    e.level = spec->level;
    weir_buf msg = WEIR_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    char small[1024];
    vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    weir__buf_puts(&msg, small);
    e.message = weir__buf_detach(&msg);
    e.event_type = dup_or_null(spec->event_type);
    e.flow = dup_or_null(spec->flow_name);
    e.dataset = dup_or_null(spec->dataset_name);
    e.details = strdup(spec->details_json ? spec->details_json : "{}");
    e.path = dup_or_null(spec->source_path);
    e.line = spec->source_line;
    if (spec->error) {
        weir_buf b = WEIR_BUF_INIT;
        weir__error_to_json(&b, spec->error);
        e.error = weir__buf_detach(&b);
    }
    pthread_mutex_lock(&log->lock);
    e.sequence = log->next_sequence++;
    if (WEIR_VEC_PUSH(&log->q, e))
        free_queued(&e); /* out of memory: the event is lost */
    pthread_mutex_unlock(&log->lock);
}

/* Stored with DuckDB's appender: a VALUES list cost about half a
 * millisecond per event to parse and bind (bench/RESULTS.md). */
static int persist(weir_eventlog *log, const queued *items, size_t n,
                   weir_error *err)
{
    weir_appender *a;
    int rc = weir__storage_write_wait(log->st, err);
    if (rc)
        return rc;
    rc = weir__appender_open(&a, log->st->conn, "weir", "main", "event_log",
                             err);
    for (size_t i = 0; !rc && i < n; i++) {
        const queued *e = &items[i];
        weir__appender_text(a, e->id);
        weir__appender_text(a, log->update_id);
        weir__appender_i64(a, e->sequence);
        weir__appender_timestamp_us(a, e->ts);
        weir__appender_text(a, level_name(e->level));
        weir__appender_text(a, e->event_type);
        weir__appender_text(a, e->message);
        weir__appender_text(a, e->flow);
        weir__appender_text(a, e->dataset);
        weir__appender_text(a, e->details);
        weir__appender_text(a, e->error);
        if (e->path) {
            weir_buf o = WEIR_BUF_INIT;
            weir__buf_puts(&o, "{\"path\": ");
            weir__buf_put_json_string(&o, e->path);
            weir__buf_printf(&o, ", \"line\": %u}", e->line);
            weir__appender_text(a, o.failed ? NULL : weir__buf_cstr(&o));
            weir__buf_free(&o);
        } else {
            weir__appender_text(a, NULL);
        }
        weir__appender_end_row(a);
    }
    int rc2 = rc ? 0 : weir__appender_close(a, err);
    return rc ? rc : rc2;
}

int weir__eventlog_flush(weir_eventlog *log, weir_error *err)
{
    (void)err; /* storage failures are reported by weir__eventlog_sync */
    pthread_mutex_lock(&log->lock);
    queued *items = log->q.items;
    size_t n = log->q.len;
    log->q.items = NULL;
    log->q.len = log->q.cap = 0;
    pthread_mutex_unlock(&log->lock);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const queued *e = &items[i];
        if (log->cb) {
            weir_event ev;
            memset(&ev, 0, sizeof(ev));
            ev.id = e->id;
            ev.update_id = log->update_id;
            ev.timestamp_us = e->ts;
            ev.level = e->level;
            ev.event_type = e->event_type;
            ev.message = e->message;
            ev.flow_name = e->flow;
            ev.dataset_name = e->dataset;
            ev.details_json = e->details;
            ev.error_json = e->error;
            ev.source_path = e->path;
            ev.source_line = e->line;
            log->cb(&ev, log->payload);
        }
        if (WEIR_VEC_PUSH(&log->unsaved, items[i]))
            free_queued(&items[i]);
    }
    free(items);
    /* Stored in batches (one transaction each), at least every 250 ms. */
    if (log->unsaved.len >= 512 ||
        (log->unsaved.len && weir__monotonic_us() - log->saved_at > 250000))
        rc = save(log);
    return rc;
}

int weir__eventlog_sync(weir_eventlog *log, weir_error *err)
{
    weir__eventlog_flush(log, err);
    save(log);
    if (log->lost) {
        weir__error_copy(err, &log->lost_err);
        return log->lost_err.code ? log->lost_err.code : WEIR_EIO;
    }
    return 0;
}
