/*
 * Unit tests of the Spark Connect endpoint's pieces that need no client:
 * gRPC header encodings, the nesting guard in front of the decoder, and
 * the registration of PipelineCommands (built here as protobuf-c messages)
 * into a pipeline. The real client is exercised by tests/connect/run.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "connect/grpc.h"
#include "connect/internal.h"
#include "harness.h"
#include "spark/connect/relations.pb-c.h"

TEST(test_connect_grpc__encodings)
{
    char *s = weir__grpc_percent_encode("bad: 100% \xc3\xa9\n");
    CHECK_STR(s, "bad: 100%25 %C3%A9%0A");
    free(s);
    s = weir__grpc_base64("", 0);
    CHECK_STR(s, "");
    free(s);
    s = weir__grpc_base64("f", 1);
    CHECK_STR(s, "Zg==");
    free(s);
    s = weir__grpc_base64("foob", 4);
    CHECK_STR(s, "Zm9vYg==");
    free(s);
    s = weir__grpc_base64("foobar", 6);
    CHECK_STR(s, "Zm9vYmFy");
    free(s);
}

/* n levels of field 1 (length-delimited) around an empty message. */
static size_t nested(uint8_t *buf, size_t cap, unsigned n)
{
    size_t len = 0;
    for (unsigned i = 0; i < n; i++) {
        uint8_t head[6];
        size_t h = 0;
        head[h++] = 0x0a;
        size_t v = len;
        do {
            head[h++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
            v >>= 7;
        } while (v);
        if (len + h > cap)
            break;
        memmove(buf + h, buf, len);
        memcpy(buf, head, h);
        len += h;
    }
    return len;
}

TEST(test_connect_wire__depth)
{
    static uint8_t buf[1 << 16];
    size_t n = nested(buf, sizeof buf, 10);
    CHECK(!weir__wire_too_deep(buf, n, 20));
    CHECK(weir__wire_too_deep(buf, n, 5));
    n = nested(buf, sizeof buf, 5000);
    CHECK(weir__wire_too_deep(buf, n, WEIR_CONNECT_MAX_WIRE_DEPTH));
    /* A string that is not a message does not count as a level. */
    const uint8_t str[] = { 0x0a, 0x05, 'h', 'e', 'l', 'l', 'o' };
    CHECK(!weir__wire_too_deep(str, sizeof str, 1));
    /* Garbage is left to the decoder. */
    const uint8_t junk[] = { 0xff, 0xff, 0xff };
    CHECK(!weir__wire_too_deep(junk, sizeof junk, 1));
}

/* --- Registration ------------------------------------------------------- */

typedef struct fixture {
    weir_session *session;
    weir_pipeline *pipeline;
    weir__creg *reg;
    char graph[40];
} fixture;

static void setup(fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    weir_session_options so = WEIR_SESSION_OPTIONS_INIT;
    so.threads = 1;
    CHECK_INT(weir_session_open(&fx->session, &so, NULL), 0);
    CHECK_INT(weir_pipeline_create(&fx->pipeline, fx->session, NULL, NULL), 0);
    fx->reg = weir__creg_new(fx->pipeline);
    CHECK(fx->reg != NULL);
    Spark__Connect__PipelineCommand__CreateDataflowGraph g =
        SPARK__CONNECT__PIPELINE_COMMAND__CREATE_DATAFLOW_GRAPH__INIT;
    Spark__Connect__PipelineCommand cmd = SPARK__CONNECT__PIPELINE_COMMAND__INIT;
    cmd.command_type_case =
        SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_CREATE_DATAFLOW_GRAPH;
    cmd.create_dataflow_graph = &g;
    weir__cstatus st;
    CHECK_INT(weir__creg_command(fx->reg, &cmd, NULL, fx->graph, &st), 0);
    CHECK_INT(strlen(fx->graph), 36);
    /* One graph per endpoint. */
    char again[40];
    CHECK_INT(weir__creg_command(fx->reg, &cmd, NULL, again, &st), -1);
}

static void teardown(fixture *fx)
{
    weir__creg_free(fx->reg);
    weir_pipeline_drop(fx->pipeline);
    weir_session_close(fx->session);
}

static int output(fixture *fx, const char *graph, const char *name,
                  Spark__Connect__OutputType type, weir__cstatus *st)
{
    Spark__Connect__SourceCodeLocation loc = SPARK__CONNECT__SOURCE_CODE_LOCATION__INIT;
    loc._file_name_case = SPARK__CONNECT__SOURCE_CODE_LOCATION___FILE_NAME_FILE_NAME;
    loc.file_name = (char *)"/p/defs.py";
    loc._line_number_case = SPARK__CONNECT__SOURCE_CODE_LOCATION___LINE_NUMBER_LINE_NUMBER;
    loc.line_number = 7;
    Spark__Connect__PipelineCommand__DefineOutput d =
        SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__INIT;
    d._dataflow_graph_id_case = 1;
    d.dataflow_graph_id = (char *)graph;
    d._output_name_case = 1;
    d.output_name = (char *)name;
    d._output_type_case = 1;
    d.output_type = type;
    d._source_code_location_case = 1;
    d.source_code_location = &loc;
    Spark__Connect__PipelineCommand cmd = SPARK__CONNECT__PIPELINE_COMMAND__INIT;
    cmd.command_type_case = SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_OUTPUT;
    cmd.define_output = &d;
    char id[40];
    return weir__creg_command(fx->reg, &cmd, NULL, id, st);
}

static int flow(fixture *fx, const char *name, const char *target,
                const char *sql, bool cdc, weir__cstatus *st)
{
    bool once = strncmp(name, "once_", 5) == 0; /* a backfill */
    Spark__Connect__SQL q = SPARK__CONNECT__SQL__INIT;
    q.query = (char *)sql;
    Spark__Connect__Relation rel = SPARK__CONNECT__RELATION__INIT;
    rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
    rel.sql = &q;
    Spark__Connect__PipelineCommand__DefineFlow__WriteRelationFlowDetails rd =
        SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_FLOW__WRITE_RELATION_FLOW_DETAILS__INIT;
    rd._relation_case = 1;
    rd.relation = &rel;
    Spark__Connect__PipelineCommand__DefineFlow__AutoCdcFlowDetails cd =
        SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_FLOW__AUTO_CDC_FLOW_DETAILS__INIT;
    Spark__Connect__PipelineCommand__DefineFlow d =
        SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_FLOW__INIT;
    d._dataflow_graph_id_case = 1;
    d.dataflow_graph_id = fx->graph;
    d._flow_name_case = 1;
    d.flow_name = (char *)name;
    d._target_dataset_name_case = 1;
    d.target_dataset_name = (char *)target;
    if (once) {
        d._once_case = SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_FLOW___ONCE_ONCE;
        d.once = 1;
    }
    if (cdc) {
        d.details_case =
            SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_FLOW__DETAILS_AUTO_CDC_FLOW_DETAILS;
        d.auto_cdc_flow_details = &cd;
    } else {
        d.details_case =
            SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_FLOW__DETAILS_RELATION_FLOW_DETAILS;
        d.relation_flow_details = &rd;
    }
    Spark__Connect__PipelineCommand cmd = SPARK__CONNECT__PIPELINE_COMMAND__INIT;
    cmd.command_type_case = SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_FLOW;
    cmd.define_flow = &d;
    char id[40];
    return weir__creg_command(fx->reg, &cmd, NULL, id, st);
}

TEST(test_connect_registration__any_order)
{
    fixture fx;
    setup(&fx);
    weir__cstatus st;
    /* A flow into a table defined later, then the table. */
    CHECK_INT(flow(&fx, "once_backfill", "events", "SELECT 1 AS id", false, &st), 0);
    CHECK_INT(output(&fx, fx.graph, "events", SPARK__CONNECT__OUTPUT_TYPE__TABLE, &st), 0);
    /* An output, then its own flow: registered as one dataset. */
    CHECK_INT(output(&fx, fx.graph, "mv", SPARK__CONNECT__OUTPUT_TYPE__MATERIALIZED_VIEW, &st), 0);
    CHECK_INT(flow(&fx, "mv", "mv", "SELECT * FROM events", false, &st), 0);
    CHECK_INT(output(&fx, fx.graph, "v", SPARK__CONNECT__OUTPUT_TYPE__TEMPORARY_VIEW, &st), 0);
    CHECK_INT(flow(&fx, "v", "v", "SELECT * FROM mv", false, &st), 0);
    /* An implicit flow whose output never comes: reported at flush. */
    CHECK_INT(flow(&fx, "ghost", "ghost", "SELECT 1", false, &st), 0);
    weir__creg_flush(fx.reg);
    const weir_error *d = NULL;
    CHECK_INT(weir__creg_diagnostics(fx.reg, &d), 1);
    CHECK_STR(d[0].error_class, "PIPELINE_FLOW_TARGET_NOT_DEFINED");
    weir__creg_flush(fx.reg); /* idempotent */
    CHECK_INT(weir__creg_diagnostics(fx.reg, NULL), 1);
    /* The pipeline now has events (no query), mv and the view. */
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    ro.dry = true;
    ro.storage = "/nonexistent-weir-test";
    weir_graph_info g;
    weir_error err = { 0 };
    CHECK_INT(weir_pipeline_start_run(fx.pipeline, &ro, NULL, &err), 0);
    if (err.code)
        fprintf(stderr, "  %s:%u %s %s\n", err.path, err.line, err.error_class,
                err.message);
    if (weir_pipeline_describe(fx.pipeline, &g, &err) == 0) {
        CHECK_INT(g.n_datasets, 3);
        CHECK_INT(g.n_flows, 3);
        for (size_t i = 0; i < g.n_datasets; i++) {
            CHECK_STR(g.datasets[i].source_path, "/p/defs.py");
            CHECK_INT(g.datasets[i].source_line, 7);
        }
    }
    teardown(&fx);
}

TEST(test_connect_registration__errors)
{
    fixture fx;
    setup(&fx);
    weir__cstatus st;
    CHECK_INT(output(&fx, "not-my-graph", "t", SPARK__CONNECT__OUTPUT_TYPE__TABLE, &st), -1);
    CHECK_STR(st.error_class, "DATAFLOW_GRAPH_NOT_FOUND");
    CHECK_INT(output(&fx, fx.graph, "a.v", SPARK__CONNECT__OUTPUT_TYPE__TEMPORARY_VIEW, &st), -1);
    CHECK_STR(st.error_class, "MULTIPART_TEMPORARY_VIEW_NAME_NOT_SUPPORTED");
    CHECK_CONTAINS(st.message, "(/p/defs.py:7)");
    CHECK_INT(output(&fx, fx.graph, "t", SPARK__CONNECT__OUTPUT_TYPE__TABLE, &st), 0);
    CHECK_INT(output(&fx, fx.graph, "T", SPARK__CONNECT__OUTPUT_TYPE__MATERIALIZED_VIEW, &st), -1);
    CHECK_STR(st.error_class, "PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT");
    CHECK_INT(output(&fx, fx.graph, "t x", SPARK__CONNECT__OUTPUT_TYPE__TABLE, &st), -1);
    CHECK_INT(output(&fx, fx.graph, "u", (Spark__Connect__OutputType)42, &st), -1);
    CHECK_STR(st.error_class, "UNSUPPORTED_PIPELINES_DATASET_TYPE");
    CHECK_INT(flow(&fx, "cdc", "t", "SELECT 1", true, &st), -1);
    CHECK_STR(st.error_class, "AUTOCDC_MISSING_SOURCE"); /* details without a source */
    CHECK_INT(flow(&fx, "a.b", "t", "SELECT 1", false, &st), -1);
    CHECK_STR(st.error_class, "MULTIPART_FLOW_NAME_NOT_SUPPORTED");
    /* The query text does not parse: weir's error, at the Python line. */
    CHECK_INT(output(&fx, fx.graph, "m", SPARK__CONNECT__OUTPUT_TYPE__MATERIALIZED_VIEW, &st), 0);
    CHECK_INT(flow(&fx, "m", "m", "SELECT 1 FROM ((", false, &st), -1);
    const weir_error *d = NULL;
    size_t n = weir__creg_diagnostics(fx.reg, &d);
    CHECK(n >= 6);
    for (size_t i = 0; i < n; i++)
        if (d[i].path[0])
            CHECK_STR(d[i].path, "/p/defs.py");
    Spark__Connect__PipelineCommand__StartRun r =
        SPARK__CONNECT__PIPELINE_COMMAND__START_RUN__INIT;
    r._dataflow_graph_id_case = 1;
    r.dataflow_graph_id = fx.graph;
    Spark__Connect__PipelineCommand cmd = SPARK__CONNECT__PIPELINE_COMMAND__INIT;
    cmd.command_type_case = SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_START_RUN;
    cmd.start_run = &r;
    char id[40];
    CHECK_INT(weir__creg_command(fx.reg, &cmd, NULL, id, &st), -1);
    CHECK_STR(st.error_class, "UNSUPPORTED_FEATURE.CONNECT_START_RUN");
    teardown(&fx);
}

TEST_MAIN(RUN(test_connect_grpc__encodings); RUN(test_connect_wire__depth);
          RUN(test_connect_registration__any_order);
          RUN(test_connect_registration__errors);)
