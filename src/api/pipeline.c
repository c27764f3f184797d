/*
 * TEMPORARY: placeholder definitions of the public pipeline API so the CLI
 * links while the engine is being written. Replaced by the real
 * implementation before anything lands.
 */
#include "weir.h"

#include "util/error.h"

#define PENDING(err) WEIR_ERR(err, WEIR_EINVAL, NULL, "pending implementation")

int weir_session_open(weir_session **out, const weir_session_options *opts,
                      weir_error *err)
{
    (void)opts;
    *out = NULL;
    return PENDING(err);
}
void weir_session_close(weir_session *session) { (void)session; }
int weir_pipeline_create(weir_pipeline **out, weir_session *session,
                         const weir_pipeline_options *opts, weir_error *err)
{
    (void)session; (void)opts; *out = NULL;
    return PENDING(err);
}
int weir_pipeline_load(weir_pipeline **out, weir_session *session,
                       const char *spec_path, weir_error *err)
{
    (void)session; (void)spec_path; *out = NULL;
    return PENDING(err);
}
void weir_pipeline_drop(weir_pipeline *pipeline) { (void)pipeline; }
const char *weir_pipeline_name(const weir_pipeline *p) { (void)p; return ""; }
const char *weir_pipeline_spec_path(const weir_pipeline *p) { (void)p; return NULL; }
const char *weir_pipeline_storage(const weir_pipeline *p) { (void)p; return NULL; }
size_t weir_pipeline_diagnostics(const weir_pipeline *p, const weir_error **out)
{
    (void)p; *out = NULL; return 0;
}
int weir_pipeline_define_dataset(weir_pipeline *p, weir_dataset_kind kind,
                                 const weir_dataset_options *opts, weir_error *err)
{
    (void)p; (void)kind; (void)opts; return PENDING(err);
}
int weir_pipeline_define_flow(weir_pipeline *p, const weir_flow_options *opts,
                              weir_error *err)
{
    (void)p; (void)opts; return PENDING(err);
}
int weir_pipeline_define_sql(weir_pipeline *p, const char *sql, const char *file,
                             weir_error *err)
{
    (void)p; (void)sql; (void)file; return PENDING(err);
}
int weir_pipeline_read(const weir_pipeline *p, const char *name, bool streaming,
                       char *buf, size_t size)
{
    (void)p; (void)name; (void)streaming; (void)buf; (void)size;
    return WEIR_EINVAL;
}
int weir_pipeline_start_run(weir_pipeline *p, const weir_run_options *opts,
                            weir_run_result *out, weir_error *err)
{
    (void)p; (void)opts; (void)out; return PENDING(err);
}
int weir_pipeline_describe(const weir_pipeline *p, weir_graph_info *out,
                           weir_error *err)
{
    (void)p; (void)out; return PENDING(err);
}
int weir_pipeline_query(weir_pipeline *p, const char *sql, weir_result **out,
                        weir_error *err)
{
    (void)p; (void)sql; *out = NULL; return PENDING(err);
}
void weir_result_free(weir_result *r) { (void)r; }
size_t weir_result_column_count(const weir_result *r) { (void)r; return 0; }
size_t weir_result_row_count(const weir_result *r) { (void)r; return 0; }
const char *weir_result_column_name(const weir_result *r, size_t c) { (void)r; (void)c; return ""; }
const char *weir_result_column_type(const weir_result *r, size_t c) { (void)r; (void)c; return ""; }
bool weir_result_column_is_numeric(const weir_result *r, size_t c) { (void)r; (void)c; return false; }
const char *weir_result_value(const weir_result *r, size_t c, size_t row) { (void)r; (void)c; (void)row; return NULL; }
int weir_result_arrow_schema(weir_result *r, struct ArrowSchema *s, weir_error *err)
{
    (void)r; (void)s; return PENDING(err);
}
int weir_result_arrow_next(weir_result *r, struct ArrowArray *a, weir_error *err)
{
    (void)r; (void)a; return PENDING(err);
}
