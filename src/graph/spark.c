/*
 * What open-source Apache Spark 4.1 rejects or runs differently in a
 * validated graph (weir_pipeline_check_spark; the table is docs/spark.md).
 * The facts are the graph's: each definition's properties (expectations,
 * once flows, imported checkpoints, sinks, Databricks CREATE spellings the
 * SQL parser recorded) and what each flow's query reads (weir's
 * table-valued sources, LIVE. prefixes, Delta paths). weir's own
 * event_log() and catalog `weir` are not readable from definitions, so
 * they never reach a graph.
 * Only the queries of SQL statements are looked into: those generated
 * from Python DataFrames are Spark's own calls (C calls are not Spark's
 * format); what every definition declares is checked.
 */
#include "graph/internal.h"

#include <string.h>

#include "util/buf.h"
#include "util/str.h"

typedef struct checker {
    weir__findings *out;
    weir_arena *arena;
    int rc;
} checker;

static void add(checker *c, const char *construct, bool rejected,
                const char *cls, const weir_origin *o, const weir_sql_pos *pos,
                const char *portable, const char *fmt, ...) WEIR_PRINTF(8, 9);

static void add(checker *c, const char *construct, bool rejected,
                const char *cls, const weir_origin *o, const weir_sql_pos *pos,
                const char *portable, const char *fmt, ...)
{
    weir_spark_finding f;
    va_list ap;
    if (c->rc)
        return;
    memset(&f, 0, sizeof(f));
    f.construct = construct;
    f.rejected = rejected;
    f.portable = portable;
    va_start(ap, fmt);
    weir__error_vset(&f.at, 0, cls, __FILE__, __LINE__, fmt, ap);
    va_end(ap);
    f.at.code = 0;
    if (o && o->src)
        weir__sql_error_at(&f.at, o->src, pos ? *pos : o->pos);
    if (!portable || weir__findings_add(c->out, &f))
        c->rc = WEIR_ENOMEM;
}

/* ---- definitions -------------------------------------------------------- */

static void expectation(checker *c, const weir_gdataset *d,
                        const weir_def_expectation *x)
{
    const char *cond = x->condition_text ? x->condition_text : "";
    bool sql = x->from != WEIR_EXPECT_FROM_API;
    /* The portable filter: pre, the condition, post. */
    const char *pre, *post = sql ? ") in the query" : "\")";
    switch (x->action) {
    case WEIR_SQL_VIOLATION_DROP:
        pre = sql ? "drop the rows with WHERE (" : "drop the rows with .where(\"";
        break;
    case WEIR_SQL_VIOLATION_FAIL:
        pre = sql ? "fail on the first violation with WHERE assert_true("
                  : "fail on the first violation with .where(\"assert_true(";
        post = sql ? ") IS NULL in the query" : ") IS NULL\")";
        break;
    case WEIR_SQL_VIOLATION_QUARANTINE:
        pre = sql ? "filter the query WHERE (" : "filter with .where(\"";
        post = weir__arena_printf(
            c->arena,
            sql ? ") and write the other rows to a dataset of its own with "
                  "WHERE NOT (%s)"
                : "\") and write the other rows to a dataset of its own "
                  "with .where(\"NOT (%s)\")",
            cond);
        if (!post)
            post = "";
        break;
    default:
        pre = "remove it: Spark keeps every row, as a warning expectation "
              "does, but counts nothing (";
        post = ")";
        break;
    }
    const char *portable = weir__arena_printf(c->arena, "%s%s%s", pre, cond, post);
    switch (x->from) {
    case WEIR_EXPECT_FROM_SPEC:
        return; /* the spec's field: weir__spec_spark_findings */
    case WEIR_EXPECT_FROM_SQL:
        add(c, x->action == WEIR_SQL_VIOLATION_QUARANTINE
                   ? "ON VIOLATION QUARANTINE"
                   : "CONSTRAINT ... EXPECT",
            true, "PARSE_SYNTAX_ERROR", &x->origin, NULL, portable,
            "Spark's SQL has no expectations (CONSTRAINT %s EXPECT is a "
            "Databricks and weir extension)",
            x->name);
        return;
    case WEIR_EXPECT_FROM_PROPERTY:
        add(c, "pipelines.expect* table property", false, "", &x->origin,
            NULL, portable,
            "Spark drops the table property of expectation '%s' of %s with "
            "a warning in its log (unknown pipelines table property) and "
            "checks nothing",
            x->name, d->display);
        return;
    case WEIR_EXPECT_FROM_API:
        add(c, x->action == WEIR_SQL_VIOLATION_QUARANTINE
                   ? "dp.expect_or_quarantine"
                   : "dp.expect*",
            true, "", &x->origin, NULL, portable,
            "pyspark.pipelines 4.1 has no expectation decorators: importing "
            "the file fails (AttributeError) where weir's shim adds "
            "expectation '%s'",
            x->name);
        return;
    }
}

static void dataset(checker *c, const weir_gdataset *d)
{
    const weir_def_dataset *def = d->def;
    if (def->create_written)
        add(c, "Databricks CREATE spelling", true, "PARSE_SYNTAX_ERROR",
            &def->origin, NULL,
            weir__arena_printf(c->arena, "%s%s", def->create_spark,
                               def->is_private
                                   ? " (then published in the catalog), or "
                                     "CREATE TEMPORARY VIEW to keep it out "
                                     "of the catalog"
                                   : ""),
            "Spark's parser does not know `%s`", def->create_written);
    if (def->name.live)
        add(c, "LIVE. prefix", true, "", &def->origin, &def->name.pos,
            "drop the LIVE. prefix",
            "Spark reads LIVE as a schema name and defines the dataset in a "
            "schema `LIVE`");
    for (size_t i = 0; i < d->n_expectations; i++)
        expectation(c, d, &d->expectations[i]);
    if (d->skip_change_commits)
        add(c, "pipelines.skipChangeCommits table property", false, "",
            &def->origin, NULL,
            "read the source in Python with spark.readStream.option("
            "\"skipChangeCommits\", \"true\").table(...) (a Delta table's "
            "read option)",
            "Spark drops it with a warning in its log (unknown pipelines "
            "table property): a streaming read of a table whose rows "
            "changed fails anyway");
    if (weir__dataset_delta(d))
        add(c, "Delta dataset", false, "DATA_SOURCE_NOT_FOUND", &def->origin,
            NULL,
            "the cluster needs Delta Lake (the io.delta:delta-spark package "
            "for its Spark version, with spark.sql.extensions = "
            "io.delta.sql.DeltaSparkSessionExtension and "
            "spark.sql.catalog.spark_catalog = "
            "org.apache.spark.sql.delta.catalog.DeltaCatalog)",
            "open-source Spark without Delta Lake fails to find the data "
            "source delta");
    if (d->kind == WEIR_SINK && def->origin.sql)
        add(c, "CREATE SINK", true, "PARSE_SYNTAX_ERROR", &def->origin, NULL,
            weir__arena_printf(c->arena,
                               "a Python file: dp.create_sink(\"%s\", \"%s\", "
                               "{...options}), its flows "
                               "@dp.append_flow(target=\"%s\")",
                               d->name, def->format ? def->format : "parquet",
                               d->name),
            "Spark's SQL has no sinks (only Python's dp.create_sink)");
}

static void flow_def(checker *c, const weir_gflow *f)
{
    const weir_def_flow *def = f->def;
    bool sql = def->origin.sql;
    if (def->create_written)
        add(c, "Databricks CREATE spelling", true, "PARSE_SYNTAX_ERROR",
            &def->origin, NULL, def->create_spark,
            "Spark's parser does not know `%s`", def->create_written);
    if (def->once)
        add(c, sql ? "INSERT INTO ONCE" : "append_flow(once=True)", true,
            sql ? "PARSE_SYNTAX_ERROR" : "", &def->origin, NULL,
            "none in Spark 4.1 (its engine has once flows, its SQL and "
            "Python do not): a streaming append flow, which reads only new "
            "data each update, or a materialized view",
            sql ? "Spark's SQL has no once flows"
                : "pyspark.pipelines 4.1's append_flow takes no once= "
                  "(TypeError)");
    if (def->import_checkpoint)
        add(c, sql ? "CREATE FLOW ... OPTIONS (import_checkpoint ...)"
                   : "append_flow(import_checkpoint=...)",
            true, sql ? "PARSE_SYNTAX_ERROR" : "", &def->origin, NULL,
            "none: on Spark the flow starts a checkpoint of its own under the "
            "pipeline storage and reads its sources from the start (stop "
            "the old query and full-refresh the table there)",
            sql ? "Spark's CREATE FLOW takes no OPTIONS"
                : "pyspark.pipelines 4.1's append_flow takes no "
                  "import_checkpoint= (TypeError)");
    if (def->target.live)
        add(c, "LIVE. prefix", true, "TABLE_OR_VIEW_NOT_FOUND", &def->origin,
            &def->target.pos, "drop the LIVE. prefix",
            "Spark reads LIVE as a schema name: the flow's target is not "
            "found");
}

/* ---- what queries read -------------------------------------------------- */

static const weir_sql_arg *named_arg(const weir_sql_tvf *t, const char *name)
{
    for (size_t i = 0; i < t->n_args; i++)
        if (t->args[i].name && weir__str_ieq(t->args[i].name, name))
            return &t->args[i];
    return NULL;
}

static const char *arg_text(const weir_sql_arg *a, const char *dflt)
{
    return a && a->text ? a->text : dflt;
}

/* read_files(path, format => f, k => v) as Spark's Python reader. */
static const char *python_reader(checker *c, const weir_sql_tvf *t)
{
    const weir_sql_arg *format = named_arg(t, "format");
    if (!format && weir__str_ieq(t->name, "cloud_files")) {
        size_t positional = 0;
        for (size_t i = 0; i < t->n_args && !format; i++)
            if (!t->args[i].name && positional++ == 1)
                format = &t->args[i];
    }
    const weir_sql_arg *schema = named_arg(t, "schema");
    const char *path = weir__sql_read_files_path(t);
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_printf(&b, "a Python file: spark.%s.format(\"%s\")",
                     t->streaming ? "readStream" : "read",
                     arg_text(format, "json"));
    if (schema)
        weir__buf_printf(&b, ".schema(\"%s\")", arg_text(schema, ""));
    else if (t->streaming)
        weir__buf_puts(&b, ".schema(\"<columns>\")");
    for (size_t i = 0; i < t->n_args; i++) {
        const weir_sql_arg *a = &t->args[i];
        if (a->name && a != format && a != schema &&
            !weir__str_ieq(a->name, "path"))
            weir__buf_printf(&b, ".option(\"%s\", \"%s\")", a->name,
                             arg_text(a, ""));
    }
    weir__buf_printf(&b, ".load(\"%s\")", path ? path : "<path>");
    if (t->streaming)
        weir__buf_puts(&b, " (streaming file sources need a schema)");
    else
        weir__buf_printf(&b, ", or in SQL %s.`%s`", arg_text(format, "json"),
                         path ? path : "<path>");
    const char *out = b.failed ? NULL : weir__arena_strdup(c->arena, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return out;
}

static void tvf(checker *c, const weir_origin *at, const weir_sql_tvf *t)
{
    if (weir__str_ieq(t->name, "read_files") ||
        weir__str_ieq(t->name, "cloud_files")) {
        add(c, t->name, true,
            t->streaming ? "PARSE_SYNTAX_ERROR"
                         : "UNRESOLVABLE_TABLE_VALUED_FUNCTION",
            at, &t->pos, python_reader(c, t),
            t->streaming ? "Spark 4.1's SQL cannot stream from a function "
                           "call, and has no %s (a Databricks function)"
                         : "Spark has no table-valued function %s (a "
                           "Databricks function)",
            t->name);
    } else if (weir__str_ieq(t->name, "read_kafka")) {
        add(c, "read_kafka", true, "PARSE_SYNTAX_ERROR", at, &t->pos,
            weir__arena_printf(
                c->arena,
                "a Python file: spark.readStream.format(\"kafka\")"
                ".option(\"kafka.bootstrap.servers\", \"%s\")"
                ".option(\"subscribe\", \"%s\").load() (the cluster needs "
                "the spark-sql-kafka package)",
                arg_text(named_arg(t, "bootstrapServers"), "<servers>"),
                arg_text(named_arg(t, "subscribe"), "<topics>")),
            "Spark has no read_kafka (a Databricks function), and 4.1's SQL "
            "cannot stream from a function call");
    } else if (weir__str_ieq(t->name, "read_jdbc")) {
        const weir_sql_arg *table = named_arg(t, "dbtable");
        const char *url = arg_text(named_arg(t, "url"), "<url>");
        if (strstr(url, "password")) /* never shown */
            url = "<url>";
        add(c, "read_jdbc", true,
            t->streaming ? "PARSE_SYNTAX_ERROR"
                         : "UNRESOLVABLE_TABLE_VALUED_FUNCTION",
            at, &t->pos,
            weir__arena_printf(
                c->arena,
                "a Python file: spark.read.format(\"jdbc\")"
                ".option(\"url\", \"%s\").option(\"%s\", ...)"
                ".option(\"user\", ...).option(\"password\", ...).load() "
                "(the cluster needs the database's JDBC driver)",
                url, table ? "dbtable" : "query"),
            "Spark has no table-valued function read_jdbc (a weir function)");
    } else if (t->streaming && weir__str_ieq(t->name, "range")) {
        add(c, "STREAM range(...)", true, "PARSE_SYNTAX_ERROR", at,
            &t->pos,
            "a streaming read of a table (STREAM t); Spark 4.2 accepts "
            "STREAM range(...)",
            "Spark 4.1's SQL cannot stream from a function call");
    }
}

static void ref(checker *c, const weir_origin *at, const weir_sql_relref *r)
{
    const weir_sql_name *n = &r->name;
    if (n->live)
        add(c, "LIVE. prefix", true, "TABLE_OR_VIEW_NOT_FOUND", at,
            &n->pos, "drop the LIVE. prefix",
            "Spark reads LIVE as a schema name: the table is not found");
    if (n->n == 2 && weir__str_ieq(n->parts[0], "delta"))
        add(c, "delta.`path`", true, "TABLE_OR_VIEW_NOT_FOUND", at,
            &n->pos,
            "install Delta Lake on the cluster (the io.delta:delta-spark "
            "package with its SQL extension and catalog), or read "
            "parquet.`path`",
            "open-source Spark without Delta Lake reads delta as a schema "
            "name: the table is not found");
}

static void flow(checker *c, const weir_gflow *f)
{
    if (f->def)
        flow_def(c, f);
    const weir_origin *o = f->def ? &f->def->origin : &f->dataset_def->origin;
    if (f->cdc)
        add(c, o->sql ? "AUTO CDC" : "dp.create_auto_cdc_flow", true,
            o->sql ? "PARSE_SYNTAX_ERROR" : "", o, o->sql ? &f->cdc->pos : NULL,
            "Spark 4.2's AUTO CDC (its Python client: SCD type 1 only); "
            "on 4.1, none in a pipeline",
            o->sql ? "Spark 4.1's SQL has no AUTO CDC or APPLY CHANGES flows"
                   : "pyspark.pipelines 4.1 has no create_auto_cdc_flow "
                     "(AttributeError)");
    if (!f->query || !o->sql)
        return;
    weir_origin at = { weir__sql_query_source(f->query), f->origin.pos, true };
    for (size_t i = 0; i < f->reads.n_tvfs; i++)
        tvf(c, &at, &f->reads.tvfs[i]);
    for (size_t i = 0; i < f->reads.n_refs; i++)
        ref(c, &at, &f->reads.refs[i]);
}

int weir__graph_spark_findings(weir__findings *out, weir_arena *arena,
                               const weir_graph *g)
{
    checker c = { out, arena, 0 };
    for (size_t i = 0; i < g->n_datasets; i++)
        dataset(&c, &g->datasets[i]);
    for (size_t i = 0; i < g->n_flows; i++)
        flow(&c, &g->flows[i]);
    return c.rc;
}
