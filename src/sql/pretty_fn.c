/*
 * Function calls in Spark's generated column names (pretty.c). A call is
 * named after the expression Spark builds for it, not after how it was
 * written: each function's prettyName (upper case for the math functions:
 * ACOS(x), CEIL(x), E()), the canonical name of an alias (dateadd is
 * date_add, random is rand), the defaults Spark fills in (bround(x) is
 * bround(x, 0), lag(x) is lag(x, 1, NULL)), the arguments it leaves out
 * (from_json's schema, first's ignoreNulls), and the calls that are
 * operators or casts ((x IS NOT NULL), (+ x), date(d) is d). The table
 * below is checked against Spark's own names by tests/unit/test_sql_names.c.
 */
#include "internal.h"

#include <ctype.h>
#include <string.h>

#include "util/str.h"

#define ANY (-1)

typedef struct fn_pretty {
    const char *called; /* lower case */
    signed char arity;  /* the row applies to calls of this many arguments (ANY) */
    const char *shown;  /* Spark's name; NULL: as called, in lower case */
    signed char keep;   /* arguments shown (ANY: all) */
    const char *dflt[7];/* dflt[i]: what Spark shows for argument i when absent */
} fn_pretty;

static const fn_pretty FNS[] = {
    /* math: prettyName in upper case */
    { "acos", ANY, "ACOS", ANY, { 0 } },     { "acosh", ANY, "ACOSH", ANY, { 0 } },
    { "asin", ANY, "ASIN", ANY, { 0 } },     { "asinh", ANY, "ASINH", ANY, { 0 } },
    { "atan", ANY, "ATAN", ANY, { 0 } },     { "atan2", ANY, "ATAN2", ANY, { 0 } },
    { "atanh", ANY, "ATANH", ANY, { 0 } },   { "cbrt", ANY, "CBRT", ANY, { 0 } },
    { "ceil", 1, "CEIL", ANY, { 0 } },       { "floor", 1, "FLOOR", ANY, { 0 } },
    { "cos", ANY, "COS", ANY, { 0 } },       { "cosh", ANY, "COSH", ANY, { 0 } },
    { "cot", ANY, "COT", ANY, { 0 } },       { "csc", ANY, "CSC", ANY, { 0 } },
    { "sec", ANY, "SEC", ANY, { 0 } },       { "degrees", ANY, "DEGREES", ANY, { 0 } },
    { "radians", ANY, "RADIANS", ANY, { 0 } }, { "exp", ANY, "EXP", ANY, { 0 } },
    { "expm1", ANY, "EXPM1", ANY, { 0 } },   { "hypot", ANY, "HYPOT", ANY, { 0 } },
    { "log10", ANY, "LOG10", ANY, { 0 } },   { "log1p", ANY, "LOG1P", ANY, { 0 } },
    { "log2", ANY, "LOG2", ANY, { 0 } },     { "log", 2, "LOG", ANY, { 0 } },
    { "signum", ANY, "SIGNUM", ANY, { 0 } }, { "sin", ANY, "SIN", ANY, { 0 } },
    { "sinh", ANY, "SINH", ANY, { 0 } },     { "sqrt", ANY, "SQRT", ANY, { 0 } },
    { "tan", ANY, "TAN", ANY, { 0 } },       { "tanh", ANY, "TANH", ANY, { 0 } },
    { "power", ANY, "POWER", ANY, { 0 } },   { "pi", ANY, "PI", ANY, { 0 } },
    { "e", ANY, "E", ANY, { 0 } },
    { "spark_partition_id", ANY, "SPARK_PARTITION_ID", ANY, { 0 } },
    /* ranking functions: their argument is the window's order */
    { "rank", ANY, "RANK", 0, { 0 } },
    { "dense_rank", ANY, "DENSE_RANK", 0, { 0 } },
    { "percent_rank", ANY, "PERCENT_RANK", 0, { 0 } },
    { "regexp", ANY, "REGEXP", ANY, { 0 } },
    { "regexp_like", ANY, "REGEXP_LIKE", ANY, { 0 } },
    { "rlike", ANY, "RLIKE", ANY, { 0 } },
    /* aliases named after the function they stand for */
    { "dateadd", ANY, "date_add", ANY, { 0 } },
    { "curdate", ANY, "current_date", ANY, { 0 } },
    { "current_database", ANY, "current_schema", ANY, { 0 } },
    { "array_agg", ANY, "collect_list", ANY, { 0 } },
    { "random", ANY, "rand", ANY, { 0 } },
    /* defaults shown */
    { "bround", ANY, NULL, ANY, { 0, "0" } },
    { "round", ANY, NULL, ANY, { 0, "0" } },
    { "locate", ANY, NULL, ANY, { 0, 0, "1" } },
    { "position", ANY, NULL, ANY, { 0, 0, "1" } },
    { "lag", ANY, NULL, ANY, { 0, "1", "NULL" } },
    { "lead", ANY, NULL, ANY, { 0, "1", "NULL" } },
    { "percentile_approx", ANY, NULL, ANY, { 0, 0, "10000" } },
    { "approx_percentile", ANY, NULL, ANY, { 0, 0, "10000" } },
    { "percentile", ANY, NULL, ANY, { 0, 0, "1" } },
    { "regexp_replace", ANY, NULL, ANY, { 0, 0, 0, "1" } },
    { "regexp_extract", ANY, NULL, ANY, { 0, 0, "1" } },
    { "regexp_extract_all", ANY, NULL, ANY, { 0, 0, "1" } },
    { "regexp_instr", ANY, NULL, ANY, { 0, 0, "0" } },
    { "split", ANY, NULL, ANY, { 0, 0, "-1" } },
    { "overlay", ANY, NULL, ANY, { 0, 0, 0, "-1" } },
    { "lpad", ANY, NULL, ANY, { 0, 0, " " } },
    { "rpad", ANY, NULL, ANY, { 0, 0, " " } },
    { "replace", ANY, NULL, ANY, { 0, 0, "" } },
    { "sort_array", ANY, NULL, ANY, { 0, "true" } },
    { "months_between", ANY, NULL, ANY, { 0, 0, "true" } },
    { "from_unixtime", ANY, NULL, ANY, { 0, "yyyy-MM-dd HH:mm:ss" } },
    { "unix_timestamp", ANY, NULL, ANY,
      { "current_timestamp()", "yyyy-MM-dd HH:mm:ss" } },
    { "to_unix_timestamp", ANY, NULL, ANY, { 0, "yyyy-MM-dd HH:mm:ss" } },
    { "make_ym_interval", ANY, NULL, ANY, { "0", "0" } },
    { "make_dt_interval", ANY, NULL, ANY, { "0", "0", "0", "0.000000" } },
    { "make_interval", ANY, NULL, ANY, { "0", "0", "0", "0", "0", "0", "0.000000" } },
    { "try_make_interval", ANY, NULL, ANY,
      { "0", "0", "0", "0", "0", "0", "0.000000" } },
    { "mask", ANY, NULL, ANY, { 0, "X", "x", "n", "NULL" } },
    { "str_to_map", ANY, NULL, ANY, { 0, ",", ":" } },
    { "sentences", ANY, NULL, ANY, { 0, "", "" } },
    { "listagg", ANY, NULL, ANY, { 0, "NULL" } },
    { "string_agg", ANY, NULL, ANY, { 0, "NULL" } },
    { "aes_encrypt", ANY, NULL, ANY, { 0, 0, "GCM", "DEFAULT", "", "" } },
    { "aes_decrypt", ANY, NULL, ANY, { 0, 0, "GCM", "DEFAULT", "" } },
    { "try_aes_decrypt", ANY, NULL, ANY, { 0, 0, "GCM", "DEFAULT", "" } },
    { "hll_sketch_agg", ANY, NULL, ANY, { 0, "12" } },
    { "hll_union", ANY, NULL, ANY, { 0, 0, "false" } },
    { "theta_sketch_agg", ANY, NULL, ANY, { 0, "12" } },
    { "theta_union", ANY, NULL, ANY, { 0, 0, "12" } },
    { "theta_union_agg", ANY, NULL, ANY, { 0, "12" } },
    { "approx_top_k", ANY, NULL, ANY, { 0, "5", "10000" } },
    { "approx_top_k_accumulate", ANY, NULL, ANY, { 0, "10000" } },
    { "approx_top_k_estimate", ANY, NULL, ANY, { 0, "5" } },
    { "substr", ANY, NULL, ANY, { 0, 0, "2147483647" } },
    { "current_time", ANY, NULL, ANY, { "6" } },
    { "substring", ANY, NULL, ANY, { 0, 0, "2147483647" } },
    /* arguments not shown */
    { "first", ANY, NULL, 1, { 0 } },        { "last", ANY, NULL, 1, { 0 } },
    { "first_value", ANY, NULL, 1, { 0 } },  { "last_value", ANY, NULL, 1, { 0 } },
    { "any_value", ANY, NULL, 1, { 0 } },
    { "from_json", ANY, NULL, 1, { 0 } },    { "from_csv", ANY, NULL, 1, { 0 } },
    { "from_xml", ANY, NULL, 1, { 0 } },     { "to_json", ANY, NULL, 1, { 0 } },
    { "to_csv", ANY, NULL, 1, { 0 } },       { "to_xml", ANY, NULL, 1, { 0 } },
    { "schema_of_json", ANY, NULL, 1, { 0 } },
    { "schema_of_csv", ANY, NULL, 1, { 0 } },
    { "schema_of_xml", ANY, NULL, 1, { 0 } },
    { "variant_get", ANY, NULL, 2, { 0 } },
    { "try_variant_get", ANY, NULL, 2, { 0 } },
    { "try_make_timestamp", 7, NULL, 6, { 0 } },
    { NULL, 0, NULL, 0, { 0 } }
};

/* The functions that are casts: named after their argument. */
static const char *const CASTS[] = { "boolean", "tinyint", "smallint", "int",
                                     "bigint", "float", "double", "decimal",
                                     "date", "timestamp", "string", "binary",
                                     NULL };

/* array_sort's default comparator, as Spark names it. */
static const char ARRAY_SORT_CMP[] =
    "lambdafunction((IF(((namedlambdavariable() IS NULL) AND "
    "(namedlambdavariable() IS NULL)), 0, (IF((namedlambdavariable() IS NULL), "
    "1, (IF((namedlambdavariable() IS NULL), -1, (IF((namedlambdavariable() < "
    "namedlambdavariable()), -1, (IF((namedlambdavariable() > "
    "namedlambdavariable()), 1, 0)))))))))), namedlambdavariable(), "
    "namedlambdavariable())";

static const fn_pretty *lookup(const char *name, size_t n)
{
    for (int i = 0; FNS[i].called; i++)
        if ((FNS[i].arity == ANY || (size_t)FNS[i].arity == n) &&
            weir__str_ieq(FNS[i].called, name))
            return &FNS[i];
    return NULL;
}

static bool is(const weir_sql_expr *e, const char *name, size_t n)
{
    return e->n == n && weir__str_ieq(e->name, name);
}

static void lower(weir_buf *out, const char *s)
{
    for (; *s; s++)
        weir__buf_putc(out, (char)tolower((unsigned char)*s));
}

static void arg(weir_buf *out, const weir_sql_expr *e, int depth,
                const sql_pretty *c)
{
    weir__sql_pretty_expr(out, e, depth, c);
}

/* Calls Spark turns into operators or other expressions. True when e was
 * written. */
static bool operator_call(weir_buf *out, const weir_sql_expr *e, int depth,
                          const sql_pretty *c)
{
    const weir_sql_expr *const *a = (const weir_sql_expr *const *)e->list;
    if (is(e, "isnull", 1) || is(e, "isnotnull", 1)) {
        weir__buf_putc(out, '(');
        arg(out, a[0], depth, c);
        weir__buf_puts(out, strlen(e->name) == 9 ? " IS NOT NULL)" : " IS NULL)");
        return true;
    }
    if (is(e, "positive", 1)) {
        weir__buf_puts(out, "(+ ");
        arg(out, a[0], depth, c);
        weir__buf_putc(out, ')');
        return true;
    }
    if (is(e, "like", 2)) {
        arg(out, a[0], depth, c);
        weir__buf_puts(out, " LIKE ");
        arg(out, a[1], depth, c);
        return true;
    }
    if (weir__str_ieq(e->name, "mode") && (e->n_within || is(e, "mode", 2))) {
        /* Spark 4.1 names mode(x, true) and mode() WITHIN GROUP (ORDER BY
         * x) with the order of the other */
        bool desc = e->n_within ? e->within[0].dir != 2
                                : e->list[1]->kind == EX_LIT && weir__str_ieq(e->list[1]->text, "true");
        if (!desc && !e->n_within) {
            weir__buf_puts(out, "mode(");
            arg(out, e->list[0], depth, c);
            weir__buf_putc(out, ')');
            return true;
        }
        weir__buf_puts(out, "mode() WITHIN GROUP (ORDER BY ");
        arg(out, e->n_within ? e->within[0].e : e->list[0], depth, c);
        weir__buf_puts(out, desc ? " DESC)" : ")");
        return true;
    }
    if (is(e, "to_char", 2) || is(e, "to_varchar", 2)) {
        /* The function Spark picks by the first argument's type: known
         * here for literals only; numbers otherwise. */
        const weir_sql_expr *x = a[0], *f = a[1];
        int lit = x->kind == EX_LIT ? (int)x->lit : 0;
        const char *fmt = f->kind == EX_LIT && f->lit == LIT_STRING ? f->text : "";
        bool bin = lit == LIT_BINARY || (x->kind == EX_FUNC && weir__str_ieq(x->name, "encode"));
        if (lit == LIT_DATE || lit == LIT_TIMESTAMP || lit == LIT_TIMESTAMP_NTZ) {
            weir__buf_puts(out, "date_format(");
        } else if (bin && (weir__str_ieq(fmt, "base64") || weir__str_ieq(fmt, "hex"))) {
            lower(out, e->name[3] == 'v' ? "to_varchar" : fmt);
            weir__buf_putc(out, '(');
            arg(out, x, depth, c);
            weir__buf_putc(out, ')');
            return true;
        } else {
            weir__buf_puts(out, !bin                ? "to_char("
                                : e->name[3] == 'v' ? "to_varchar("
                                                    : "decode(");
        }
        arg(out, x, depth, c);
        weir__buf_puts(out, ", ");
        arg(out, f, depth, c);
        weir__buf_putc(out, ')');
        return true;
    }
    if (is(e, "log", 1)) {
        weir__buf_puts(out, "LOG(E(), ");
        arg(out, a[0], depth, c);
        weir__buf_putc(out, ')');
        return true;
    }
    if (is(e, "datepart", 2)) {
        weir__buf_puts(out, "datepart(");
        arg(out, a[0], depth, c);
        weir__buf_puts(out, " FROM ");
        arg(out, a[1], depth, c);
        weir__buf_putc(out, ')');
        return true;
    }
    if (is(e, "trim", 2) || is(e, "ltrim", 2) || is(e, "rtrim", 2)) {
        char k = (char)tolower((unsigned char)e->name[0]);
        weir__buf_puts(out, k == 'l' ? "TRIM(LEADING " : k == 'r' ? "TRIM(TRAILING "
                                                                  : "TRIM(BOTH ");
        arg(out, a[0], depth, c);
        weir__buf_puts(out, " FROM ");
        arg(out, a[1], depth, c);
        weir__buf_putc(out, ')');
        return true;
    }
    for (int i = 0; CASTS[i]; i++)
        if (is(e, CASTS[i], 1)) {
            arg(out, a[0], depth, c);
            return true;
        }
    return false;
}

/* Arguments Spark adds in front of or after the written ones. */
static void leading_args(weir_buf *out, const weir_sql_expr *e)
{
    if (is(e, "convert_timezone", 2))
        weir__buf_puts(out, "current_timezone(), ");
    else if (is(e, "raise_error", 1))
        weir__buf_puts(out, "USER_RAISED_EXCEPTION, map(errorMessage, ");
}

static void trailing_args(weir_buf *out, const weir_sql_expr *e, int depth,
                          const sql_pretty *c)
{
    if (is(e, "raise_error", 1)) {
        weir__buf_putc(out, ')');
    } else if (is(e, "assert_true", 1)) {
        weir__buf_puts(out, ", '");
        arg(out, e->list[0], depth, c);
        weir__buf_puts(out, "' is not true!");
    } else if (is(e, "array_sort", 1)) {
        weir__buf_puts(out, ", ");
        weir__buf_puts(out, ARRAY_SORT_CMP);
    } else if (is(e, "aggregate", 3) || is(e, "reduce", 3)) {
        weir__buf_puts(out, ", lambdafunction(namedlambdavariable(), "
                            "namedlambdavariable())");
    }
}

static void within_group(weir_buf *out, const weir_sql_expr *e, int depth,
                         const sql_pretty *c)
{
    bool full = weir__str_ieq(e->name, "listagg") || weir__str_ieq(e->name, "string_agg");
    weir__buf_puts(out, " WITHIN GROUP (ORDER BY ");
    for (size_t i = 0; i < e->n_within; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        arg(out, e->within[i].e, depth, c);
        bool desc = e->within[i].dir == 2;
        int nulls = e->within[i].nulls ? e->within[i].nulls : (desc ? 2 : 1);
        if (full)
            weir__buf_printf(out, "%s%s", desc ? " DESC" : " ASC",
                             nulls == 1 ? " NULLS FIRST" : " NULLS LAST");
        else if (desc)
            weir__buf_puts(out, " DESC");
    }
    weir__buf_putc(out, ')');
}

void weir__sql_pretty_call(weir_buf *out, const weir_sql_expr *e, int depth,
                           const sql_pretty *c)
{
    const char *name = e->name;
    if (weir__str_ieq(name, "count") && e->n == 1 && e->list[0]->kind == EX_STAR) {
        weir__buf_puts(out, "count(1)");
    } else if (!e->over && (weir__str_ieq(name, "window") ||
                            weir__str_ieq(name, "session_window"))) {
        /* Spark names a time window by its column: window_time(window) */
        lower(out, name);
    } else if (weir__str_ieq(name, "if") || weir__str_ieq(name, "iff")) {
        weir__buf_puts(out, "(IF(");
        for (size_t i = 0; i < e->n; i++) {
            if (i)
                weir__buf_puts(out, ", ");
            arg(out, e->list[i], depth, c);
        }
        weir__buf_puts(out, "))");
    } else if (!operator_call(out, e, depth, c)) {
        const fn_pretty *f = lookup(name, e->n);
        if (f && f->shown)
            weir__buf_puts(out, f->shown);
        else if (e->n_within && weir__str_ieq(name, "string_agg"))
            weir__buf_puts(out, "listagg");
        else
            lower(out, name);
        weir__buf_putc(out, '(');
        if (e->distinct)
            weir__buf_puts(out, "DISTINCT ");
        leading_args(out, e);
        size_t shown = f && f->keep != ANY && (size_t)f->keep < e->n ? (size_t)f->keep : e->n;
        size_t k = 0;
        for (; k < shown; k++) {
            if (k)
                weir__buf_puts(out, ", ");
            arg(out, e->list[k], depth, c);
        }
        for (; f && k < 7 && f->dflt[k]; k++)
            weir__buf_printf(out, "%s%s", k ? ", " : "", f->dflt[k]);
        trailing_args(out, e, depth, c);
        weir__buf_putc(out, ')');
        if (e->ignore_nulls == 1 && weir__str_ieq(name, "nth_value"))
            weir__buf_puts(out, " ignore nulls");
    }
    if (e->n_within && !weir__str_ieq(name, "mode"))
        within_group(out, e, depth, c);
    if (e->filter) {
        weir__buf_puts(out, " FILTER (WHERE ");
        arg(out, e->filter, depth, c);
        weir__buf_putc(out, ')');
    }
    if (e->over)
        weir__sql_pretty_window(out, e, depth, c);
}
