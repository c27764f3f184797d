/*
 * Spark Connect expressions to Spark SQL expression text. Operators are
 * written infix and always parenthesised, so the text does not depend on
 * operator precedence; everything else is a call of the same-named Spark
 * function. Column references with a plan id (df["col"]) are qualified
 * with the name of the relation that carries that id in the current scope.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "util/str.h"

typedef Spark__Connect__Expression Expr;

static int list(plan_ctx *c, weir_buf *b, Expr *const *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (weir__plan_expr(c, b, items[i]) < 0)
            return -1;
    }
    return 0;
}

static const plan_scope_entry *scope_entry(const plan_ctx *c, int64_t plan_id)
{
    for (size_t i = c->scope ? c->scope->len : 0; i-- > 0;)
        if (c->scope->items[i].plan_id == plan_id)
            return &c->scope->items[i];
    return NULL;
}

static const char *scope_qual(const plan_ctx *c, int64_t plan_id, bool *found)
{
    const plan_scope_entry *e = scope_entry(c, plan_id);
    *found = e != NULL;
    return e ? e->qual : NULL;
}

static void put_plan_qual(plan_ctx *c, weir_buf *b, bool has_id, int64_t id)
{
    if (!has_id)
        return;
    bool found;
    const char *q = scope_qual(c, id, &found);
    if (q) {
        weir__buf_puts(b, q);
        weir__buf_putc(b, '.');
    }
}

/* The value a defined name stands for (c->defs), or NULL. A reference
 * qualified by a join side's plan id is that side's column, not a def. */
static const char *def_of(const plan_ctx *c,
                          const Spark__Connect__Expression__UnresolvedAttribute *a)
{
    if (!c->defs || !a || !a->unparsed_identifier)
        return NULL;
    bool found = false;
    if (a->_plan_id_case && scope_qual(c, a->plan_id, &found))
        return NULL;
    for (size_t i = 0; i < c->defs->n; i++)
        if (weir__str_ieq(c->defs->names[i], a->unparsed_identifier))
            return c->defs->sqls[i];
    return NULL;
}

/* A reference through one side of a join that a later step made a
 * derived table of (plan_scope_entry.lost). */
static int lost_side(plan_ctx *c, const plan_scope_entry *se, const char *name)
{
    if (se->lost == PLAN_LOST_BOTH)
        return weir__plan_fail(c, "CANNOT_RESOLVE_DATAFRAME_COLUMN",
                               "Cannot resolve dataframe column \"%.200s\": both inputs "
                               "of the set operation hold its DataFrame.",
                               name);
    return weir__plan_fail(
        c, PLAN_E_UNSUPPORTED,
        "The column \"%.200s\" is referenced through one side of a join after an "
        "operation over the whole join (withColumnRenamed, union, dropDuplicates, "
        "toDF, alias, ...): weir cannot yet tell the sides' same-named columns apart "
        "there. Select the columns you need from the join first (e.g. "
        "j.select(d.name.alias(\"d_name\"), ...)) or use the operation's own column "
        "names.",
        name);
}

static int attribute(plan_ctx *c, weir_buf *b,
                     const Spark__Connect__Expression__UnresolvedAttribute *a)
{
    if (!a || !a->unparsed_identifier)
        return weir__plan_fail(c, PLAN_E_INVALID, "A column reference has no name.");
    const char *def = def_of(c, a);
    if (def) {
        weir__buf_printf(b, "(%s)", def);
        return 0;
    }
    const plan_scope_entry *se = a->_plan_id_case ? scope_entry(c, a->plan_id) : NULL;
    if (se && se->ambiguous)
        return weir__plan_fail(
            c, "AMBIGUOUS_COLUMN_REFERENCE",
            "Column \"%.200s\" is ambiguous. It's because you joined several DataFrame "
            "together, and some of these DataFrames are the same. This column points to "
            "one of the DataFrames but weir is unable to figure out which one. Please "
            "alias the DataFrames with different names via `DataFrame.alias` before "
            "joining them, and specify the column using qualified name, e.g. "
            "`df.alias(\"a\").join(df.alias(\"b\"), col(\"a.id\") > col(\"b.id\"))`.",
            a->unparsed_identifier);
    if (se && se->lost)
        return lost_side(c, se, a->unparsed_identifier);
    put_plan_qual(c, b, a->_plan_id_case, a->plan_id);
    return weir__plan_put_name(c, b, a->unparsed_identifier, "column");
}

static int star(plan_ctx *c, weir_buf *b,
                const Spark__Connect__Expression__UnresolvedStar *s)
{
    if (s && s->_unparsed_target_case && s->unparsed_target) {
        const char *t = s->unparsed_target;
        size_t n = strlen(t);
        if (n < 3 || strcmp(t + n - 2, ".*") != 0)
            return weir__plan_fail(c, PLAN_E_SYNTAX, "Invalid star target '%.200s'.", t);
        char *q = strndup(t, n - 2);
        if (!q)
            return weir__plan_fail(c, "OUT_OF_MEMORY", "Out of memory.");
        int rc = weir__plan_put_name(c, b, q, "star target");
        free(q);
        if (rc < 0)
            return -1;
        weir__buf_puts(b, ".*");
        return 0;
    }
    if (s && s->_plan_id_case) {
        const plan_scope_entry *se = scope_entry(c, s->plan_id);
        if (se && se->lost)
            return lost_side(c, se, "*");
        put_plan_qual(c, b, true, s->plan_id);
    }
    weir__buf_putc(b, '*');
    return 0;
}

/* Operators the client sends as function names. */
static const struct {
    const char *name, *sql;
} BINARY[] = {
    { "==", "=" },  { "!=", "<>" }, { "<", "<" },     { "<=", "<=" },
    { ">", ">" },   { ">=", ">=" }, { "+", "+" },     { "-", "-" },
    { "*", "*" },   { "/", "/" },   { "%", "%" },     { "and", "AND" },
    { "or", "OR" }, { "&", "&" },   { "|", "|" },     { "^", "^" },
    { "<=>", "<=>" }, { "||", "||" }, { "like", "LIKE" }, { "ilike", "ILIKE" },
    { "rlike", "RLIKE" }, { NULL, NULL }
};

static bool valid_function_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == '.'))
            return false;
    return true;
}

static int arity(plan_ctx *c, const char *name, size_t n, size_t lo, size_t hi)
{
    if (n < lo || n > hi)
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "'%s' was given %zu arguments.", name, n);
    return 0;
}

static int when(plan_ctx *c, weir_buf *b,
                const Spark__Connect__Expression__UnresolvedFunction *f)
{
    if (f->n_arguments < 2)
        return arity(c, "when", f->n_arguments, 2, (size_t)-1);
    weir__buf_puts(b, "CASE");
    size_t i = 0;
    for (; i + 1 < f->n_arguments; i += 2) {
        weir__buf_puts(b, " WHEN ");
        if (weir__plan_expr(c, b, f->arguments[i]) < 0)
            return -1;
        weir__buf_puts(b, " THEN ");
        if (weir__plan_expr(c, b, f->arguments[i + 1]) < 0)
            return -1;
    }
    if (i < f->n_arguments) {
        weir__buf_puts(b, " ELSE ");
        if (weir__plan_expr(c, b, f->arguments[i]) < 0)
            return -1;
    }
    weir__buf_puts(b, " END");
    return 0;
}

/* from_json(col, StructType(...)): the client sends the schema as its JSON
 * (a string literal); Spark parses either form, weir's SQL takes DDL. */
static int from_json(plan_ctx *c, weir_buf *b,
                     const Spark__Connect__Expression__UnresolvedFunction *f)
{
    const Expr *s = f->arguments[1];
    const char *text = s && s->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL &&
                               s->literal &&
                               s->literal->literal_type_case ==
                                   SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING
                           ? s->literal->string
                           : NULL;
    weir_buf ddl = WEIR_BUF_INIT;
    int is_json = text ? weir__plan_json_type_ddl(c, &ddl, text) : 0;
    int rc = is_json < 0 ? -1 : 0;
    weir__buf_printf(b, "%s(", f->function_name);
    for (size_t i = 0; rc == 0 && i < f->n_arguments; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (i == 1 && is_json)
            weir__plan_put_string(b, weir__buf_cstr(&ddl));
        else if (weir__plan_expr(c, b, f->arguments[i]) < 0)
            rc = -1;
    }
    weir__buf_putc(b, ')');
    weir__buf_free(&ddl);
    return rc;
}

static int function(plan_ctx *c, weir_buf *b,
                    const Spark__Connect__Expression__UnresolvedFunction *f)
{
    if (!f || !f->function_name)
        return weir__plan_fail(c, PLAN_E_INVALID, "A function call has no name.");
    const char *name = f->function_name;
    Expr *const *a = f->arguments;
    size_t n = f->n_arguments;
    for (int i = 0; BINARY[i].name; i++) {
        if (strcmp(name, BINARY[i].name) != 0)
            continue;
        if (n == 1 && strcmp(name, "-") == 0) {
            weir__buf_puts(b, "(- ");
            if (weir__plan_expr(c, b, a[0]) < 0)
                return -1;
            weir__buf_putc(b, ')');
            return 0;
        }
        bool like = strstr(BINARY[i].sql, "LIKE") != NULL;
        if (arity(c, name, n, 2, like && strcmp(name, "rlike") != 0 ? 3 : 2) < 0)
            return -1;
        weir__buf_putc(b, '(');
        if (weir__plan_expr(c, b, a[0]) < 0)
            return -1;
        weir__buf_printf(b, " %s ", BINARY[i].sql);
        if (weir__plan_expr(c, b, a[1]) < 0)
            return -1;
        if (n == 3) {
            weir__buf_puts(b, " ESCAPE ");
            if (weir__plan_expr(c, b, a[2]) < 0)
                return -1;
        }
        weir__buf_putc(b, ')');
        return 0;
    }
    if (strcmp(name, "not") == 0 || strcmp(name, "!") == 0 || strcmp(name, "~") == 0) {
        if (arity(c, name, n, 1, 1) < 0)
            return -1;
        weir__buf_puts(b, name[0] == '~' ? "(~ " : "(NOT ");
        if (weir__plan_expr(c, b, a[0]) < 0)
            return -1;
        weir__buf_putc(b, ')');
        return 0;
    }
    if (strcmp(name, "isNull") == 0 || strcmp(name, "isNotNull") == 0) {
        if (arity(c, name, n, 1, 1) < 0)
            return -1;
        weir__buf_putc(b, '(');
        if (weir__plan_expr(c, b, a[0]) < 0)
            return -1;
        weir__buf_puts(b, name[2] == 'N' && name[3] == 'o' ? " IS NOT NULL)" : " IS NULL)");
        return 0;
    }
    if (strcmp(name, "when") == 0)
        return when(c, b, f);
    if (strcmp(name, "in") == 0) {
        if (arity(c, name, n, 1, (size_t)-1) < 0)
            return -1;
        if (n == 1) {
            weir__buf_puts(b, "false"); /* isin() of nothing */
            return 0;
        }
        weir__buf_putc(b, '(');
        if (weir__plan_expr(c, b, a[0]) < 0)
            return -1;
        weir__buf_puts(b, " IN (");
        if (list(c, b, a + 1, n - 1) < 0)
            return -1;
        weir__buf_puts(b, "))");
        return 0;
    }
    if (strcmp(name, "between") == 0) {
        if (arity(c, name, n, 3, 3) < 0)
            return -1;
        weir__buf_putc(b, '(');
        if (weir__plan_expr(c, b, a[0]) < 0)
            return -1;
        weir__buf_puts(b, " BETWEEN ");
        if (weir__plan_expr(c, b, a[1]) < 0)
            return -1;
        weir__buf_puts(b, " AND ");
        if (weir__plan_expr(c, b, a[2]) < 0)
            return -1;
        weir__buf_putc(b, ')');
        return 0;
    }
    if (!valid_function_name(name))
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "Unknown operator or function '%.100s'.", name);
    /* Column method names that differ from the SQL function. */
    if (strcmp(name, "isNaN") == 0)
        name = "isnan";
    else if (strcmp(name, "extract") == 0)
        name = "date_part";
    if ((strcmp(name, "from_json") == 0 || strcmp(name, "from_xml") == 0) && n >= 2)
        return from_json(c, b, f);
    weir__buf_puts(b, name);
    weir__buf_putc(b, '(');
    if (f->is_distinct)
        weir__buf_puts(b, "DISTINCT ");
    if (list(c, b, a, n) < 0)
        return -1;
    weir__buf_putc(b, ')');
    return 0;
}

static int lambda_var(plan_ctx *c, weir_buf *b,
                      const Spark__Connect__Expression__UnresolvedNamedLambdaVariable *v)
{
    if (!v || v->n_name_parts == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "A lambda variable has no name.");
    for (size_t i = 0; i < v->n_name_parts; i++) {
        if (i)
            weir__buf_putc(b, '.');
        weir__plan_put_ident(b, v->name_parts[i]);
    }
    return 0;
}

static int lambda(plan_ctx *c, weir_buf *b,
                  const Spark__Connect__Expression__LambdaFunction *l)
{
    if (!l || !l->function || l->n_arguments == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "A lambda function is incomplete.");
    weir__buf_putc(b, '(');
    if (l->n_arguments > 1)
        weir__buf_putc(b, '(');
    for (size_t i = 0; i < l->n_arguments; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (lambda_var(c, b, l->arguments[i]) < 0)
            return -1;
    }
    if (l->n_arguments > 1)
        weir__buf_putc(b, ')');
    weir__buf_puts(b, " -> ");
    if (weir__plan_expr(c, b, l->function) < 0)
        return -1;
    weir__buf_putc(b, ')');
    return 0;
}

int weir__plan_sort_order(plan_ctx *c, weir_buf *b,
                          const Spark__Connect__Expression__SortOrder *s)
{
    if (!s || !s->child)
        return weir__plan_fail(c, PLAN_E_INVALID, "A sort order has no expression.");
    if (weir__plan_expr(c, b, s->child) < 0)
        return -1;
    weir__buf_puts(b, s->direction ==
                              SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_DESCENDING
                          ? " DESC" : " ASC");
    if (s->null_ordering ==
        SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_FIRST)
        weir__buf_puts(b, " NULLS FIRST");
    else if (s->null_ordering ==
             SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_LAST)
        weir__buf_puts(b, " NULLS LAST");
    return 0;
}

/* The sign of a numeric literal boundary: -1, 0, 1; 2 if not a literal. */
static int literal_sign(const Expr *e)
{
    if (!e || e->expr_type_case != SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL || !e->literal)
        return 2;
    const Spark__Connect__Expression__Literal *l = e->literal;
    switch (l->literal_type_case) {
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER:
        return (l->integer > 0) - (l->integer < 0);
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG:
        return (l->long_ > 0) - (l->long_ < 0);
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT:
        return (l->short_ > 0) - (l->short_ < 0);
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BYTE:
        return (l->byte > 0) - (l->byte < 0);
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE:
        return (l->double_ > 0) - (l->double_ < 0);
    case SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_FLOAT:
        return (l->float_ > 0) - (l->float_ < 0);
    default:
        return 2;
    }
}

static int boundary(plan_ctx *c, weir_buf *b,
                    const Spark__Connect__Expression__Window__WindowFrame__FrameBoundary *fb,
                    bool lower)
{
    if (!fb)
        return weir__plan_fail(c, PLAN_E_INVALID, "A window frame boundary is missing.");
    switch (fb->boundary_case) {
    case SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_CURRENT_ROW:
        weir__buf_puts(b, "CURRENT ROW");
        return 0;
    case SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_UNBOUNDED:
        weir__buf_puts(b, lower ? "UNBOUNDED PRECEDING" : "UNBOUNDED FOLLOWING");
        return 0;
    case SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_VALUE: {
        int sign = literal_sign(fb->value);
        if (sign == 0) {
            weir__buf_puts(b, "CURRENT ROW");
            return 0;
        }
        if (sign == 2)
            return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                   "A window frame boundary must be a number.");
        /* Render the magnitude: negate a negative literal. */
        weir_buf v = WEIR_BUF_INIT;
        int rc = weir__plan_expr(c, &v, fb->value);
        const char *s = weir__buf_cstr(&v);
        if (rc == 0) {
            weir__buf_puts(b, sign < 0 && s[0] == '-' ? s + 1 : s);
            weir__buf_puts(b, sign < 0 ? " PRECEDING" : " FOLLOWING");
        }
        weir__buf_free(&v);
        return rc;
    }
    default:
        return weir__plan_fail(c, PLAN_E_INVALID, "Unknown window frame boundary.");
    }
}

static int window(plan_ctx *c, weir_buf *b, const Spark__Connect__Expression__Window *w)
{
    if (!w || !w->window_function)
        return weir__plan_fail(c, PLAN_E_INVALID, "A window expression has no function.");
    if (weir__plan_expr(c, b, w->window_function) < 0)
        return -1;
    weir__buf_puts(b, " OVER (");
    const char *sep = "";
    if (w->n_partition_spec) {
        weir__buf_puts(b, "PARTITION BY ");
        if (list(c, b, w->partition_spec, w->n_partition_spec) < 0)
            return -1;
        sep = " ";
    }
    if (w->n_order_spec) {
        weir__buf_printf(b, "%sORDER BY ", sep);
        for (size_t i = 0; i < w->n_order_spec; i++) {
            if (i)
                weir__buf_puts(b, ", ");
            if (weir__plan_sort_order(c, b, w->order_spec[i]) < 0)
                return -1;
        }
        sep = " ";
    }
    const Spark__Connect__Expression__Window__WindowFrame *fr = w->frame_spec;
    if (fr && fr->frame_type !=
                  SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_TYPE__FRAME_TYPE_UNDEFINED) {
        bool rows = fr->frame_type ==
                    SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_TYPE__FRAME_TYPE_ROW;
        weir__buf_printf(b, "%s%s BETWEEN ", sep, rows ? "ROWS" : "RANGE");
        if (boundary(c, b, fr->lower, true) < 0)
            return -1;
        weir__buf_puts(b, " AND ");
        if (boundary(c, b, fr->upper, false) < 0)
            return -1;
    }
    weir__buf_putc(b, ')');
    return 0;
}

static bool is_simple(const Expr *e)
{
    return e && (e->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE ||
                 e->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION ||
                 e->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_EXTRACT_VALUE);
}

static int extract_value(plan_ctx *c, weir_buf *b,
                         const Spark__Connect__Expression__UnresolvedExtractValue *x)
{
    if (!x || !x->child || !x->extraction)
        return weir__plan_fail(c, PLAN_E_INVALID, "An element access is incomplete.");
    bool simple = is_simple(x->child);
    if (!simple)
        weir__buf_putc(b, '(');
    if (weir__plan_expr(c, b, x->child) < 0)
        return -1;
    if (!simple)
        weir__buf_putc(b, ')');
    weir__buf_putc(b, '[');
    if (weir__plan_expr(c, b, x->extraction) < 0)
        return -1;
    weir__buf_putc(b, ']');
    return 0;
}

static int cast(plan_ctx *c, weir_buf *b, const Spark__Connect__Expression__Cast *k)
{
    if (!k || !k->expr)
        return weir__plan_fail(c, PLAN_E_INVALID, "A cast has no expression.");
    weir__buf_puts(b, k->eval_mode == SPARK__CONNECT__EXPRESSION__CAST__EVAL_MODE__EVAL_MODE_TRY
                          ? "TRY_CAST(" : "CAST(");
    if (weir__plan_expr(c, b, k->expr) < 0)
        return -1;
    weir__buf_puts(b, " AS ");
    switch (k->cast_to_type_case) {
    case SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE:
        if (weir__plan_type(c, b, k->type, false) < 0)
            return -1;
        break;
    case SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE_STR: {
        const char *t = k->type_str;
        if (!t || !*t)
            return weir__plan_fail(c, PLAN_E_INVALID, "A cast has an empty type.");
        for (const char *p = t; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                  (*p >= '0' && *p <= '9') || strchr("_ ,<>():`", *p)))
                return weir__plan_fail(c, PLAN_E_SYNTAX, "Invalid cast type '%.200s'.", t);
        if (weir__plan_check_text(c, t, "cast type") < 0)
            return -1;
        weir__buf_puts(b, t);
        break;
    }
    default:
        return weir__plan_fail(c, PLAN_E_INVALID, "A cast has no target type.");
    }
    weir__buf_putc(b, ')');
    return 0;
}

int weir__plan_expr(plan_ctx *c, weir_buf *b, const Expr *e)
{
    if (!e)
        return weir__plan_fail(c, PLAN_E_INVALID, "An expression is missing.");
    plan_mark m;
    if (weir__plan_enter(c, b, e->common ? e->common->origin : NULL, &m) < 0)
        return -1;
    int rc = 0;
    switch (e->expr_type_case) {
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL:
        rc = weir__plan_literal(c, b, e->literal);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE:
        rc = attribute(c, b, e->unresolved_attribute);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION:
        rc = function(c, b, e->unresolved_function);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_EXPRESSION_STRING:
        if (!e->expression_string ||
            weir__plan_check_text(c, e->expression_string->expression, "expression") < 0) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "An expression string is missing.");
            break;
        }
        weir__buf_putc(b, '(');
        weir__buf_put(b, e->expression_string->expression,
                      weir__plan_text_unaliased(e->expression_string->expression));
        if (strstr(e->expression_string->expression, "--"))
            weir__buf_putc(b, '\n'); /* a comment ends at the line's end */
        weir__buf_putc(b, ')');
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR:
        rc = star(c, b, e->unresolved_star);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS:
        /* An alias inside an expression names nothing in SQL. */
        if (!e->alias || !e->alias->expr)
            rc = weir__plan_fail(c, PLAN_E_INVALID, "An alias has no expression.");
        else
            rc = weir__plan_expr(c, b, e->alias->expr);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST:
        rc = cast(c, b, e->cast);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_SORT_ORDER:
        rc = weir__plan_sort_order(c, b, e->sort_order);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LAMBDA_FUNCTION:
        rc = lambda(c, b, e->lambda_function);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_NAMED_LAMBDA_VARIABLE:
        rc = lambda_var(c, b, e->unresolved_named_lambda_variable);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_WINDOW:
        rc = window(c, b, e->window);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_EXTRACT_VALUE:
        rc = extract_value(c, b, e->unresolved_extract_value);
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CALL_FUNCTION: {
        const Spark__Connect__CallFunction *f = e->call_function;
        if (!f || !valid_function_name(f->function_name)) {
            rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED, "Invalid function name in call_function.");
            break;
        }
        weir__buf_printf(b, "%s(", f->function_name);
        rc = list(c, b, f->arguments, f->n_arguments);
        weir__buf_putc(b, ')');
        break;
    }
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_NAMED_ARGUMENT_EXPRESSION: {
        const Spark__Connect__NamedArgumentExpression *na = e->named_argument_expression;
        if (!na || !na->key || !na->value) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "A named argument is incomplete.");
            break;
        }
        weir__plan_put_ident(b, na->key);
        weir__buf_puts(b, " => ");
        rc = weir__plan_expr(c, b, na->value);
        break;
    }
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_COMMON_INLINE_USER_DEFINED_FUNCTION: {
        const Spark__Connect__CommonInlineUserDefinedFunction *u =
            e->common_inline_user_defined_function;
        rc = weir__plan_fail(c, PLAN_E_UDF,
                             "Python user-defined function '%.200s' cannot run on weir: "
                             "write it with Spark SQL functions.",
                             u && u->function_name ? u->function_name : "?");
        break;
    }
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UPDATE_FIELDS:
        rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                             "Column.withField and Column.dropFields are not supported "
                             "yet; build the struct with F.struct.");
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_REGEX:
        rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                             "DataFrame.colRegex is not supported; name the columns.");
        break;
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_SUBQUERY_EXPRESSION:
        rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                             "DataFrame subquery expressions (scalar(), exists(), isin(df)) "
                             "are not supported yet; use spark.sql or a join.");
        break;
    default: {
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
            &spark__connect__expression__descriptor, (unsigned)e->expr_type_case);
        rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                             "The expression kind %s is not supported.",
                             f ? f->name : "(unknown)");
        break;
    }
    }
    weir__plan_leave(c, &m);
    return rc;
}

int weir__plan_item(plan_ctx *c, weir_buf *b, const Expr *e)
{
    if (!e)
        return weir__plan_fail(c, PLAN_E_INVALID, "A column expression is missing.");
    if (e->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_EXPRESSION_STRING &&
        e->expression_string) {
        plan_mark m;
        if (weir__plan_enter(c, b, e->common ? e->common->origin : NULL, &m) < 0)
            return -1;
        int rc = weir__plan_check_text(c, e->expression_string->expression, "expression");
        if (rc == 0)
            weir__plan_put_text(b, e->expression_string->expression);
        weir__plan_leave(c, &m);
        return rc;
    }
    if (e->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE &&
        def_of(c, e->unresolved_attribute)) {
        /* A defined column keeps its name. */
        if (weir__plan_expr(c, b, e) < 0)
            return -1;
        weir__buf_puts(b, " AS ");
        weir__plan_put_ident(b, e->unresolved_attribute->unparsed_identifier);
        return 0;
    }
    if (e->expr_type_case != SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS || !e->alias)
        return weir__plan_expr(c, b, e);
    const Spark__Connect__Expression__Alias *a = e->alias;
    plan_mark m;
    if (weir__plan_enter(c, b, e->common ? e->common->origin : NULL, &m) < 0)
        return -1;
    int rc = weir__plan_expr(c, b, a->expr);
    if (rc == 0 && a->n_name == 0)
        rc = weir__plan_fail(c, PLAN_E_INVALID, "An alias has no name.");
    if (rc == 0) {
        weir__buf_puts(b, " AS ");
        if (a->n_name > 1)
            weir__buf_putc(b, '(');
        for (size_t i = 0; i < a->n_name; i++) {
            if (i)
                weir__buf_puts(b, ", ");
            weir__plan_put_ident(b, a->name[i]);
        }
        if (a->n_name > 1)
            weir__buf_putc(b, ')');
    }
    weir__plan_leave(c, &m);
    return rc;
}
