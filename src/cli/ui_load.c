/*
 * Loading the snapshot `weir report` and `weir ui` show: open the project,
 * import its Python definition files, resolve the graph with a silent dry
 * run (which takes no storage lock), read the event log through a query and
 * drop the pipeline again, so the storage lock is held only while the
 * event log is read. Definition errors leave the graph out (with a note)
 * but the updates are still shown, read with the spec only.
 */
#include <string.h>

#include "cli.h"
#include "ui/ui.h"

#define UI_UPDATES 20

static const char *resolve(project *p, weir_graph_info *graph)
{
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    weir_run_result result;
    weir_error err;
    memset(&result, 0, sizeof result);
    memset(&err, 0, sizeof err);
    ro.dry = true;
    int rc = weir_pipeline_start_run(p->pipeline, &ro, &result, &err);
    if (rc == 0 && result.state == WEIR_RUN_COMPLETED &&
        weir_pipeline_describe(p->pipeline, graph, &err) == 0)
        return NULL;
    return "The graph cannot be shown: the pipeline does not resolve (see "
           "weir dry-run).";
}

int ui_load_snapshot(const cli *c, const char *spec, const load_args *load,
                     ui_snapshot **out)
{
    project p;
    weir_graph_info graph;
    const char *note = NULL;
    weir_error err;

    *out = NULL;
    memset(&err, 0, sizeof err);
    int code = project_open_with(&p, c, spec, load, NULL, NULL);
    if (code == EXIT_OK)
        code = project_define_python(&p, NULL);
    if (code == EXIT_OK) {
        note = resolve(&p, &graph);
    } else {
        /* The event log stays readable while a definition has errors. */
        project_close(&p);
        load_args spec_only;
        memset(&spec_only, 0, sizeof spec_only);
        if (load)
            spec_only = *load; /* borrowed: not freed here */
        spec_only.storage_only = true;
        code = project_open_with(&p, c, spec, &spec_only, NULL, NULL);
        note = "The graph cannot be shown: the definition files have errors "
               "(see weir dry-run).";
    }
    if (code == EXIT_OK) {
        int rc = ui_snapshot_build(out, p.pipeline, note ? NULL : &graph, note,
                                   UI_UPDATES, &err);
        if (rc) {
            print_failure(c, p.pipeline, rc, &err);
            code = exit_code_for(rc);
        }
    }
    project_close(&p);
    return code;
}
