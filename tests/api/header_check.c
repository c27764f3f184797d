/*
 * Compiled by check-header.sh as C99, C11 and C++ with pedantic warnings
 * as errors: weir.h must stand alone (no other include first), its INIT
 * macros must initialise every options struct in each language, and its
 * declarations must link with C linkage. main() calls one function so the
 * C++ build links against libweir.
 */
#include <weir.h>
#include <weir.h> /* include guard */

#include <string.h>

int main(void)
{
    weir_session_options so = WEIR_SESSION_OPTIONS_INIT;
    weir_pipeline_options po = WEIR_PIPELINE_OPTIONS_INIT;
    weir_dataset_options dso = WEIR_DATASET_OPTIONS_INIT;
    weir_flow_options fo = WEIR_FLOW_OPTIONS_INIT;
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    weir_error err;
    struct ArrowArrayStream stream;
    memset(&err, 0, sizeof(err));
    memset(&stream, 0, sizeof(stream));
    (void)so;
    (void)po;
    (void)dso;
    (void)fo;
    (void)ro;
    int ok = WEIR_VERSION_NUMBER >= 100 &&
             strcmp(weir_version(), WEIR_VERSION) == 0 &&
             so.version == WEIR_SESSION_OPTIONS_VERSION &&
             ro.version == WEIR_RUN_OPTIONS_VERSION &&
             weir_pipeline_query_arrow(NULL, "SELECT 1", &stream, &err) ==
                 WEIR_EINVAL;
    return ok ? 0 : 1;
}
