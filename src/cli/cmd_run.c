/*
 * `weir run`: load the pipeline and run an update, printing what
 * spark-pipelines prints (timestamped loading messages, then every event).
 * Refresh options are comma-separated lists that accumulate over repeated
 * flags; --full-refresh-all conflicts with the other two exactly as in
 * Spark's CLI. The exit code says whether the update COMPLETED.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct run_args {
    const char *spec;
    strlist refresh, full_refresh;
    bool full_refresh_all, json, quiet;
    int64_t sample; /* --sample N; 0 = a normal run */
    const char *remote; /* --remote sc://...; NULL = run here */
    load_args load;
} run_args;

enum { O_SPEC, O_REFRESH, O_FULL_REFRESH, O_FULL_REFRESH_ALL, O_JSON, O_QUIET,
       O_CONF, O_ENV, O_SAMPLE, O_REMOTE };

static const opt_def run_opts[] = {
    { "spec", true },   { "refresh", true }, { "full-refresh", true },
    { "full-refresh-all", false }, { "json", false }, { "quiet", false },
    { "conf", true }, { "env", true }, { "sample", true }, { "remote", true },
    { NULL, false },
};

/* Parse argv into a; returns -1 to go on, or the exit code. */
static int parse(const cli *c, run_args *a, int argc, char **argv)
{
    opt_iter it;
    const char *value = NULL;
    int id;
    bool ok = true;

    opt_init(&it, argv[0], argc, argv);
    while (ok && (id = opt_next(&it, run_opts, &value)) != OPT_END) {
        switch (id) {
        case OPT_HELP: help_command(stdout, "run"); return EXIT_OK;
        case OPT_ERROR: return EXIT_USAGE;
        case OPT_POSITIONAL: return opt_unexpected(&it, value);
        case O_SPEC: a->spec = value; break;
        case O_REFRESH: ok = strlist_add_csv(&a->refresh, value); break;
        case O_FULL_REFRESH: ok = strlist_add_csv(&a->full_refresh, value); break;
        case O_FULL_REFRESH_ALL: a->full_refresh_all = true; break;
        case O_JSON: a->json = true; break;
        case O_QUIET: a->quiet = true; break;
        case O_ENV: a->load.env = value; break;
        case O_REMOTE:
            if (!remote_uri_check(c, value))
                return EXIT_USAGE;
            a->remote = value;
            break;
        case O_SAMPLE: {
            char *end = NULL;
            long long n = strtoll(value, &end, 10);
            if (!*value || *end || n < 1 || n > 1000000000000LL) {
                print_error(c, "--sample expects a number of rows from 1 to "
                               "10^12, got '%s'",
                            value);
                return EXIT_USAGE;
            }
            a->sample = (int64_t)n;
            break;
        }
        case O_CONF: {
            int code = load_args_conf(c, &a->load, value);
            if (code >= 0)
                return code;
            break;
        }
        default: break;
        }
    }
    if (!ok) {
        print_error(c, "out of memory");
        return EXIT_FAILED;
    }
    if (a->remote && a->sample > 0) {
        print_error(c, "--sample runs here only; it cannot be combined with "
                       "--remote");
        return EXIT_USAGE;
    }
    return -1;
}

/* Spark's client-side check (cli.py run()), with its error class and
 * option spelling ("--full_refresh"). */
static int check_conflicts(const cli *c, const run_args *a)
{
    const char *option = NULL;
    weir_error e;

    if (!a->full_refresh_all)
        return -1;
    if (a->full_refresh.len > 0)
        option = "--full_refresh";
    else if (a->refresh.len > 0)
        option = "--refresh";
    if (!option)
        return -1;
    memset(&e, 0, sizeof e);
    e.code = WEIR_EINVAL;
    snprintf(e.error_class, sizeof e.error_class, "%s",
             "CONFLICTING_PIPELINE_REFRESH_OPTIONS");
    snprintf(e.message, sizeof e.message,
             "--full-refresh-all option conflicts with %s. The "
             "--full-refresh-all option performs a full refresh of all "
             "datasets, so specifying individual datasets with %s is not "
             "allowed.",
             option, option);
    print_diagnostic(c, &e);
    return EXIT_USAGE;
}

/* The run options of a's refresh flags. */
static void refresh_options(weir_run_options *ro, const run_args *a)
{
    ro->full_refresh_all = a->full_refresh_all;
    ro->refresh = (const char *const *)a->refresh.items;
    ro->n_refresh = a->refresh.len;
    ro->full_refresh = (const char *const *)a->full_refresh.items;
    ro->n_full_refresh = a->full_refresh.len;
}

/* How a's events are printed: --json, --quiet, or as text. */
static event_mode events_mode(const run_args *a)
{
    return a->json ? EVENTS_JSON : a->quiet ? EVENTS_QUIET : EVENTS_TEXT;
}

static int start_remote(const cli *c, const run_args *a, project *p)
{
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    refresh_options(&ro, a);
    return run_remote(c, p, a->remote, &ro, events_mode(a));
}

static int start(const cli *c, const run_args *a, project *p)
{
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    weir_run_result result;
    weir_error err;
    event_printer ep;

    if (p->log)
        print_logline(p->log, "Starting run...");
    if (p->log && a->sample > 0) {
        const char *st = weir_pipeline_storage(p->pipeline);
        print_logline(p->log,
                      "Sample run: at most %lld rows of each external input, "
                      "written to %s-sample",
                      (long long)a->sample, st ? st : "(no storage)");
        if (st)
            print_logline(p->log,
                          "Sample run: sinks write below %s-sample/outputs "
                          "and Kafka sinks to its local topics, never to "
                          "their destinations",
                          st);
    }
    event_printer_init(&ep, c, events_mode(a));
    refresh_options(&ro, a);
    ro.sample_rows = a->sample;
    event_printer_attach(&ep, &ro);
    interrupt_guard ig;
    volatile int *interrupted = interrupt_catch(&ig);
    ro.cancel = interrupted;
    memset(&result, 0, sizeof result);
    memset(&err, 0, sizeof err);
    int rc = weir_pipeline_start_run(p->pipeline, &ro, &result, &err);
    interrupt_release(&ig);
    event_printer_finish(&ep);
    if (rc != 0) {
        print_failure(c, p->pipeline, rc, &err);
        if (a->json)
            print_failure_json(stdout, p->pipeline, rc, &err);
        return exit_code_for(rc);
    }
    return result.state == WEIR_RUN_COMPLETED ? EXIT_OK : EXIT_FAILED;
}

int cmd_run(const cli *c, int argc, char **argv)
{
    run_args a;
    project p;
    int code;

    memset(&a, 0, sizeof a);
    code = parse(c, &a, argc, argv);
    if (code < 0)
        code = check_conflicts(c, &a);
    if (code < 0) {
        FILE *log = a.quiet ? NULL : a.json ? stderr : stdout;
        code = project_open_with(&p, c, a.spec, &a.load, log,
                                 a.json ? stdout : NULL);
        if (code == EXIT_OK && a.remote)
            code = start_remote(c, &a, &p);
        else if (code == EXIT_OK)
            code = project_define_python(&p, a.json ? stdout : NULL);
        if (code == EXIT_OK && !a.remote)
            code = start(c, &a, &p);
        project_close(&p);
    }
    strlist_free(&a.refresh);
    strlist_free(&a.full_refresh);
    load_args_free(&a.load);
    return code;
}
