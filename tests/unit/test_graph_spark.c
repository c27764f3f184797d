/*
 * Unit tests for src/graph/spark.c: each construct open-source Apache Spark
 * 4.1 rejects or runs differently is found at its place, and Spark's own
 * spellings are not.
 */
#include "harness.h"

#include "graph/graph.h"
#include "sql/sql.h"

typedef struct fixture {
    weir_arena arena;
    weir_defs defs;
    weir__diags diags;
    weir_graph *g;
    weir__findings found;
} fixture;

/* Build a graph of one SQL file and check it for Spark. */
static void check(fixture *fx, const char *text)
{
    memset(fx, 0, sizeof(*fx));
    weir__arena_init(&fx->arena);
    fx->defs.default_catalog = "spark_catalog";
    fx->defs.default_database = "default";
    weir_sql_source *src = weir__arena_alloc(&fx->arena, sizeof(*src));
    src->path = "a.sql";
    src->text = text;
    src->len = strlen(text);
    weir_sql_stmt *stmts = NULL;
    size_t n = 0;
    weir__sql_parse_file(&stmts, &n, &fx->arena, src, &fx->diags);
    weir__defs_add_sql(&fx->defs, &fx->arena, stmts, n, &fx->diags);
    weir_error e;
    CHECK_INT(weir__graph_build(&fx->g, &fx->defs, &fx->diags, &e), 0);
    CHECK_INT(fx->diags.len, 0);
    CHECK_INT(weir__graph_spark_findings(&fx->found, &fx->arena, fx->g), 0);
}

static void teardown(fixture *fx)
{
    weir__findings_free(&fx->found);
    weir__graph_free(fx->g);
    weir__defs_free(&fx->defs);
    weir__diags_free(&fx->diags);
    weir__arena_free(&fx->arena);
}

/* The k-th finding (0-based) of this construct, or NULL. */
static const weir_spark_finding *nth(const fixture *fx, const char *construct,
                                     size_t k)
{
    for (size_t i = 0; i < fx->found.len; i++)
        if (strcmp(fx->found.items[i].construct, construct) == 0 && k-- == 0)
            return &fx->found.items[i];
    return NULL;
}

static const weir_spark_finding *find(const fixture *fx, const char *construct)
{
    return nth(fx, construct, 0);
}

TEST(test_spark__spark_spellings_are_portable)
{
    fixture fx;
    check(&fx, "CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;\n"
               "CREATE STREAMING TABLE s;\n"
               "CREATE FLOW f AS INSERT INTO s BY NAME SELECT * FROM STREAM(ext);\n"
               "CREATE TEMPORARY VIEW v AS SELECT * FROM a;\n"
               "CREATE VIEW pv AS SELECT * FROM a;\n"
               "CREATE MATERIALIZED VIEW p AS SELECT * FROM parquet.`/data/p`;\n"
               "CREATE MATERIALIZED VIEW r AS SELECT * FROM range(3);\n");
    CHECK_INT(fx.found.len, 0);
    teardown(&fx);
}

TEST(test_spark__databricks_create_spellings)
{
    fixture fx;
    check(&fx, "CREATE OR REFRESH MATERIALIZED VIEW a AS SELECT 1 AS x;\n"
               "CREATE LIVE TABLE b AS SELECT 1 AS x;\n"
               "CREATE STREAMING LIVE TABLE c AS SELECT * FROM STREAM(ext);\n"
               "CREATE PRIVATE MATERIALIZED VIEW d AS SELECT 1 AS x;\n"
               "CREATE LIVE VIEW e AS SELECT 1 AS x;\n"
               "CREATE OR REFRESH STREAMING TABLE f AS SELECT * FROM STREAM(g);\n"
               "CREATE OR REFRESH FLOW fl AS INSERT INTO f BY NAME SELECT * FROM STREAM(h);\n");
    CHECK_INT(fx.found.len, 7);
    const weir_spark_finding *f = nth(&fx, "Databricks CREATE spelling", 0);
    CHECK(f && f->rejected && f->at.line == 1 && f->at.column == 1);
    CHECK_STR(f->at.error_class, "PARSE_SYNTAX_ERROR");
    CHECK_CONTAINS(f->at.message, "`CREATE OR REFRESH MATERIALIZED VIEW`");
    CHECK_STR(f->portable, "CREATE MATERIALIZED VIEW");
    f = nth(&fx, "Databricks CREATE spelling", 1);
    CHECK(f && f->at.line == 2);
    CHECK_CONTAINS(f->at.message, "`CREATE LIVE TABLE`");
    CHECK_STR(f->portable, "CREATE MATERIALIZED VIEW");
    f = nth(&fx, "Databricks CREATE spelling", 2);
    CHECK(f && f->at.line == 3);
    CHECK_STR(f->portable, "CREATE STREAMING TABLE");
    f = nth(&fx, "Databricks CREATE spelling", 3);
    CHECK(f && f->at.line == 4);
    CHECK_CONTAINS(f->at.message, "`CREATE PRIVATE MATERIALIZED VIEW`");
    CHECK_CONTAINS(f->portable, "CREATE TEMPORARY VIEW");
    f = nth(&fx, "Databricks CREATE spelling", 4);
    CHECK(f && f->at.line == 5);
    CHECK_STR(f->portable, "CREATE TEMPORARY VIEW");
    f = nth(&fx, "Databricks CREATE spelling", 5);
    CHECK(f && f->at.line == 6);
    CHECK_STR(f->portable, "CREATE STREAMING TABLE");
    f = nth(&fx, "Databricks CREATE spelling", 6);
    CHECK(f && f->at.line == 7);
    CHECK_CONTAINS(f->at.message, "`CREATE OR REFRESH FLOW`");
    CHECK_STR(f->portable, "CREATE FLOW");
    teardown(&fx);
}

TEST(test_spark__live_prefix)
{
    fixture fx;
    check(&fx, "CREATE MATERIALIZED VIEW a AS SELECT 1 AS x;\n"
               "CREATE MATERIALIZED VIEW b AS SELECT * FROM LIVE.a;\n"
               "CREATE STREAMING TABLE s;\n"
               "CREATE FLOW f AS INSERT INTO LIVE.s BY NAME SELECT * FROM STREAM(ext);\n"
               "CREATE MATERIALIZED VIEW LIVE.c AS SELECT 1 AS x;\n");
    CHECK_INT(fx.found.len, 3);
    const weir_spark_finding *f = nth(&fx, "LIVE. prefix", 0);
    CHECK(f && f->rejected);
    for (size_t i = 0; i < 3; i++) {
        f = nth(&fx, "LIVE. prefix", i);
        CHECK(f != NULL);
        if (!f)
            continue;
        if (f->at.line == 2)
            CHECK_INT(f->at.column, 45);
        else if (f->at.line == 4)
            CHECK_INT(f->at.column, 30);
        else
            CHECK(f->at.line == 5 && f->at.column == 26);
    }
    teardown(&fx);
}

TEST(test_spark__expectations)
{
    fixture fx;
    check(&fx, "CREATE MATERIALIZED VIEW a (\n"
               "  CONSTRAINT w EXPECT (x <> 5),\n"
               "  CONSTRAINT d EXPECT (x > 0) ON VIOLATION DROP ROW,\n"
               "  CONSTRAINT f EXPECT (x < 9) ON VIOLATION FAIL UPDATE,\n"
               "  CONSTRAINT q EXPECT (x > 1) ON VIOLATION QUARANTINE\n"
               ") AS SELECT 1 AS x;\n"
               "CREATE MATERIALIZED VIEW b TBLPROPERTIES "
               "('pipelines.expect_or_drop.p' = 'x >= 0') AS SELECT 1 AS x;\n");
    CHECK_INT(fx.found.len, 5);
    const weir_spark_finding *f = nth(&fx, "CONSTRAINT ... EXPECT", 0);
    CHECK(f && f->rejected && f->at.line == 2 && f->at.column == 3);
    CHECK_STR(f->at.error_class, "PARSE_SYNTAX_ERROR");
    CHECK_CONTAINS(f->portable, "remove it");
    f = nth(&fx, "CONSTRAINT ... EXPECT", 1);
    CHECK(f && f->at.line == 3);
    CHECK_STR(f->portable, "drop the rows with WHERE (x > 0) in the query");
    f = nth(&fx, "CONSTRAINT ... EXPECT", 2);
    CHECK(f && f->at.line == 4);
    CHECK_CONTAINS(f->portable, "WHERE assert_true(x < 9) IS NULL");
    f = find(&fx, "ON VIOLATION QUARANTINE");
    CHECK(f && f->rejected && f->at.line == 5);
    CHECK_CONTAINS(f->portable, "WHERE NOT (x > 1)");
    f = find(&fx, "pipelines.expect* table property");
    CHECK(f && !f->rejected && f->at.line == 7);
    CHECK_STR(f->at.error_class, "");
    CHECK_CONTAINS(f->portable, "WHERE (x >= 0)");
    teardown(&fx);
}

TEST(test_spark__flows_and_sinks)
{
    fixture fx;
    check(&fx, "CREATE STREAMING TABLE t;\n"
               "CREATE FLOW o AS INSERT INTO ONCE t BY NAME SELECT 1 AS x;\n"
               "CREATE FLOW o2 AS INSERT INTO t BY NAME ONCE SELECT 2 AS x;\n"
               "CREATE FLOW i OPTIONS (import_checkpoint '/cp') AS\n"
               "  INSERT INTO t BY NAME SELECT * FROM STREAM(ext);\n"
               "CREATE SINK s USING delta OPTIONS (path '/out');\n"
               "CREATE FLOW to_s AS INSERT INTO s BY NAME SELECT * FROM STREAM(t);\n"
               "CREATE STREAMING TABLE u TBLPROPERTIES "
               "('pipelines.skipChangeCommits' = 'true') AS SELECT * FROM STREAM(ext2);\n"
               "CREATE STREAMING TABLE c;\n"
               "CREATE FLOW cf AS AUTO CDC INTO c FROM STREAM(ext3) KEYS (id)\n"
               "  SEQUENCE BY ts;\n");
    CHECK_INT(fx.found.len, 6);
    const weir_spark_finding *cdc = find(&fx, "AUTO CDC");
    CHECK(cdc && cdc->rejected && cdc->at.line == 10 && cdc->at.column == 19);
    const weir_spark_finding *f = nth(&fx, "INSERT INTO ONCE", 0);
    CHECK(f && f->rejected && f->at.line == 2);
    f = nth(&fx, "INSERT INTO ONCE", 1);
    CHECK(f && f->at.line == 3);
    f = find(&fx, "CREATE FLOW ... OPTIONS (import_checkpoint ...)");
    CHECK(f && f->rejected && f->at.line == 4);
    f = find(&fx, "CREATE SINK");
    CHECK(f && f->rejected && f->at.line == 6);
    CHECK_CONTAINS(f->portable, "dp.create_sink(\"s\", \"delta\"");
    f = find(&fx, "pipelines.skipChangeCommits table property");
    CHECK(f && !f->rejected && f->at.line == 8);
    teardown(&fx);
}

TEST(test_spark__sources)
{
    fixture fx;
    check(&fx, "CREATE STREAMING TABLE a AS SELECT * FROM STREAM "
               "read_files('in/a', format => 'csv', header => 'true');\n"
               "CREATE MATERIALIZED VIEW b AS SELECT * FROM cloud_files('in/b', 'json');\n"
               "CREATE STREAMING TABLE k AS SELECT CAST(value AS STRING) AS v FROM "
               "STREAM read_kafka(bootstrapServers => 'h:9092', subscribe => 'orders');\n"
               "CREATE STREAMING TABLE r AS SELECT * FROM STREAM range(5);\n"
               "CREATE MATERIALIZED VIEW d AS SELECT * FROM delta.`/tables/d`;\n"
               "CREATE MATERIALIZED VIEW j AS WITH x AS (SELECT * FROM "
               "read_files('in/j', format => 'parquet')) SELECT * FROM x;\n");
    CHECK_INT(fx.found.len, 6);
    const weir_spark_finding *f = nth(&fx, "read_files", 0);
    CHECK(f && f->rejected && f->at.line == 1 && f->at.column == 50);
    CHECK_STR(f->at.error_class, "PARSE_SYNTAX_ERROR");
    CHECK_STR(f->portable, "a Python file: spark.readStream.format(\"csv\")"
                           ".schema(\"<columns>\").option(\"header\", \"true\")"
                           ".load(\"in/a\") (streaming file sources need a schema)");
    f = find(&fx, "cloud_files");
    CHECK(f && f->at.line == 2);
    CHECK_STR(f->at.error_class, "UNRESOLVABLE_TABLE_VALUED_FUNCTION");
    CHECK_CONTAINS(f->portable, "spark.read.format(\"json\").load(\"in/b\")");
    CHECK_CONTAINS(f->portable, "json.`in/b`");
    f = find(&fx, "read_kafka");
    CHECK(f && f->rejected && f->at.line == 3);
    CHECK_CONTAINS(f->portable, ".option(\"kafka.bootstrap.servers\", \"h:9092\")"
                                ".option(\"subscribe\", \"orders\")");
    f = find(&fx, "STREAM range(...)");
    CHECK(f && f->at.line == 4 && f->at.column == 50);
    f = find(&fx, "delta.`path`");
    CHECK(f && f->rejected && f->at.line == 5 && f->at.column == 45);
    f = nth(&fx, "read_files", 1);
    CHECK(f && f->at.line == 6);
    CHECK_CONTAINS(f->portable, "parquet.`in/j`");
    teardown(&fx);
}

TEST_MAIN(RUN(test_spark__spark_spellings_are_portable);
          RUN(test_spark__databricks_create_spellings);
          RUN(test_spark__live_prefix); RUN(test_spark__expectations);
          RUN(test_spark__flows_and_sinks); RUN(test_spark__sources))
