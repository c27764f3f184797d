/*
 * Unit tests for src/graph: registration of SQL definitions, qualification,
 * inputs, topological order and the validations that need no schemas.
 */
#include "harness.h"

#include "graph/graph.h"
#include "sql/sql.h"

typedef struct fixture {
    weir_arena arena;
    weir_defs defs;
    weir__diags diags;
    weir_graph *g;
    int rc;
} fixture;

static void add_file(fixture *fx, const char *path, const char *text)
{
    weir_sql_source *src = weir__arena_alloc(&fx->arena, sizeof(*src));
    src->path = path;
    src->text = text;
    src->len = strlen(text);
    weir_sql_stmt *stmts = NULL;
    size_t n = 0;
    weir__sql_parse_file(&stmts, &n, &fx->arena, src, &fx->diags);
    weir__defs_add_sql(&fx->defs, &fx->arena, stmts, n, &fx->diags);
}

static void build(fixture *fx)
{
    weir_error e;
    fx->rc = weir__graph_build(&fx->g, &fx->defs, &fx->diags, &e);
}

static void setup(fixture *fx)
{
    memset(fx, 0, sizeof(*fx));
    weir__arena_init(&fx->arena);
    fx->defs.default_catalog = "spark_catalog";
    fx->defs.default_database = "default";
}

static void teardown(fixture *fx)
{
    weir__graph_free(fx->g);
    weir__defs_free(&fx->defs);
    weir__diags_free(&fx->diags);
    weir__arena_free(&fx->arena);
}

/* The first diagnostic with this class, or NULL. */
static const weir_error *diag(const fixture *fx, const char *cls)
{
    for (size_t i = 0; i < fx->diags.len; i++)
        if (strcmp(fx->diags.items[i].error_class, cls) == 0)
            return &fx->diags.items[i];
    return NULL;
}

TEST(test_graph_build__medallion_order)
{
    fixture fx;
    setup(&fx);
    add_file(&fx, "gold.sql",
             "CREATE MATERIALIZED VIEW gold AS SELECT count(*) AS n FROM silver");
    add_file(&fx, "silver.sql",
             "CREATE STREAMING TABLE silver AS SELECT * FROM STREAM(bronze)");
    add_file(&fx, "bronze.sql",
             "CREATE STREAMING TABLE bronze AS SELECT * FROM STREAM "
             "read_files('data/x', format => 'json')");
    build(&fx);
    CHECK_INT(fx.rc, 0);
    CHECK_INT(fx.g->n_datasets, 3);
    CHECK_STR(fx.g->datasets[fx.g->dataset_order[0]].display,
              "spark_catalog.default.bronze");
    CHECK_STR(fx.g->datasets[fx.g->dataset_order[2]].display,
              "spark_catalog.default.gold");
    int silver = weir__graph_find_dataset(fx.g, "SPARK_CATALOG.default.Silver");
    CHECK(silver >= 0);
    const weir_gflow *f = &fx.g->flows[fx.g->datasets[silver].flows[0]];
    CHECK(f->streaming);
    CHECK_INT(f->n_inputs, 1);
    CHECK_INT(f->inputs[0].dataset,
              weir__graph_find_dataset(fx.g, "spark_catalog.default.bronze"));
    teardown(&fx);
}

TEST(test_graph_build__use_and_set_are_file_scoped)
{
    fixture fx;
    setup(&fx);
    add_file(&fx, "a.sql",
             "USE SCHEMA sales;\n"
             "SET pipelines.x = 1;\n"
             "CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;\n"
             "USE CATALOG other; USE SCHEMA s2;\n"
             "CREATE MATERIALIZED VIEW b AS SELECT * FROM spark_catalog.sales.a;");
    add_file(&fx, "b.sql", "CREATE MATERIALIZED VIEW c AS SELECT * FROM sales.a");
    build(&fx);
    CHECK_INT(fx.rc, 0);
    CHECK(weir__graph_find_dataset(fx.g, "spark_catalog.sales.a") >= 0);
    CHECK(weir__graph_find_dataset(fx.g, "other.s2.b") >= 0);
    int c = weir__graph_find_dataset(fx.g, "spark_catalog.default.c");
    CHECK(c >= 0);
    const weir_gflow *fa =
        &fx.g->flows[fx.g->datasets[weir__graph_find_dataset(
                                        fx.g, "spark_catalog.sales.a")]
                         .flows[0]];
    CHECK_STR(weir__flow_conf(fa, "pipelines.x", NULL), "1");
    const weir_gflow *fc = &fx.g->flows[fx.g->datasets[c].flows[0]];
    CHECK(weir__flow_conf(fc, "pipelines.x", NULL) == NULL);
    CHECK(fc->inputs[0].dataset >= 0);
    teardown(&fx);
}

TEST(test_graph_build__cycle)
{
    fixture fx;
    setup(&fx);
    add_file(&fx, "c.sql",
             "CREATE MATERIALIZED VIEW a AS SELECT * FROM b;\n"
             "CREATE MATERIALIZED VIEW b AS SELECT * FROM a;\n"
             "CREATE MATERIALIZED VIEW c AS SELECT * FROM a;");
    build(&fx);
    CHECK_INT(fx.rc, WEIR_EGRAPH);
    const weir_error *e = diag(&fx, "CIRCULAR_DEPENDENCY");
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->path, "c.sql");
        CHECK(e->line == 1 || e->line == 2);
    }
    teardown(&fx);
}

TEST(test_graph_build__duplicates)
{
    fixture fx;
    setup(&fx);
    add_file(&fx, "a.sql", "CREATE STREAMING TABLE t;\nCREATE FLOW f AS INSERT "
                           "INTO t BY NAME SELECT * FROM STREAM(src);");
    add_file(&fx, "b.sql", "CREATE VIEW t AS SELECT 1 AS x;\nCREATE FLOW f AS "
                           "INSERT INTO t BY NAME SELECT * FROM STREAM(src2);");
    build(&fx);
    CHECK_INT(fx.rc, WEIR_EGRAPH);
    const weir_error *e = diag(&fx, "PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT");
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->path, "b.sql");
        CHECK_INT(e->line, 1);
    }
    teardown(&fx);
}

TEST(test_graph_build__flow_validations)
{
    fixture fx;
    setup(&fx);
    add_file(&fx, "v.sql",
             "CREATE STREAMING TABLE st AS SELECT * FROM src;\n"
             "CREATE MATERIALIZED VIEW mv AS SELECT * FROM STREAM(src);\n"
             "CREATE TEMPORARY VIEW tv AS SELECT 1 AS x;\n"
             "CREATE VIEW pv AS SELECT * FROM tv;\n"
             "CREATE STREAMING TABLE empty;\n"
             "CREATE MATERIALIZED VIEW two AS SELECT 1 AS x;\n"
             "CREATE FLOW extra AS INSERT INTO two BY NAME SELECT 2 AS x;\n"
             "CREATE STREAMING TABLE agg AS SELECT k, count(*) AS n FROM "
             "STREAM(src) GROUP BY k;\n"
             "CREATE FLOW extra2 AS INSERT INTO missing BY NAME SELECT * FROM "
             "STREAM(src);");
    build(&fx);
    CHECK_INT(fx.rc, WEIR_EGRAPH);
    const weir_error *e;
    e = diag(&fx, "INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE");
    CHECK(e && e->line == 1);
    e = diag(&fx,
             "INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_MATERIALIZED_VIEW");
    CHECK(e && e->line == 2);
    e = diag(&fx, "INVALID_TEMP_OBJ_REFERENCE");
    CHECK(e && e->line == 4);
    e = diag(&fx, "PIPELINE_DATASET_WITHOUT_FLOW");
    CHECK(e && e->line == 5);
    e = diag(&fx, "MATERIALIZED_VIEW_WITH_MULTIPLE_QUERIES");
    CHECK(e && e->line == 6);
    e = diag(&fx, "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION");
    CHECK(e && e->line == 8);
    e = diag(&fx, "PIPELINE_FLOW_TARGET_NOT_FOUND");
    CHECK(e && e->line == 9);
    teardown(&fx);
}

TEST(test_graph_build__empty_and_flow_name_conflict)
{
    fixture fx;
    setup(&fx);
    add_file(&fx, "a.sql", "CREATE TEMPORARY VIEW v AS SELECT 1 AS x;");
    build(&fx);
    CHECK(diag(&fx, "RUN_EMPTY_PIPELINE") != NULL);
    teardown(&fx);

    setup(&fx);
    add_file(&fx, "a.sql",
             "CREATE STREAMING TABLE a AS SELECT * FROM STREAM(s);\n"
             "CREATE STREAMING TABLE b AS SELECT * FROM STREAM(s);\n"
             "CREATE FLOW a AS INSERT INTO b BY NAME SELECT * FROM STREAM(s);");
    build(&fx);
    /* a's implicit flow owns the name: a duplicate flow, as in Spark. */
    const weir_error *e = diag(&fx, "PIPELINE_DUPLICATE_IDENTIFIERS.FLOW");
    CHECK(e && e->line == 3);
    CHECK(diag(&fx, "FLOW_NAME_CONFLICTS_WITH_TABLE") == NULL);
    teardown(&fx);

    setup(&fx);
    add_file(&fx, "a.sql",
             "CREATE STREAMING TABLE a;\n"
             "CREATE STREAMING TABLE b AS SELECT * FROM STREAM(s);\n"
             "CREATE FLOW a AS INSERT INTO b BY NAME SELECT * FROM STREAM(s);");
    build(&fx);
    e = diag(&fx, "FLOW_NAME_CONFLICTS_WITH_TABLE");
    CHECK(e && e->line == 3);
    teardown(&fx);
}

TEST(test_graph_build__view_read_modes)
{
    fixture fx;
    setup(&fx);
    add_file(&fx, "a.sql",
             "CREATE TEMPORARY VIEW sv AS SELECT * FROM STREAM(src);\n"
             "CREATE TEMPORARY VIEW bv AS SELECT * FROM src;\n"
             "CREATE STREAMING TABLE t1 AS SELECT * FROM STREAM(bv);\n"
             "CREATE MATERIALIZED VIEW t2 AS SELECT * FROM sv;\n"
             "CREATE STREAMING TABLE t3 AS SELECT * FROM STREAM(sv);");
    build(&fx);
    const weir_error *e = diag(&fx, "INCOMPATIBLE_BATCH_VIEW_READ");
    CHECK(e && e->line == 3);
    e = diag(&fx, "INCOMPATIBLE_STREAMING_VIEW_READ");
    CHECK(e && e->line == 4);
    teardown(&fx);
}

/* Rules on definitions checked by the graph for every front end (the SQL
 * parser only parses these). */
TEST(test_graph_build__definition_rules)
{
    fixture fx;
    setup(&fx);
    add_file(&fx, "a.sql",
             "CREATE MATERIALIZED VIEW a.b.c.d AS SELECT 1 AS x;\n"
             "CREATE STREAMING TABLE t;\n"
             "CREATE FLOW db.f AS INSERT INTO t BY NAME SELECT * FROM STREAM(s);\n"
             "CREATE MATERIALIZED VIEW o OPTIONS (path = 'x') AS SELECT 1 AS x;\n"
             "CREATE SINK db.k USING json OPTIONS (path 'o');\n"
             "CREATE MATERIALIZED VIEW c (x INT, X INT) AS SELECT 1 AS x;\n");
    build(&fx);
    CHECK_INT(fx.rc, WEIR_EGRAPH);
    const weir_error *e = diag(&fx, "REQUIRES_SINGLE_PART_NAMESPACE");
    CHECK(e && e->line == 1 && e->column == 26);
    e = diag(&fx, "MULTIPART_FLOW_NAME_NOT_SUPPORTED");
    CHECK(e && e->line == 3 && e->column == 13);
    e = diag(&fx, "_LEGACY_ERROR_TEMP_0035");
    CHECK(e && e->line == 4);
    CHECK(e && strstr(e->message, "Options are not supported for CREATE "
                                  "MATERIALIZED VIEW"));
    e = diag(&fx, "MULTIPART_SINK_NAME_NOT_SUPPORTED");
    CHECK(e && e->line == 5 && e->column == 13);
    e = diag(&fx, "COLUMN_ALREADY_EXISTS");
    CHECK(e && e->line == 6 && e->column == 36);
    teardown(&fx);
}

/* What weir does not store as Delta yet is refused at its definition;
 * a stream of a Delta dataset (line 3) is not. */
TEST(test_graph_build__delta_refusals)
{
    fixture fx;
    setup(&fx);
    add_file(&fx, "a.sql",
             "CREATE STREAMING TABLE d USING delta AS SELECT * FROM STREAM(s);\n"
             "CREATE MATERIALIZED VIEW m USING delta AS SELECT * FROM d;\n"
             "CREATE STREAMING TABLE r AS SELECT * FROM STREAM(d);\n"
             "CREATE STREAMING TABLE e (CONSTRAINT ok EXPECT (x > 0)) "
             "USING DELTA AS SELECT * FROM STREAM(s);\n"
             "CREATE FLOW f AS INSERT INTO ONCE d BY NAME SELECT * FROM s;\n"
             "CREATE MATERIALIZED VIEW ok AS SELECT * FROM d;\n"
             "CREATE MATERIALIZED VIEW l1 USING delta TBLPROPERTIES "
             "('location' = 'file:///lake/l') AS SELECT * FROM d;\n"
             "CREATE MATERIALIZED VIEW l2 USING delta TBLPROPERTIES "
             "('location' = '/lake/l') AS SELECT * FROM d;\n"
             "CREATE MATERIALIZED VIEW l3 USING delta TBLPROPERTIES "
             "('location' = 'lake/l') AS SELECT * FROM d;\n"
             "CREATE MATERIALIZED VIEW l4 TBLPROPERTIES "
             "('location' = '/lake/m') AS SELECT * FROM d;\n");
    build(&fx);
    CHECK_INT(fx.rc, WEIR_EGRAPH);
    size_t n = 0;
    int lines = 0;
    static const char *const loc[] = { "LOCATION_ALREADY_EXISTS",
                                       "INVALID_LOCATION",
                                       "LOCATION_NOT_SUPPORTED" };
    int loc_lines[3] = { 0, 0, 0 };
    for (size_t i = 0; i < fx.diags.len; i++) {
        const weir_error *e = &fx.diags.items[i];
        if (!strcmp(e->error_class, "DELTA_UNSUPPORTED_FEATURE")) {
            n++;
            lines |= 1 << e->line;
        }
        for (int k = 0; k < 3; k++)
            if (!strcmp(e->error_class, loc[k]))
                loc_lines[k] |= 1 << e->line;
    }
    CHECK_INT((int)n, 2);
    CHECK_INT(lines, (1 << 4) | (1 << 5));
    /* The table property location: one dataset's (file: URIs are paths),
     * absolute, of a Delta dataset. */
    CHECK_INT(loc_lines[0], 1 << 8);
    CHECK_INT(loc_lines[1], 1 << 9);
    CHECK_INT(loc_lines[2], 1 << 10);
    teardown(&fx);
}

TEST_MAIN(RUN(test_graph_build__medallion_order);
          RUN(test_graph_build__delta_refusals);
          RUN(test_graph_build__definition_rules);
          RUN(test_graph_build__use_and_set_are_file_scoped);
          RUN(test_graph_build__cycle); RUN(test_graph_build__duplicates);
          RUN(test_graph_build__flow_validations);
          RUN(test_graph_build__empty_and_flow_name_conflict);
          RUN(test_graph_build__view_read_modes))
