/*
 * `weir run --remote sc://...` and `weir dry-run --remote`: the loaded
 * project runs on a Spark Connect server with Spark Declarative Pipelines
 * (docs/spark.md). weir creates the graph there and sends the SQL files,
 * the Python files define into the same graph through weir's launcher,
 * then StartRun's events are printed as `weir run` prints its own. The
 * exit code is the run's: 0 COMPLETED; 1 FAILED, CANCELED, an error Spark
 * answered or an unreachable server; 2 a bad URI (and for a dry run, a
 * graph Spark refuses).
 */
#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "connect/connect.h"

#define CONNECT_MS 10000

/* mkdir -p; false with errno set. */
static bool make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok)
            return false;
    }
    return mkdir(path, 0755) == 0 || errno == EEXIST;
}

bool remote_state_dir(char *buf, size_t size, const char *uri,
                      const weir_pipeline *p)
{
    weir_remote_uri u;
    if (weir_remote_parse_uri(&u, uri, NULL) != 0)
        return false;
    const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char base[2048];
    if (cache && cache[0] == '/')
        snprintf(base, sizeof base, "%s/weir", cache);
    else if (home && home[0] == '/')
        snprintf(base, sizeof base, "%s/.cache/weir", home);
    else
        return false;
    /* FNV-1a of the spec's path: two projects of the same name keep
     * separate logs. */
    const char *spec = weir_pipeline_spec_path(p);
    uint32_t h = 2166136261u;
    for (const char *s = spec ? spec : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    char host[256];
    size_t k = 0;
    for (const char *s = u.host; *s && k + 1 < sizeof host; s++)
        host[k++] = *s == '/' || *s == ':' ? '_' : *s;
    host[k] = '\0';
    int n = snprintf(buf, size, "%s/remote/%s-%u/%s-%08x", base, host, u.port,
                     weir_pipeline_name(p), (unsigned)h);
    return n > 0 && (size_t)n < size;
}

/* The events of a remote run: printed as they come, and kept to be
 * recorded in the local event log afterwards. */
typedef struct recorder {
    weir_event_fn print;
    void *print_payload;
    weir_event *items;
    size_t n, cap;
} recorder;

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void keep_event(recorder *r, const weir_event *ev, const char *message)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        weir_event *items = realloc(r->items, cap * sizeof *items);
        if (!items)
            return; /* out of memory: the local log misses this event */
        r->items = items;
        r->cap = cap;
    }
    weir_event *e = &r->items[r->n++];
    memset(e, 0, sizeof *e);
    e->update_id = dup_or_null(ev->update_id);
    e->timestamp_us = ev->timestamp_us;
    e->level = ev->level;
    e->event_type = dup_or_null(ev->event_type);
    e->message = dup_or_null(message ? message : ev->message);
    e->flow_name = dup_or_null(ev->flow_name);
    e->dataset_name = dup_or_null(ev->dataset_name);
}

static void on_event(const weir_event *ev, void *payload)
{
    recorder *r = payload;
    if (r->print)
        r->print(ev, r->print_payload);
    keep_event(r, ev, NULL);
}

static void recorder_free(recorder *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free((char *)r->items[i].update_id);
        free((char *)r->items[i].event_type);
        free((char *)r->items[i].message);
        free((char *)r->items[i].flow_name);
        free((char *)r->items[i].dataset_name);
    }
    free(r->items);
}

/* Record the run's events in the local state folder (docs/spark.md), an
 * error the server ended the run with as a last event. */
static void record(project *p, const char *uri, recorder *r, int rc,
                   const weir_error *err)
{
    if (rc && r->n) {
        weir_event last;
        memset(&last, 0, sizeof last);
        last.timestamp_us = r->items[r->n - 1].timestamp_us;
        last.update_id = r->items[r->n - 1].update_id;
        last.level = rc == WEIR_ECANCELED ? WEIR_LEVEL_WARN : WEIR_LEVEL_ERROR;
        last.event_type = "update_progress";
        char text[2048];
        if (rc == WEIR_ECANCELED)
            snprintf(text, sizeof text, "Run is CANCELED.");
        else
            snprintf(text, sizeof text, "Run is FAILED: %s%s%s%s",
                     err->error_class[0] ? "[" : "", err->error_class,
                     err->error_class[0] ? "] " : "", err->message);
        keep_event(r, &last, text);
    }
    char dir[4096];
    if (!r->n || !remote_state_dir(dir, sizeof dir, uri, p->pipeline))
        return;
    weir_error e;
    memset(&e, 0, sizeof e);
    int code = make_dirs(dir) ? weir_pipeline_record_update(p->pipeline, dir,
                                                            r->items, r->n,
                                                            NULL, &e)
                              : WEIR_EIO;
    if (code)
        fprintf(stderr, "weir: warning: the update's events were not "
                        "recorded in %s: %s\n",
                dir, code == WEIR_EIO && !e.message[0] ? strerror(errno)
                                                       : e.message);
}

bool remote_uri_check(const cli *c, const char *uri)
{
    weir_remote_uri u;
    weir_error err;
    memset(&err, 0, sizeof err);
    if (weir_remote_parse_uri(&u, uri, &err) == 0)
        return true;
    print_diagnostic(c, &err);
    return false;
}

/* Print a failed step; its exit code. Spark refusing a dry run's graph
 * is an invalid graph (2), as in a local dry run. */
static int failed(const cli *c, int rc, const weir_error *err, bool json,
                  bool dry)
{
    print_failure(c, NULL, rc, err);
    if (json)
        print_failure_json(stdout, NULL, rc, err);
    return dry && rc == WEIR_EENGINE ? EXIT_USAGE : exit_code_for(rc);
}

int run_remote(const cli *c, project *p, const char *uri, weir_run_options *ro,
               event_mode mode)
{
    bool json = mode == EVENTS_JSON;
    weir_remote *r = NULL;
    weir_error err;
    memset(&err, 0, sizeof err);
    interrupt_guard ig;
    volatile int *interrupted = interrupt_catch(&ig);
    int rc = weir_remote_open(&r, uri, CONNECT_MS, interrupted, &err);
    int code = EXIT_OK;
    if (!rc && p->log) {
        weir_remote_uri u;
        weir_remote_parse_uri(&u, uri, NULL);
        print_logline(p->log, "Creating dataflow graph on Spark Connect "
                              "server %s:%u...",
                      u.host, u.port);
    }
    if (!rc)
        rc = weir_remote_define(r, p->pipeline, &err);
    if (rc)
        code = failed(c, rc, &err, json, ro->dry);
    if (code == EXIT_OK) {
        if (p->log)
            print_logline(p->log, "Dataflow graph created (ID: %s).",
                          weir_remote_graph_id(r));
        code = project_define_python_remote(p, weir_remote_client_uri(r),
                                            weir_remote_graph_id(r),
                                            json ? stdout : NULL);
    }
    if (code == EXIT_OK) {
        event_printer ep;
        weir_run_result result;
        recorder rec;
        memset(&rec, 0, sizeof rec);
        if (p->log)
            print_logline(p->log, "Starting run...");
        event_printer_init(&ep, c, mode);
        event_printer_attach(&ep, ro);
        ro->on_progress = NULL; /* Spark reports no progress snapshots */
        rec.print = ro->on_event;
        rec.print_payload = ro->event_payload;
        ro->on_event = on_event;
        ro->event_payload = &rec;
        rc = weir_remote_start_run(r, p->pipeline, ro, &result, &err);
        event_printer_finish(&ep);
        if (!ro->dry)
            record(p, uri, &rec, rc, &err);
        recorder_free(&rec);
        if (rc)
            code = failed(c, rc, &err, json, ro->dry);
        else if (result.state != WEIR_RUN_COMPLETED)
            code = ro->dry ? EXIT_USAGE : EXIT_FAILED;
    }
    interrupt_release(&ig);
    weir_remote_close(r);
    return code;
}
