/*
 * Unit tests of the Spark Connect plan translator (src/connect/plan.h):
 * plans built with the protobuf-c structs, checked against the Spark SQL
 * text; malformed plans; and every plan fixture of the e2e case
 * connect-plans (captured from the real pyspark-client) translates, or
 * fails with the error class its .expected file names.
 *
 * `test_connect_plan --print FILE.bin` prints the SQL of one serialized
 * Relation (or "ERROR <class>: <message>") for that e2e case.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan.h"
#include "connect/plan_internal.h"
#include "harness.h"
#include "spark/connect/expressions.pb-c.h"

typedef Spark__Connect__Relation Rel;
typedef Spark__Connect__Expression Expr;

static char *sql_of(const Rel *r, weir__plan_error *err)
{
    char *s = NULL;
    if (weir__plan_relation_sql(r, &s, err) < 0)
        return NULL;
    return s;
}

/* A local relation of these Arrow IPC bytes is refused, saying why. */
static void local_refused(const Rel *local, const uint8_t *data, size_t n,
                          const char *why)
{
    weir__plan_error err;
    local->local_relation->data.data = (uint8_t *)data;
    local->local_relation->data.len = n;
    CHECK(sql_of(local, &err) == NULL);
    CHECK_CONTAINS(err.message, why);
}

/* ---- builders (stack objects, wired by the caller) ---- */

#define REL(name) Spark__Connect__Relation name = SPARK__CONNECT__RELATION__INIT
#define EXPR(name) Spark__Connect__Expression name = SPARK__CONNECT__EXPRESSION__INIT

TEST(named_table_filter_project)
{
    Spark__Connect__Read__NamedTable nt = SPARK__CONNECT__READ__NAMED_TABLE__INIT;
    nt.unparsed_identifier = "db.`my table`";
    Spark__Connect__Read rd = SPARK__CONNECT__READ__INIT;
    rd.read_type_case = SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE;
    rd.named_table = &nt;
    rd.is_streaming = 1;
    REL(read);
    read.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
    read.read = &rd;

    Spark__Connect__Expression__UnresolvedAttribute a =
        SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE__INIT;
    a.unparsed_identifier = "amount";
    EXPR(col);
    col.expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE;
    col.unresolved_attribute = &a;
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
    l.string = "it's";
    EXPR(lit);
    lit.expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL;
    lit.literal = &l;
    Expr *args[] = { &col, &lit };
    Spark__Connect__Expression__UnresolvedFunction f =
        SPARK__CONNECT__EXPRESSION__UNRESOLVED_FUNCTION__INIT;
    f.function_name = "==";
    f.n_arguments = 2;
    f.arguments = args;
    EXPR(cond);
    cond.expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION;
    cond.unresolved_function = &f;
    Spark__Connect__Filter flt = SPARK__CONNECT__FILTER__INIT;
    flt.input = &read;
    flt.condition = &cond;
    REL(filter);
    filter.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_FILTER;
    filter.filter = &flt;

    char *name[] = { "amt" };
    Spark__Connect__Expression__Alias al = SPARK__CONNECT__EXPRESSION__ALIAS__INIT;
    al.expr = &col;
    al.n_name = 1;
    al.name = name;
    EXPR(alias);
    alias.expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS;
    alias.alias = &al;
    Expr *items[] = { &alias };
    Spark__Connect__Project pr = SPARK__CONNECT__PROJECT__INIT;
    pr.input = &filter;
    pr.n_expressions = 1;
    pr.expressions = items;
    REL(project);
    project.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_PROJECT;
    project.project = &pr;

    weir__plan_error err;
    char *s = sql_of(&project, &err);
    CHECK_STR(s, "SELECT amount AS amt FROM STREAM db.`my table` WHERE (amount = 'it\\'s')");
    free(s);

    /* A select after the filter's select wraps it as a derived table. */
    Spark__Connect__Project pr2 = SPARK__CONNECT__PROJECT__INIT;
    pr2.input = &project;
    pr2.n_expressions = 1;
    Expr *items2[] = { &col };
    pr2.expressions = items2;
    REL(project2);
    project2.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_PROJECT;
    project2.project = &pr2;
    s = sql_of(&project2, &err);
    CHECK_STR(s, "SELECT amount FROM (SELECT amount AS amt FROM STREAM db.`my table` WHERE "
                 "(amount = 'it\\'s')) AS _p1");
    free(s);
}

TEST(udf_error_has_python_origin)
{
    Spark__Connect__CommonInlineUserDefinedFunction u =
        SPARK__CONNECT__COMMON_INLINE_USER_DEFINED_FUNCTION__INIT;
    u.function_name = "my_udf";
    EXPR(e);
    e.expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_COMMON_INLINE_USER_DEFINED_FUNCTION;
    e.common_inline_user_defined_function = &u;
    /* The origin sits on the parent (an alias), not on the UDF itself. */
    Spark__Connect__PythonOrigin po = SPARK__CONNECT__PYTHON_ORIGIN__INIT;
    po.fragment = "alias";
    po.call_site = "/p/transformations/flows.py:42";
    Spark__Connect__Origin org = SPARK__CONNECT__ORIGIN__INIT;
    org.function_case = SPARK__CONNECT__ORIGIN__FUNCTION_PYTHON_ORIGIN;
    org.python_origin = &po;
    Spark__Connect__ExpressionCommon common = SPARK__CONNECT__EXPRESSION_COMMON__INIT;
    common.origin = &org;
    char *name[] = { "x" };
    Spark__Connect__Expression__Alias al = SPARK__CONNECT__EXPRESSION__ALIAS__INIT;
    al.expr = &e;
    al.n_name = 1;
    al.name = name;
    EXPR(alias);
    alias.common = &common;
    alias.expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS;
    alias.alias = &al;

    Spark__Connect__Range rg = SPARK__CONNECT__RANGE__INIT;
    rg.end = 3;
    rg.step = 1;
    REL(range);
    range.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_RANGE;
    range.range = &rg;
    Expr *items[] = { &alias };
    Spark__Connect__Project pr = SPARK__CONNECT__PROJECT__INIT;
    pr.input = &range;
    pr.n_expressions = 1;
    pr.expressions = items;
    REL(project);
    project.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_PROJECT;
    project.project = &pr;

    weir__plan_error err;
    char *s = sql_of(&project, &err);
    CHECK(s == NULL);
    CHECK_STR(err.error_class, "UNSUPPORTED_FEATURE.PYTHON_UDF");
    CHECK_CONTAINS(err.message, "my_udf");
    CHECK_STR(err.origin.file, "/p/transformations/flows.py");
    CHECK_INT(err.origin.line, 42);

    /* Without the UDF the range renders. */
    al.expr = NULL;
    items[0] = &e;
    Spark__Connect__Expression__UnresolvedStar st = SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR__INIT;
    e.expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR;
    e.unresolved_star = &st;
    s = sql_of(&project, &err);
    CHECK_STR(s, "SELECT * FROM range(0, 3, 1) AS _p1");
    free(s);
}

TEST(malformed_plans_fail_cleanly)
{
    weir__plan_error err;
    REL(empty);
    CHECK(sql_of(&empty, &err) == NULL);
    CHECK_STR(err.error_class, "INVALID_PLAN");
    CHECK(sql_of(NULL, &err) == NULL);

    Spark__Connect__Filter flt = SPARK__CONNECT__FILTER__INIT; /* no input, no condition */
    REL(filter);
    filter.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_FILTER;
    filter.filter = &flt;
    CHECK(sql_of(&filter, &err) == NULL);
    filter.filter = NULL;
    CHECK(sql_of(&filter, &err) == NULL);

    /* Unknown oneof cases. */
    REL(unknown);
    unknown.rel_type_case = (Spark__Connect__Relation__RelTypeCase)4242;
    CHECK(sql_of(&unknown, &err) == NULL);
    CHECK_STR(err.error_class, "UNSUPPORTED_FEATURE.CONNECT_PLAN");

    Spark__Connect__Sample smp = SPARK__CONNECT__SAMPLE__INIT;
    REL(sample);
    sample.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SAMPLE;
    sample.sample = &smp;
    CHECK(sql_of(&sample, &err) == NULL);
    CHECK_CONTAINS(err.message, "'sample'");

    Spark__Connect__LocalRelation lr = SPARK__CONNECT__LOCAL_RELATION__INIT;
    REL(local);
    local.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
    local.local_relation = &lr;
    CHECK(sql_of(&local, &err) == NULL);
    CHECK_CONTAINS(err.message, "neither rows nor a schema");
    /* Rows that are not an Arrow IPC stream. */
    static uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0x10, 0, 0, 0, 1, 2, 3 };
    lr._data_case = SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
    lr.data.data = junk;
    lr.data.len = sizeof junk;
    CHECK(sql_of(&local, &err) == NULL);
    CHECK_CONTAINS(err.message, "not an Arrow IPC stream");
    /* A valid stream (a BIGINT and a STRING column, written by pyarrow)
     * whose string offsets buffer was moved to body offset 26: inside the
     * body, but not 8-byte aligned as the format requires. Refused before
     * any reader loads an int32 from it. */
    static const uint8_t misaligned[] = {
        0xff, 0xff, 0xff, 0xff, 0xa8, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x0a, 0x00, 0x0c, 0x00, 0x06, 0x00, 0x05, 0x00, 0x08, 0x00,
        0x0a, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x00, 0x0c, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x08, 0x00, 0x00, 0x00, 0x04, 0x00, 0x08, 0x00, 0x00, 0x00,
        0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00,
        0x04, 0x00, 0x00, 0x00, 0xd8, 0xff, 0xff, 0xff, 0x00, 0x00, 0x01, 0x05,
        0x10, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x62, 0x00, 0x00, 0x00,
        0x04, 0x00, 0x04, 0x00, 0x04, 0x00, 0x00, 0x00, 0x10, 0x00, 0x14, 0x00,
        0x08, 0x00, 0x06, 0x00, 0x07, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x10, 0x00,
        0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x10, 0x00, 0x00, 0x00,
        0x1c, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x61, 0x00, 0x00, 0x00, 0x08, 0x00, 0x0c, 0x00,
        0x08, 0x00, 0x07, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
        0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
        0xc8, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0c, 0x00, 0x16, 0x00, 0x06, 0x00, 0x05, 0x00, 0x08, 0x00, 0x0c, 0x00,
        0x0c, 0x00, 0x00, 0x00, 0x00, 0x03, 0x04, 0x00, 0x18, 0x00, 0x00, 0x00,
        0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00,
        0x18, 0x00, 0x0c, 0x00, 0x04, 0x00, 0x08, 0x00, 0x0a, 0x00, 0x00, 0x00,
        0x6c, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x1a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
        0x06, 0x00, 0x00, 0x00, 0x78, 0x79, 0x79, 0x7a, 0x7a, 0x7a, 0x00, 0x00,
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
    };
    local_refused(&local, misaligned, sizeof misaligned, "not an Arrow IPC stream");
    /* A decimal with a negative scale (pyarrow writes DECIMAL(5, -3)):
     * not a Spark type, refused rather than padded with zeros. */
    static const uint8_t neg_scale[] = {
        0xff, 0xff, 0xff, 0xff, 0x78, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x0a, 0x00, 0x0c, 0x00, 0x06, 0x00, 0x05, 0x00, 0x08, 0x00,
        0x0a, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x00, 0x0c, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x08, 0x00, 0x00, 0x00, 0x04, 0x00, 0x08, 0x00, 0x00, 0x00,
        0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
        0x10, 0x00, 0x14, 0x00, 0x08, 0x00, 0x06, 0x00, 0x07, 0x00, 0x0c, 0x00,
        0x00, 0x00, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x07,
        0x10, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x0c, 0x00, 0x04, 0x00, 0x08, 0x00, 0x08, 0x00, 0x00, 0x00,
        0x05, 0x00, 0x00, 0x00, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0x88, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0c, 0x00, 0x16, 0x00, 0x06, 0x00, 0x05, 0x00, 0x08, 0x00, 0x0c, 0x00,
        0x0c, 0x00, 0x00, 0x00, 0x00, 0x03, 0x04, 0x00, 0x18, 0x00, 0x00, 0x00,
        0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00,
        0x18, 0x00, 0x0c, 0x00, 0x04, 0x00, 0x08, 0x00, 0x0a, 0x00, 0x00, 0x00,
        0x3c, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
    };
    local_refused(&local, neg_scale, sizeof neg_scale, "decimals other than");
    /* Three rows of no columns (pyarrow): no query has no columns. */
    static const uint8_t no_cols[] = {
        0xff, 0xff, 0xff, 0xff, 0x30, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x0a, 0x00, 0x0c, 0x00, 0x06, 0x00, 0x05, 0x00, 0x08, 0x00,
        0x0a, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x00, 0x0c, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x08, 0x00, 0x00, 0x00, 0x04, 0x00, 0x08, 0x00, 0x00, 0x00,
        0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
        0x40, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00,
        0x0e, 0x00, 0x06, 0x00, 0x05, 0x00, 0x08, 0x00, 0x0a, 0x00, 0x00, 0x00,
        0x00, 0x03, 0x04, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00,
        0x0c, 0x00, 0x00, 0x00, 0x04, 0x00, 0x08, 0x00, 0x0a, 0x00, 0x00, 0x00,
        0x0c, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
        0x00, 0x00, 0x00, 0x00,
    };
    local_refused(&local, no_cols, sizeof no_cols, "without columns");
    /* No rows, a schema: typed and empty. */
    lr._data_case = 0;
    lr._schema_case = SPARK__CONNECT__LOCAL_RELATION___SCHEMA_SCHEMA;
    lr.schema = "a INT, b STRING";
    char *no_rows = sql_of(&local, &err);
    CHECK(no_rows != NULL);
    if (no_rows)
        CHECK_CONTAINS(no_rows, "CAST(NULL AS STRUCT<");
    free(no_rows);

    /* Table names and SQL text must stay self-contained. */
    Spark__Connect__Read__NamedTable nt = SPARK__CONNECT__READ__NAMED_TABLE__INIT;
    nt.unparsed_identifier = "a.`b";
    Spark__Connect__Read rd = SPARK__CONNECT__READ__INIT;
    rd.read_type_case = SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE;
    rd.named_table = &nt;
    REL(read);
    read.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
    read.read = &rd;
    CHECK(sql_of(&read, &err) == NULL);
    nt.unparsed_identifier = "t; DROP TABLE x";
    char *s = sql_of(&read, &err);
    CHECK_STR(s, "SELECT * FROM `t; DROP TABLE x`");
    free(s);
    Spark__Connect__SQL q = SPARK__CONNECT__SQL__INIT;
    q.query = "SELECT 1) UNION (SELECT 2";
    REL(sql);
    sql.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
    sql.sql = &q;
    CHECK(sql_of(&sql, &err) == NULL);
    q.query = "SELECT 1; DROP TABLE t";
    CHECK(sql_of(&sql, &err) == NULL);
    q.query = "SELECT 1 -- one\n;";
    s = sql_of(&sql, &err);
    CHECK_STR(s, "SELECT * FROM (SELECT 1 -- one\n) AS _p1");
    free(s);
}

TEST(depth_is_bounded)
{
    enum { N = WEIR_PLAN_MAX_DEPTH + 10 };
    static Spark__Connect__Relation rels[N];
    static Spark__Connect__Limit lims[N];
    Spark__Connect__Range rg = SPARK__CONNECT__RANGE__INIT;
    rg.end = 1;
    rg.step = 1;
    Spark__Connect__Relation init = SPARK__CONNECT__RELATION__INIT;
    Spark__Connect__Limit linit = SPARK__CONNECT__LIMIT__INIT;
    rels[0] = init;
    rels[0].rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_RANGE;
    rels[0].range = &rg;
    for (int i = 1; i < N; i++) {
        lims[i] = linit;
        lims[i].input = &rels[i - 1];
        lims[i].limit = i;
        rels[i] = init;
        rels[i].rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LIMIT;
        rels[i].limit = &lims[i];
    }
    weir__plan_error err;
    CHECK(sql_of(&rels[N - 1], &err) == NULL);
    CHECK_STR(err.error_class, "PLAN_TOO_DEEP");
    char *s = sql_of(&rels[3], &err);
    CHECK_STR(s, "SELECT * FROM (SELECT * FROM (SELECT * FROM range(0, 1, 1) AS _p1 LIMIT 1) "
                 "AS _p2 LIMIT 2) AS _p3 LIMIT 3");
    free(s);
}

TEST(data_types)
{
    Spark__Connect__DataType__Long lg = SPARK__CONNECT__DATA_TYPE__LONG__INIT;
    Spark__Connect__DataType tl = SPARK__CONNECT__DATA_TYPE__INIT;
    tl.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_LONG;
    tl.long_ = &lg;
    Spark__Connect__DataType__Decimal dec = SPARK__CONNECT__DATA_TYPE__DECIMAL__INIT;
    dec._precision_case = SPARK__CONNECT__DATA_TYPE__DECIMAL___PRECISION_PRECISION;
    dec.precision = 12;
    dec._scale_case = SPARK__CONNECT__DATA_TYPE__DECIMAL___SCALE_SCALE;
    dec.scale = 2;
    Spark__Connect__DataType td = SPARK__CONNECT__DATA_TYPE__INIT;
    td.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_DECIMAL;
    td.decimal = &dec;
    Spark__Connect__DataType__Array arr = SPARK__CONNECT__DATA_TYPE__ARRAY__INIT;
    arr.element_type = &td;
    Spark__Connect__DataType ta = SPARK__CONNECT__DATA_TYPE__INIT;
    ta.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_ARRAY;
    ta.array = &arr;
    Spark__Connect__DataType__Map mp = SPARK__CONNECT__DATA_TYPE__MAP__INIT;
    mp.key_type = &tl;
    mp.value_type = &ta;
    Spark__Connect__DataType tm = SPARK__CONNECT__DATA_TYPE__INIT;
    tm.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_MAP;
    tm.map = &mp;
    Spark__Connect__DataType__StructField f1 = SPARK__CONNECT__DATA_TYPE__STRUCT_FIELD__INIT;
    f1.name = "id";
    f1.data_type = &tl;
    f1.nullable = 0;
    Spark__Connect__DataType__StructField f2 = SPARK__CONNECT__DATA_TYPE__STRUCT_FIELD__INIT;
    f2.name = "the map";
    f2.data_type = &tm;
    f2.nullable = 1;
    Spark__Connect__DataType__StructField *fs[] = { &f1, &f2 };
    Spark__Connect__DataType__Struct st = SPARK__CONNECT__DATA_TYPE__STRUCT__INIT;
    st.n_fields = 2;
    st.fields = fs;
    Spark__Connect__DataType ts = SPARK__CONNECT__DATA_TYPE__INIT;
    ts.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_STRUCT;
    ts.struct_ = &st;

    weir__plan_error err;
    char *s = NULL;
    CHECK_INT(weir__plan_datatype_ddl(&ts, 1, &s, &err), 0);
    CHECK_STR(s, "id BIGINT NOT NULL, `the map` MAP<BIGINT, ARRAY<DECIMAL(12,2)>>");
    free(s);
    CHECK_INT(weir__plan_datatype_ddl(&ts, 0, &s, &err), 0);
    CHECK_STR(s, "STRUCT<id: BIGINT NOT NULL, `the map`: MAP<BIGINT, ARRAY<DECIMAL(12,2)>>>");
    free(s);
    CHECK_INT(weir__plan_datatype_ddl(&tl, 1, &s, &err), -1);
    CHECK(s == NULL);
    mp.value_type = NULL;
    CHECK_INT(weir__plan_datatype_ddl(&tm, 0, &s, &err), -1);
    CHECK_STR(err.error_class, "INVALID_PLAN");
    Spark__Connect__DataType bad = SPARK__CONNECT__DATA_TYPE__INIT;
    bad.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_UNPARSED; /* NULL payload */
    CHECK_INT(weir__plan_datatype_ddl(&bad, 0, &s, &err), -1);
}

/* A literal in SELECT <lit> FROM range(0, 1, 1). */
static char *literal_sql(const Spark__Connect__Expression__Literal *l)
{
    EXPR(e);
    e.expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL;
    e.literal = (Spark__Connect__Expression__Literal *)l;
    Spark__Connect__Range rg = SPARK__CONNECT__RANGE__INIT;
    rg.end = 1;
    rg.step = 1;
    REL(range);
    range.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_RANGE;
    range.range = &rg;
    Expr *items[] = { &e };
    Spark__Connect__Project pr = SPARK__CONNECT__PROJECT__INIT;
    pr.input = &range;
    pr.n_expressions = 1;
    pr.expressions = items;
    REL(project);
    project.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_PROJECT;
    project.project = &pr;
    weir__plan_error err;
    char *s = sql_of(&project, &err);
    if (!s)
        return strdup(err.error_class);
    const char *pre = "SELECT ", *post = " FROM range(0, 1, 1) AS _p1";
    size_t n = strlen(s);
    if (n > strlen(pre) + strlen(post)) {
        memmove(s, s + strlen(pre), n - strlen(pre) + 1);
        s[strlen(s) - strlen(post)] = '\0';
    }
    return s;
}

#define LIT(kind, field, value)                                                    \
    do {                                                                           \
        Spark__Connect__Expression__Literal l_ = SPARK__CONNECT__EXPRESSION__LITERAL__INIT; \
        l_.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_##kind; \
        l_.field = value;                                                          \
        s = literal_sql(&l_);                                                      \
    } while (0)

TEST(literals)
{
    char *s;
    LIT(LONG, long_, INT64_MIN);
    CHECK_STR(s, "-9223372036854775808");
    free(s);
    LIT(LONG, long_, 42);
    CHECK_STR(s, "42L");
    free(s);
    LIT(DOUBLE, double_, 0.1);
    CHECK_STR(s, "0.1D");
    free(s);
    LIT(DOUBLE, double_, 1e300);
    CHECK_STR(s, "CAST('1e+300' AS DOUBLE)");
    free(s);
    LIT(DOUBLE, double_, -1.0 / 0.0);
    CHECK_STR(s, "CAST('-Infinity' AS DOUBLE)");
    free(s);
    LIT(FLOAT, float_, 2.5f);
    CHECK_STR(s, "2.5F");
    free(s);
    LIT(DATE, date, -1);
    CHECK_STR(s, "DATE '1969-12-31'");
    free(s);
    LIT(TIMESTAMP, timestamp, -1);
    CHECK_STR(s, "TIMESTAMP '1969-12-31 23:59:59.999999'");
    free(s);
    LIT(TIMESTAMP_NTZ, timestamp_ntz, 1704164645000000LL);
    CHECK_STR(s, "TIMESTAMP_NTZ '2024-01-02 03:04:05'");
    free(s);
    LIT(YEAR_MONTH_INTERVAL, year_month_interval, -14);
    CHECK_STR(s, "(- INTERVAL '1-2' YEAR TO MONTH)");
    free(s);
    LIT(DAY_TIME_INTERVAL, day_time_interval, 90061000001LL);
    CHECK_STR(s, "INTERVAL '1 01:01:01.000001' DAY TO SECOND");
    free(s);
    LIT(STRING, string, "a\\b\n'");
    CHECK_STR(s, "'a\\\\b\\n\\''");
    free(s);
    LIT(BYTE, byte, -3);
    CHECK_STR(s, "CAST(-3 AS TINYINT)");
    free(s);
    Spark__Connect__Expression__Literal__Decimal d = SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL__INIT;
    d.value = "1.50";
    d._precision_case = SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___PRECISION_PRECISION;
    d.precision = 3;
    d._scale_case = SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___SCALE_SCALE;
    d.scale = 2;
    LIT(DECIMAL, decimal, &d);
    CHECK_STR(s, "CAST('1.50' AS DECIMAL(3,2))");
    free(s);
    d.value = "1.5'; DROP";
    LIT(DECIMAL, decimal, &d);
    CHECK_STR(s, "INVALID_PLAN");
    free(s);
    LIT(DECIMAL, decimal, NULL);
    CHECK_STR(s, "INVALID_PLAN");
    free(s);
    LIT(ARRAY, array, NULL);
    CHECK_STR(s, "INVALID_PLAN");
    free(s);
}

TEST(read_files_with_json_schema)
{
    Spark__Connect__Read__DataSource__OptionsEntry o1 =
        SPARK__CONNECT__READ__DATA_SOURCE__OPTIONS_ENTRY__INIT;
    o1.key = "cloudFiles.format";
    o1.value = "csv";
    Spark__Connect__Read__DataSource__OptionsEntry o2 =
        SPARK__CONNECT__READ__DATA_SOURCE__OPTIONS_ENTRY__INIT;
    o2.key = "cloudFiles.schemaHints";
    o2.value = "amount DECIMAL(12,2)";
    Spark__Connect__Read__DataSource__OptionsEntry o3 =
        SPARK__CONNECT__READ__DATA_SOURCE__OPTIONS_ENTRY__INIT;
    o3.key = "header";
    o3.value = "true";
    Spark__Connect__Read__DataSource__OptionsEntry *opts[] = { &o1, &o2, &o3 };
    char *paths[] = { "landing/it's" };
    Spark__Connect__Read__DataSource ds = SPARK__CONNECT__READ__DATA_SOURCE__INIT;
    ds._format_case = SPARK__CONNECT__READ__DATA_SOURCE___FORMAT_FORMAT;
    ds.format = "cloudFiles";
    ds.n_options = 3;
    ds.options = opts;
    ds.n_paths = 1;
    ds.paths = paths;
    ds._schema_case = SPARK__CONNECT__READ__DATA_SOURCE___SCHEMA_SCHEMA;
    ds.schema = "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\","
                "\"nullable\":false,\"metadata\":{}},{\"name\":\"tags\",\"type\":{\"type\":"
                "\"array\",\"elementType\":\"string\",\"containsNull\":true},\"nullable\":true,"
                "\"metadata\":{\"comment\":\"x\"}},{\"metadata\":{},\"name\":\"amount\","
                "\"type\":\"decimal(12,2)\",\"nullable\":true}]}";
    Spark__Connect__Read rd = SPARK__CONNECT__READ__INIT;
    rd.read_type_case = SPARK__CONNECT__READ__READ_TYPE_DATA_SOURCE;
    rd.data_source = &ds;
    rd.is_streaming = 1;
    REL(read);
    read.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
    read.read = &rd;
    weir__plan_error err;
    char *s = sql_of(&read, &err);
    CHECK_STR(s, "SELECT * FROM STREAM read_files('landing/it\\'s', schema => 'id BIGINT NOT "
                 "NULL, tags ARRAY<STRING>, amount DECIMAL(12,2)', format => 'csv', "
                 "schemaHints => 'amount DECIMAL(12,2)', header => 'true') AS _p1");
    free(s);
    ds.schema = "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\"";
    CHECK(sql_of(&read, &err) == NULL);
    CHECK_STR(err.error_class, "INVALID_PLAN");
    ds.schema = "";
    ds.format = "kafka";
    CHECK(sql_of(&read, &err) == NULL);
    CHECK_CONTAINS(err.message, "A Kafka read takes no path");
    ds.format = "orc";
    CHECK(sql_of(&read, &err) == NULL);
    CHECK_CONTAINS(err.message, "'orc'");
}

TEST(read_kafka_options)
{
    const char *kv[][2] = {
        { "KAFKA.bootstrap.servers", "h:1" }, { "kafka.sasl.jaas.config", "x 'y' \\ z" },
        { "includeheaders", "True" }, { "subscribe", "a,b" }, { "my`odd", "1" },
        { "kafka.group.id", "g" }, { "path", "ignored" },
    };
    enum { N = sizeof kv / sizeof *kv };
    Spark__Connect__Read__DataSource__OptionsEntry o[N];
    Spark__Connect__Read__DataSource__OptionsEntry *opts[N];
    for (int i = 0; i < N; i++) {
        spark__connect__read__data_source__options_entry__init(&o[i]);
        o[i].key = (char *)kv[i][0];
        o[i].value = (char *)kv[i][1];
        opts[i] = &o[i];
    }
    Spark__Connect__Read__DataSource ds = SPARK__CONNECT__READ__DATA_SOURCE__INIT;
    ds._format_case = SPARK__CONNECT__READ__DATA_SOURCE___FORMAT_FORMAT;
    ds.format = "Kafka";
    ds.n_options = N;
    ds.options = opts;
    Spark__Connect__Read rd = SPARK__CONNECT__READ__INIT;
    rd.read_type_case = SPARK__CONNECT__READ__READ_TYPE_DATA_SOURCE;
    rd.data_source = &ds;
    REL(read);
    read.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
    read.read = &rd;
    weir__plan_error err;
    char *s = sql_of(&read, &err);
    CHECK_STR(s, "SELECT * FROM read_kafka(bootstrapServers => 'h:1', subscribe => 'a,b', "
                 "includeHeaders => 'True', `kafka.group.id` => 'g', "
                 "`kafka.sasl.jaas.config` => 'x \\'y\\' \\\\ z', `my``odd` => '1') AS _p1");
    free(s);
    rd.is_streaming = 1;
    ds.n_options = 0;
    s = sql_of(&read, &err);
    CHECK_STR(s, "SELECT * FROM STREAM read_kafka() AS _p1");
    free(s);
    char *paths[] = { "p" };
    ds.n_paths = 1;
    ds.paths = paths;
    CHECK(sql_of(&read, &err) == NULL);
    CHECK_STR(err.error_class, "INVALID_PLAN");
    CHECK_CONTAINS(err.message, "takes no path");
}

/* ---- fixtures captured from the real client ---- */

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            unsigned char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[len] = '\0';
    *n = len;
    return buf;
}

/* The SQL for one serialized Relation, or "ERROR <class>: <message>". */
static char *translate_file(const char *path)
{
    size_t n;
    unsigned char *data = slurp(path, &n);
    if (!data)
        return NULL;
    Spark__Connect__Relation *r = spark__connect__relation__unpack(NULL, n, data);
    free(data);
    if (!r)
        return strdup("ERROR DECODE: not a Relation");
    weir__plan_error err;
    char *s = NULL;
    if (weir__plan_relation_sql(r, &s, &err) < 0) {
        size_t m = strlen(err.error_class) + strlen(err.message) + 64 + strlen(err.origin.file);
        s = malloc(m);
        if (s)
            snprintf(s, m, "ERROR %s: %s (%s:%u)", err.error_class, err.message,
                     err.origin.file, err.origin.line);
    }
    spark__connect__relation__free_unpacked(r, NULL);
    return s;
}

/* An expression string's own alias is left out where the string is part of
 * another expression (withColumn, GROUP BY, filters). */
TEST(expression_string_alias)
{
    static const struct {
        const char *text, *expr;
    } C[] = {
        { "HOUR(ts) AS hour", "HOUR(ts)" },
        { "hour(ts) as h", "hour(ts)" },
        { "a b", "a" },
        { "a + 1 AS `odd name`", "a + 1" },
        { "CAST(x AS INT) y", "CAST(x AS INT)" },
        { "explode(m) AS (k, v)", "explode(m)" },
        { "CASE WHEN a THEN 1 END c", "CASE WHEN a THEN 1 END" },
        { "'x' s", "'x'" },
        { "a", "a" },
        { "a + b", "a + b" },
        { "a IS NOT NULL", "a IS NOT NULL" },
        { "a AND b", "a AND b" },
        { "CASE WHEN a THEN 1 END", "CASE WHEN a THEN 1 END" },
        { "INTERVAL 1 DAY", "INTERVAL 1 DAY" },
        { "ts + INTERVAL '1' HOUR", "ts + INTERVAL '1' HOUR" },
        { "x.y", "x.y" },
        { "count(*) OVER w", "count(*) OVER w" },
        { "a = 'AS b'", "a = 'AS b'" },
        { "f(a AS b)", "f(a AS b)" },
        { "a -- AS b", "a -- AS b" },
        { "NOT a", "NOT a" },
        { NULL, NULL }
    };
    for (int i = 0; C[i].text; i++) {
        size_t n = weir__plan_text_unaliased(C[i].text);
        if (n != strlen(C[i].expr) || strncmp(C[i].text, C[i].expr, n) != 0) {
            fprintf(stderr, "  %s -> %.*s, want %s\n", C[i].text, (int)n, C[i].text,
                    C[i].expr);
            T_.failures++;
        }
    }
}

#define FIXTURES "../e2e/cases/connect-plans/plans"

TEST(client_fixtures)
{
    DIR *d = opendir(FIXTURES);
    CHECK(d != NULL);
    if (!d)
        return;
    int seen = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".bin") != 0)
            continue;
        char path[512], exp_path[512];
        snprintf(path, sizeof path, "%s/%s", FIXTURES, de->d_name);
        snprintf(exp_path, sizeof exp_path, "%s/%.*s.expected", FIXTURES, (int)(n - 4),
                 de->d_name);
        size_t en;
        char *expected = (char *)slurp(exp_path, &en);
        char *sql = translate_file(path);
        CHECK(expected && sql);
        if (expected && sql) {
            int want_error = strncmp(expected, "ERROR ", 6) == 0;
            if (want_error) {
                char cls[128];
                snprintf(cls, sizeof cls, "%.*s", (int)strcspn(expected + 6, "\n"), expected + 6);
                char got[160];
                snprintf(got, sizeof got, "ERROR %s:", cls);
                if (strncmp(sql, got, strlen(got)) != 0) {
                    fprintf(stderr, "  %s: %s\n", de->d_name, sql);
                    T_.failures++;
                }

            } else if (strncmp(expected, "SQL ", 4) == 0) {
                /* The exact translation (plans that need a broker to run). */
                size_t el = strcspn(expected + 4, "\n");
                if (strlen(sql) != el || strncmp(sql, expected + 4, el) != 0) {
                    fprintf(stderr, "  %s: got %s\n  want %.*s\n", de->d_name, sql,
                            (int)el, expected + 4);
                    T_.failures++;
                }
            } else if (strncmp(sql, "ERROR", 5) == 0) {
                fprintf(stderr, "  %s: %s\n", de->d_name, sql);
                T_.failures++;
            }
        }
        free(expected);
        free(sql);
        seen++;
    }
    closedir(d);
    CHECK(seen >= 40);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--print") == 0) {
        char *s = translate_file(argv[2]);
        if (!s) {
            fprintf(stderr, "cannot read %s\n", argv[2]);
            return 2;
        }
        printf("%s\n", s);
        int rc = strncmp(s, "ERROR", 5) == 0;
        free(s);
        return rc;
    }
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-s") == 0)
            T_.filter = argv[i + 1];
    RUN(named_table_filter_project);
    RUN(udf_error_has_python_origin);
    RUN(malformed_plans_fail_cleanly);
    RUN(depth_is_bounded);
    RUN(data_types);
    RUN(literals);
    RUN(read_files_with_json_schema);
    RUN(read_kafka_options);
    RUN(client_fixtures);
    RUN(expression_string_alias);
    printf("%d passed, %d failed\n", T_.passed, T_.failed);
    return T_.failed ? 1 : 0;
}
