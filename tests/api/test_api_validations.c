/*
 * Graph validations hold whatever front end defined a dataset: each rule
 * checked here for a definition made through C calls fires with the class
 * it has for the same definition in a SQL file (the rules live in
 * src/graph, not in the SQL front end). Dry runs without storage: nothing
 * is written.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <string.h>

#include <weir.h>

static weir_session *session;

static weir_pipeline *new_pipeline(void)
{
    weir_pipeline *p = NULL;
    weir_error err;
    if (weir_pipeline_create(&p, session, NULL, &err) != 0) {
        fprintf(stderr, "weir_pipeline_create: %s\n", err.message);
        abort();
    }
    return p;
}

/* Does a dry run of p fail with a diagnostic of class cls? Prints the
 * diagnostics when not. */
static bool dry_run_reports(weir_pipeline *p, const char *cls)
{
    weir_run_options o = WEIR_RUN_OPTIONS_INIT;
    o.dry = true;
    weir_error err;
    int rc = weir_pipeline_start_run(p, &o, NULL, &err);
    const weir_error *d;
    size_t n = weir_pipeline_diagnostics(p, &d);
    for (size_t i = 0; i < n; i++)
        if (strcmp(d[i].error_class, cls) == 0 && rc == WEIR_EGRAPH)
            return true;
    fprintf(stderr, "  wanted %s, got rc %d:\n", cls, rc);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "    [%s] %s\n", d[i].error_class, d[i].message);
    return false;
}

/* The same definition as SQL: same class. */
static bool sql_reports(const char *sql, const char *cls)
{
    weir_pipeline *p = new_pipeline();
    weir_error err;
    int rc = weir_pipeline_define_sql(p, sql, "t.sql", &err);
    bool ok = rc == 0 && dry_run_reports(p, cls);
    if (rc)
        fprintf(stderr, "  define_sql: [%s] %s\n", err.error_class, err.message);
    weir_pipeline_drop(p);
    return ok;
}

static int mv(weir_pipeline *p, weir_dataset_options *o)
{
    weir_error err;
    int rc = weir_pipeline_create_materialized_view(p, o, NULL, &err);
    if (rc)
        fprintf(stderr, "  create: %s\n", err.message);
    return rc;
}

TEST(test_duplicate_expectations)
{
    /* Before: only SQL files loaded with a spec were checked. */
    weir_pipeline *p = new_pipeline();
    weir_expectation x[] = { { "positive", "x > 0", WEIR_EXPECT_WARN },
                             { "Positive", "x > 1", WEIR_EXPECT_DROP } };
    weir_dataset_options o = WEIR_DATASET_OPTIONS_INIT;
    o.name = "a";
    o.query = "SELECT 1 AS x";
    o.expectations = x;
    o.n_expectations = 2;
    CHECK_INT(mv(p, &o), 0);
    CHECK(dry_run_reports(p, "DUPLICATE_EXPECTATION_NAME"));
    const weir_error *d;
    if (weir_pipeline_diagnostics(p, &d) >= 1) {
        CHECK_STR(d[0].path, "<a schema>"); /* at the second CONSTRAINT */
        CHECK(d[0].column > 1);
    }
    weir_pipeline_drop(p);

    /* One from the expectations, one from a table property. */
    p = new_pipeline();
    weir_kv prop = { "pipelines.expect_or_drop.positive", "x > 2" };
    o.n_expectations = 1;
    o.properties = &prop;
    o.n_properties = 1;
    CHECK_INT(mv(p, &o), 0);
    CHECK(dry_run_reports(p, "DUPLICATE_EXPECTATION_NAME"));
    weir_pipeline_drop(p);
    CHECK(sql_reports("CREATE MATERIALIZED VIEW a (CONSTRAINT c EXPECT (x > 0), "
                      "CONSTRAINT C EXPECT (x > 1)) AS SELECT 1 AS x;",
                      "DUPLICATE_EXPECTATION_NAME"));
}

TEST(test_clauses_per_kind)
{
    weir_kv opt = { "path", "out" };
    const char *col[] = { "x" };
    weir_error err;

    weir_pipeline *p = new_pipeline();
    weir_dataset_options o = WEIR_DATASET_OPTIONS_INIT;
    o.name = "a";
    o.query = "SELECT 1 AS x";
    o.options = &opt;
    o.n_options = 1;
    CHECK_INT(mv(p, &o), 0);
    CHECK(dry_run_reports(p, "_LEGACY_ERROR_TEMP_0035"));
    weir_pipeline_drop(p);
    CHECK(sql_reports("CREATE MATERIALIZED VIEW a OPTIONS (path 'out') AS "
                      "SELECT 1 AS x;",
                      "_LEGACY_ERROR_TEMP_0035"));

    /* A view takes no partitioning; a sink no query. */
    p = new_pipeline();
    CHECK_INT(mv(p, &(weir_dataset_options){ .version = 1, .name = "m",
                                             .query = "SELECT 1 AS x" }),
              0);
    o = (weir_dataset_options)WEIR_DATASET_OPTIONS_INIT;
    o.name = "v";
    o.query = "SELECT 1 AS x";
    o.partition_cols = col;
    o.n_partition_cols = 1;
    CHECK_INT(weir_pipeline_create_temporary_view(p, &o, NULL, &err), 0);
    o = (weir_dataset_options)WEIR_DATASET_OPTIONS_INIT;
    o.name = "s";
    o.format = "json";
    o.options = &opt;
    o.n_options = 1;
    o.query = "SELECT 1 AS x";
    CHECK_INT(weir_pipeline_define_dataset(p, WEIR_SINK, &o, NULL, &err), 0);
    CHECK(dry_run_reports(p, "_LEGACY_ERROR_TEMP_0035"));
    const weir_error *d;
    size_t n = weir_pipeline_diagnostics(p, &d);
    CHECK(n >= 2);
    weir_pipeline_drop(p);
}

TEST(test_columns_and_partitioning)
{
    const char *cols[] = { "x", "X" };
    weir_pipeline *p = new_pipeline();
    weir_dataset_options o = WEIR_DATASET_OPTIONS_INIT;
    o.name = "a";
    o.query = "SELECT 1 AS x";
    o.schema = "x INT, x BIGINT";
    CHECK_INT(mv(p, &o), 0);
    CHECK(dry_run_reports(p, "COLUMN_ALREADY_EXISTS"));
    weir_pipeline_drop(p);
    CHECK(sql_reports("CREATE MATERIALIZED VIEW a (x INT, x BIGINT) AS SELECT 1 AS x;",
                      "COLUMN_ALREADY_EXISTS"));

    p = new_pipeline();
    o.schema = NULL;
    o.partition_cols = cols;
    o.n_partition_cols = 2;
    CHECK_INT(mv(p, &o), 0);
    CHECK(dry_run_reports(p, "COLUMN_ALREADY_EXISTS"));
    weir_pipeline_drop(p);

    /* Before: only the run failed, when the table was materialized. */
    p = new_pipeline();
    o.n_partition_cols = 1;
    o.cluster_cols = cols;
    o.n_cluster_cols = 1;
    CHECK_INT(mv(p, &o), 0);
    CHECK(dry_run_reports(p, "SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED"));
    weir_pipeline_drop(p);
    CHECK(sql_reports("CREATE MATERIALIZED VIEW a PARTITIONED BY (x) CLUSTER BY (x) "
                      "AS SELECT 1 AS x;",
                      "SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED"));
}

TEST(test_expectations_need_a_table)
{
    weir_error err;
    weir_expectation x = { "positive", "x > 0", WEIR_EXPECT_DROP };
    weir_pipeline *p = new_pipeline();
    CHECK_INT(mv(p, &(weir_dataset_options){ .version = 1, .name = "m",
                                             .query = "SELECT * FROM v" }),
              0);
    weir_dataset_options o = WEIR_DATASET_OPTIONS_INIT;
    o.name = "v";
    o.query = "SELECT 1 AS x";
    o.expectations = &x;
    o.n_expectations = 1;
    CHECK_INT(weir_pipeline_create_temporary_view(p, &o, NULL, &err), 0);
    CHECK(dry_run_reports(p, "INVALID_EXPECTATION"));
    weir_pipeline_drop(p);
    CHECK(sql_reports("CREATE MATERIALIZED VIEW m AS SELECT * FROM v;\n"
                      "CREATE TEMPORARY VIEW v TBLPROPERTIES "
                      "('pipelines.expect.positive' = 'x > 0') AS SELECT 1 AS x;",
                      "INVALID_EXPECTATION"));
}

TEST(test_names)
{
    weir_error err;
    weir_pipeline *p = new_pipeline();
    weir_dataset_options o = WEIR_DATASET_OPTIONS_INIT;
    o.name = "a.b.c.d";
    o.query = "SELECT 1 AS x";
    CHECK_INT(weir_pipeline_create_materialized_view(p, &o, NULL, &err),
              WEIR_EINVAL);
    CHECK_STR(err.error_class, "REQUIRES_SINGLE_PART_NAMESPACE");
    weir_pipeline_drop(p);
    CHECK(sql_reports("CREATE MATERIALIZED VIEW a.b.c.d AS SELECT 1 AS x;",
                      "REQUIRES_SINGLE_PART_NAMESPACE"));

    p = new_pipeline();
    o = (weir_dataset_options)WEIR_DATASET_OPTIONS_INIT;
    o.name = "db.s";
    o.format = "json";
    CHECK_INT(weir_pipeline_define_dataset(p, WEIR_SINK, &o, NULL, &err), 0);
    CHECK(dry_run_reports(p, "MULTIPART_SINK_NAME_NOT_SUPPORTED"));
    weir_pipeline_drop(p);
    CHECK(sql_reports("CREATE SINK db.s USING json OPTIONS (path 'o');",
                      "MULTIPART_SINK_NAME_NOT_SUPPORTED"));

    p = new_pipeline();
    CHECK_INT(weir_pipeline_create_table(p, &(weir_dataset_options){ .version = 1,
                                                                     .name = "t" },
                                         NULL, &err),
              0);
    weir_flow_options f = WEIR_FLOW_OPTIONS_INIT;
    f.name = "db.f";
    f.target = "t";
    f.query = "SELECT * FROM STREAM range(3)";
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), 0);
    CHECK(dry_run_reports(p, "MULTIPART_FLOW_NAME_NOT_SUPPORTED"));
    weir_pipeline_drop(p);
    CHECK(sql_reports("CREATE STREAMING TABLE t;\nCREATE FLOW db.f AS INSERT INTO "
                      "t BY NAME SELECT * FROM STREAM range(3);",
                      "MULTIPART_FLOW_NAME_NOT_SUPPORTED"));
}

TEST(test_flow_targets)
{
    weir_error err;
    /* import_checkpoint into a materialized view: nothing to continue. */
    weir_pipeline *mp = new_pipeline();
    CHECK_INT(mv(mp, &(weir_dataset_options){ .version = 1, .name = "m" }), 0);
    weir_flow_options mf = WEIR_FLOW_OPTIONS_INIT;
    mf.name = "imported";
    mf.target = "m";
    mf.query = "SELECT 2 AS x";
    mf.import_checkpoint = "/old/checkpoint";
    CHECK_INT(weir_pipeline_define_flow(mp, &mf, &err), 0);
    CHECK(dry_run_reports(mp, "IMPORT_CHECKPOINT_NOT_SUPPORTED"));
    weir_pipeline_drop(mp);

    /* Before: the run failed with a transaction conflict. */
    weir_pipeline *p = new_pipeline();
    CHECK_INT(mv(p, &(weir_dataset_options){ .version = 1, .name = "m",
                                             .query = "SELECT 1 AS x" }),
              0);
    weir_flow_options f = WEIR_FLOW_OPTIONS_INIT;
    f.name = "backfill";
    f.target = "m";
    f.query = "SELECT 2 AS x";
    f.once = true;
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), 0);
    CHECK(dry_run_reports(p, "INVALID_ONCE_FLOW_TARGET"));
    weir_pipeline_drop(p);
    CHECK(sql_reports("CREATE MATERIALIZED VIEW m AS SELECT 1 AS x;\nCREATE FLOW "
                      "f AS INSERT INTO ONCE m BY NAME SELECT 2 AS x;",
                      "INVALID_ONCE_FLOW_TARGET"));

    /* Before: the second flow into a view was ignored. */
    p = new_pipeline();
    CHECK_INT(mv(p, &(weir_dataset_options){ .version = 1, .name = "m",
                                             .query = "SELECT * FROM v" }),
              0);
    CHECK_INT(weir_pipeline_create_temporary_view(
                  p, &(weir_dataset_options){ .version = 1, .name = "v",
                                              .query = "SELECT 1 AS x" },
                  NULL, &err),
              0);
    f.target = "v";
    f.once = false;
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), 0);
    CHECK(dry_run_reports(p, "MATERIALIZED_VIEW_WITH_MULTIPLE_QUERIES"));
    weir_pipeline_drop(p);
}

/* The graph's rules hold for datasets defined through the C API too. */
TEST(test_view_confs_and_flow_names)
{
    weir_error err;
    weir_pipeline *p = new_pipeline();
    weir_kv three = { "spark.sql.shuffle.partitions", "3" };
    weir_kv four = { "spark.sql.shuffle.partitions", "4" };
    weir_dataset_options v = WEIR_DATASET_OPTIONS_INIT;
    v.name = "v";
    v.query = "SELECT 1 AS x";
    v.conf = &three;
    v.n_conf = 1;
    CHECK_INT(weir_pipeline_create_temporary_view(p, &v, NULL, &err), 0);
    weir_dataset_options m = WEIR_DATASET_OPTIONS_INIT;
    m.name = "m";
    m.query = "SELECT * FROM v";
    m.conf = &four;
    m.n_conf = 1;
    CHECK_INT(mv(p, &m), 0);
    CHECK(dry_run_reports(p, "DUPLICATE_FLOW_SQL_CONF"));
    weir_pipeline_drop(p);

    /* A flow named like a dataset's own flow. */
    p = new_pipeline();
    CHECK_INT(mv(p, &(weir_dataset_options){ .version = 1, .name = "a",
                                             .query = "SELECT 1 AS x" }),
              0);
    CHECK_INT(weir_pipeline_define_dataset(
                  p, WEIR_STREAMING_TABLE,
                  &(weir_dataset_options){ .version = 1, .name = "b" }, NULL,
                  &err),
              0);
    weir_flow_options f = WEIR_FLOW_OPTIONS_INIT;
    f.name = "a";
    f.target = "b";
    f.query = "SELECT * FROM STREAM(range(3))";
    CHECK_INT(weir_pipeline_define_flow(p, &f, &err), 0);
    CHECK(dry_run_reports(p, "PIPELINE_DUPLICATE_IDENTIFIERS.FLOW"));
    weir_pipeline_drop(p);
}

TEST(test_catalog_names)
{
    weir_pipeline *p = new_pipeline();
    CHECK_INT(mv(p, &(weir_dataset_options){ .version = 1, .name = "main.d.a",
                                             .query = "SELECT 1 AS x" }),
              0);
    CHECK_INT(mv(p, &(weir_dataset_options){ .version = 1,
                                             .name = "main_catalog.d.b",
                                             .query = "SELECT 1 AS x" }),
              0);
    CHECK(dry_run_reports(p, "PIPELINE_CATALOG_NAME_CONFLICT"));
    weir_pipeline_drop(p);

    p = new_pipeline();
    CHECK_INT(mv(p, &(weir_dataset_options){ .version = 1, .name = "weir.d.a",
                                             .query = "SELECT 1 AS x" }),
              0);
    CHECK(dry_run_reports(p, "PIPELINE_RESERVED_CATALOG"));
    weir_pipeline_drop(p);

    p = new_pipeline();
    CHECK_INT(mv(p, &(weir_dataset_options){ .version = 1, .name = "_weir.files",
                                             .query = "SELECT 1 AS x" }),
              0);
    CHECK(dry_run_reports(p, "PIPELINE_RESERVED_DATABASE"));
    weir_pipeline_drop(p);

    p = new_pipeline();
    CHECK_INT(mv(p, &(weir_dataset_options){ .version = 1, .name = "`a/b`.d.a",
                                             .query = "SELECT 1 AS x" }),
              0);
    CHECK(dry_run_reports(p, "PIPELINE_INVALID_CATALOG_NAME"));
    weir_pipeline_drop(p);
}

TEST(test_duckdb_settings)
{
    weir_error err;
    weir_kv bad[] = { { "weir.duckdb.threads", "-1" },
                      { "weir.duckdb.threads", "0" },
                      { "weir.duckdb.memory_limit", "lots" },
                      { "weir.duckdb.memory_limit", "1KB" },
                      { "weir.duckdb.treads", "2" } };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        weir_pipeline_options o = WEIR_PIPELINE_OPTIONS_INIT;
        o.configuration = &bad[i];
        o.n_configuration = 1;
        weir_pipeline *p = NULL;
        CHECK_INT(weir_pipeline_create(&p, session, &o, &err), WEIR_EINVAL);
        CHECK(p == NULL);
        CHECK_STR(err.error_class, i == 4 ? "PIPELINE_SPEC_UNEXPECTED_FIELD"
                                          : "PIPELINE_SPEC_INVALID_FIELD_VALUE");
    }
    weir_kv good = { "weir.duckdb.memory_limit", "256MB" };
    weir_pipeline_options o = WEIR_PIPELINE_OPTIONS_INIT;
    o.configuration = &good;
    o.n_configuration = 1;
    weir_pipeline *p = NULL;
    CHECK_INT(weir_pipeline_create(&p, session, &o, &err), 0);
    weir_pipeline_drop(p);

    weir_session_options so = WEIR_SESSION_OPTIONS_INIT;
    so.memory_limit = "-1";
    weir_session *s = NULL;
    CHECK_INT(weir_session_open(&s, &so, &err), WEIR_EINVAL);
    CHECK(s == NULL);
    so.memory_limit = NULL;
    so.threads = 100000;
    CHECK_INT(weir_session_open(&s, &so, &err), WEIR_EINVAL);
}

static void open_session(void)
{
    weir_error err;
    if (weir_session_open(&session, NULL, &err) != 0)
        abort();
}

TEST_MAIN(open_session(); RUN(test_duplicate_expectations);
          RUN(test_clauses_per_kind); RUN(test_columns_and_partitioning);
          RUN(test_expectations_need_a_table); RUN(test_names);
          RUN(test_flow_targets); RUN(test_view_confs_and_flow_names);
          RUN(test_catalog_names);
          RUN(test_duckdb_settings); weir_session_close(session);)
