/*
 * Test driver for the Spark Connect endpoint in registration mode: create a
 * pipeline with the public API, start the endpoint on it, print
 * "PORT TOKEN" (one line), wait for EOF on stdin (the test runs the real
 * PySpark client meanwhile), then stop the endpoint, dry-run the pipeline
 * and print what was registered:
 *
 *   diag PATH:LINE CLASS MESSAGE        each endpoint diagnostic
 *   dataset NAME KIND PATH:LINE         after a successful dry run
 *   flow NAME -> TARGET [streaming] [once] PATH:LINE
 *   error PATH:LINE:COL CLASS MESSAGE   each pipeline diagnostic otherwise
 *
 * usage: connect_driver [--token T] [--max-message N] [--catalog C]
 *                       [--database D] ROOT_DIR STORAGE
 * Exit status: 0, or 1 when the dry run fails, 2 on usage errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/connect.h"
#include "weir.h"

static const char *kind_name(weir_dataset_kind k)
{
    switch (k) {
    case WEIR_STREAMING_TABLE: return "streaming_table";
    case WEIR_MATERIALIZED_VIEW: return "materialized_view";
    case WEIR_TEMPORARY_VIEW: return "temporary_view";
    case WEIR_PERSISTED_VIEW: return "view";
    case WEIR_SINK: return "sink";
    }
    return "?";
}

static const char *base_name(const char *path)
{
    if (!path)
        return "-";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int main(int argc, char **argv)
{
    const char *token = "test-token", *catalog = NULL, *database = NULL;
    size_t max_message = 0;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (strcmp(argv[i], "--token") == 0)
            token = argv[i + 1];
        else if (strcmp(argv[i], "--max-message") == 0)
            max_message = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--catalog") == 0)
            catalog = argv[i + 1];
        else if (strcmp(argv[i], "--database") == 0)
            database = argv[i + 1];
        else
            break;
    }
    if (argc - i != 2) {
        fprintf(stderr, "usage: connect_driver [--token T] [--max-message N] "
                        "[--catalog C] [--database D] ROOT_DIR STORAGE\n");
        return 2;
    }
    weir_error err;
    weir_session *session = NULL;
    weir_pipeline *pipeline = NULL;
    weir_session_options so = WEIR_SESSION_OPTIONS_INIT;
    so.threads = 1;
    weir_pipeline_options po = WEIR_PIPELINE_OPTIONS_INIT;
    po.name = "connect-test";
    po.root_dir = argv[i];
    po.storage = argv[i + 1];
    po.catalog = catalog;
    po.database = database;
    if (weir_session_open(&session, &so, &err) ||
        weir_pipeline_create(&pipeline, session, &po, &err)) {
        fprintf(stderr, "driver: %s\n", err.message);
        return 2;
    }
    weir_connect_options co = { 0 };
    co.token = token;
    co.max_message = max_message;
    co.pipeline = pipeline;
    weir_connect_server *server = NULL;
    if (weir_connect_start(&server, &co, &err)) {
        fprintf(stderr, "driver: %s\n", err.message);
        return 2;
    }
    printf("%u %s\n", weir_connect_port(server), token);
    fflush(stdout);
    char line[256];
    while (fgets(line, sizeof line, stdin))
        ;
    const weir_error *diags = NULL;
    size_t n = weir_connect_diagnostics(server, &diags);
    for (size_t k = 0; k < n; k++)
        printf("diag %s:%u %s %s\n", base_name(diags[k].path), diags[k].line,
               diags[k].error_class, diags[k].message);
    weir_connect_stop(server);

    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    ro.dry = true;
    int rc = weir_pipeline_start_run(pipeline, &ro, NULL, &err);
    weir_graph_info g;
    if (!rc && !weir_pipeline_describe(pipeline, &g, &err)) {
        for (size_t k = 0; k < g.n_datasets; k++)
            printf("dataset %s %s %s:%u\n", g.datasets[k].name,
                   kind_name(g.datasets[k].kind),
                   base_name(g.datasets[k].source_path),
                   g.datasets[k].source_line);
        for (size_t k = 0; k < g.n_flows; k++)
            printf("flow %s -> %s%s%s %s:%u\n", g.flows[k].name,
                   g.flows[k].target, g.flows[k].streaming ? " streaming" : "",
                   g.flows[k].once ? " once" : "",
                   base_name(g.flows[k].source_path), g.flows[k].source_line);
    } else {
        const weir_error *pd = NULL;
        size_t m = weir_pipeline_diagnostics(pipeline, &pd);
        if (!m) {
            pd = &err;
            m = 1;
        }
        for (size_t k = 0; k < m; k++)
            printf("error %s:%u:%u %s %s\n", base_name(pd[k].path), pd[k].line,
                   pd[k].column, pd[k].error_class, pd[k].message);
        rc = 1;
    }
    weir_pipeline_drop(pipeline);
    weir_session_close(session);
    return rc ? 1 : 0;
}
