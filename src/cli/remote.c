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
#include <string.h>

#include "cli.h"
#include "connect/connect.h"

#define CONNECT_MS 10000

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
        if (p->log)
            print_logline(p->log, "Starting run...");
        event_printer_init(&ep, c, mode);
        event_printer_attach(&ep, ro);
        ro->on_progress = NULL; /* Spark reports no progress snapshots */
        rc = weir_remote_start_run(r, p->pipeline, ro, &result, &err);
        event_printer_finish(&ep);
        if (rc)
            code = failed(c, rc, &err, json, ro->dry);
        else if (result.state != WEIR_RUN_COMPLETED)
            code = ro->dry ? EXIT_USAGE : EXIT_FAILED;
    }
    interrupt_release(&ig);
    weir_remote_close(r);
    return code;
}
