/*
 * Relations over two DataFrames: joins (ON a condition, USING columns,
 * cross) and set operations (UNION, INTERSECT, EXCEPT, with ALL and BY
 * NAME). A join keeps the plan ids of both sides in scope, so df1["a"] ==
 * df2["a"] resolves to each side's name.
 */
#include <string.h>

#include "connect/plan_query.h"
#include "util/str.h"

static int join_operand(plan_ctx *c, plan_query *x, bool right, weir_buf *b)
{
    if (x->is_join && !x->is_closed && x->stage == PLAN_ST_FROM && x->where.len == 0 &&
        x->select.len == 0) {
        weir__buf_printf(b, right ? "(%s)" : "%s", weir__buf_cstr(&x->from));
        return 0;
    }
    if (weir__plan_query_wrap(c, x, NULL) < 0)
        return -1;
    weir__buf_puts(b, weir__buf_cstr(&x->from));
    return 0;
}

static const char *join_kw(Spark__Connect__Join__JoinType t)
{
    switch (t) {
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_FULL_OUTER: return "FULL OUTER JOIN";
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_OUTER: return "LEFT OUTER JOIN";
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_RIGHT_OUTER: return "RIGHT OUTER JOIN";
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_ANTI: return "LEFT ANTI JOIN";
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_SEMI: return "LEFT SEMI JOIN";
    case SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS: return "CROSS JOIN";
    default: return "JOIN";
    }
}

/* The input of a relation whose output is its input's columns, or NULL. */
static const Spark__Connect__Relation *same_columns_input(const Spark__Connect__Relation *r)
{
    switch (r->rel_type_case) {
    case SPARK__CONNECT__RELATION__REL_TYPE_FILTER: return r->filter ? r->filter->input : NULL;
    case SPARK__CONNECT__RELATION__REL_TYPE_SORT: return r->sort ? r->sort->input : NULL;
    case SPARK__CONNECT__RELATION__REL_TYPE_LIMIT: return r->limit ? r->limit->input : NULL;
    case SPARK__CONNECT__RELATION__REL_TYPE_OFFSET: return r->offset ? r->offset->input : NULL;
    case SPARK__CONNECT__RELATION__REL_TYPE_HINT: return r->hint ? r->hint->input : NULL;
    case SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS:
        return r->subquery_alias ? r->subquery_alias->input : NULL;
    case SPARK__CONNECT__RELATION__REL_TYPE_REPARTITION:
        return r->repartition ? r->repartition->input : NULL;
    default: return NULL;
    }
}

/* Does plan id `id` name the output columns of r (r itself, or below it
 * through relations that keep their input's columns)? */
static bool names_output(const Spark__Connect__Relation *r, int64_t id)
{
    for (unsigned depth = 0; r && depth < WEIR_PLAN_MAX_DEPTH; depth++) {
        if (r->common && r->common->_plan_id_case && r->common->plan_id == id)
            return true;
        r = same_columns_input(r);
    }
    return false;
}

/* Plan ids naming the output of both sides (df.join(df.alias("b"))) are
 * ambiguous in the join, as in Spark. */
static void mark_self_join(plan_scope *both, const Spark__Connect__Join *j)
{
    for (size_t i = 0; i < both->len; i++)
        if (names_output(j->left, both->items[i].plan_id) &&
            names_output(j->right, both->items[i].plan_id))
            both->items[i].ambiguous = true;
}

int weir__plan_join(plan_ctx *c, const Spark__Connect__Join *j, plan_query *out)
{
    if (!j)
        return weir__plan_fail(c, PLAN_E_INVALID, "A join is empty.");
    if (j->join_condition && j->n_using_columns)
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "A join has both a condition and USING columns.");
    plan_query l, r;
    weir__plan_query_init(&l);
    weir__plan_query_init(&r);
    int rc = -1;
    weir_buf from = WEIR_BUF_INIT;
    if (weir__plan_rel(c, j->left, &l) < 0 || weir__plan_rel(c, j->right, &r) < 0)
        goto out;
    /* The same table on both sides: name the right one apart. */
    if (l.qual && r.qual && weir__str_ieq(l.qual, r.qual) && weir__plan_query_is_item(&r)) {
        char alias[32];
        weir__plan_next_alias(c, alias, sizeof alias);
        if (weir__plan_query_wrap(c, &r, alias) < 0)
            goto out;
    }
    if (join_operand(c, &l, false, &from) < 0)
        goto out;
    bool cond = j->join_condition || j->n_using_columns;
    Spark__Connect__Join__JoinType t = j->join_type;
    const char *kw = join_kw(t);
    if (!cond && (t == SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_INNER ||
                  t == SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_UNSPECIFIED))
        kw = "CROSS JOIN";
    if (cond && t == SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS)
        kw = "JOIN";
    weir__buf_printf(&from, " %s ", kw);
    if (join_operand(c, &r, true, &from) < 0)
        goto out;
    plan_scope both = { NULL, 0, 0 };
    if (weir__plan_scope_append(c, &both, &l.scope) < 0 ||
        weir__plan_scope_append(c, &both, &r.scope) < 0) {
        weir__plan_scope_free(&both);
        goto out;
    }
    mark_self_join(&both, j);
    if (j->join_condition) {
        weir__buf_puts(&from, " ON ");
        c->scope = &both;
        if (weir__plan_expr(c, &from, j->join_condition) < 0) {
            weir__plan_scope_free(&both);
            goto out;
        }
    } else if (j->n_using_columns) {
        weir__buf_puts(&from, " USING (");
        for (size_t i = 0; i < j->n_using_columns; i++) {
            if (i)
                weir__buf_puts(&from, ", ");
            weir__plan_put_ident(&from, j->using_columns[i]);
        }
        weir__buf_putc(&from, ')');
    } else if (strcmp(kw, "CROSS JOIN") != 0) {
        weir__buf_puts(&from, " ON true");
    }
    out->from = from;
    memset(&from, 0, sizeof from);
    out->scope = both;
    out->is_join = true;
    out->join_sides = true;
    out->stage = PLAN_ST_FROM;
    rc = 0;
out:
    weir__buf_free(&from);
    weir__plan_query_free(&l);
    weir__plan_query_free(&r);
    return rc;
}

/* An operand of a set operation: a join's own level as its query (a
 * derived table would rename the sides' same-named columns, DuckDB's
 * name_1, where Spark keeps them), anything else as SELECT * FROM it. */
static int set_operand(plan_ctx *c, plan_query *x, weir_buf *t)
{
    if (x->join_sides && !x->is_closed && !x->order.len && !x->has_limit &&
        !x->has_offset) {
        weir__plan_query_text(x, t);
        return 0;
    }
    if (weir__plan_query_wrap(c, x, NULL) < 0)
        return -1;
    weir__buf_printf(t, "SELECT * FROM %s", weir__buf_cstr(&x->from));
    return 0;
}

int weir__plan_set_op(plan_ctx *c, const Spark__Connect__SetOperation *s, plan_query *out)
{
    if (!s)
        return weir__plan_fail(c, PLAN_E_INVALID, "A set operation is empty.");
    const char *op;
    switch (s->set_op_type) {
    case SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_UNION: op = "UNION"; break;
    case SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_INTERSECT: op = "INTERSECT"; break;
    case SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_EXCEPT: op = "EXCEPT"; break;
    default: return weir__plan_fail(c, PLAN_E_INVALID, "Unknown set operation.");
    }
    bool all = s->_is_all_case && s->is_all;
    bool by_name = s->_by_name_case && s->by_name;
    plan_query l, r;
    weir__plan_query_init(&l);
    weir__plan_query_init(&r);
    int rc = -1;
    weir_buf *t = &out->closed;
    if (weir__plan_rel(c, s->left_input, &l) < 0 || set_operand(c, &l, t) < 0)
        goto out;
    weir__buf_printf(t, " %s%s%s ", op, all ? " ALL" : "", by_name ? " BY NAME" : "");
    if (weir__plan_rel(c, s->right_input, &r) < 0 || set_operand(c, &r, t) < 0)
        goto out;
    /* The sides of a join operand name no column of the result. */
    if (weir__plan_scope_append_lost(c, &out->scope, &l) < 0)
        goto out;
    size_t left_n = out->scope.len;
    if (weir__plan_scope_append_lost(c, &out->scope, &r) < 0)
        goto out;
    /* A DataFrame both inputs hold (j.union(j)): Spark cannot resolve its
     * columns over the result. */
    for (size_t i = 0; i < left_n; i++)
        for (size_t k = left_n; k < out->scope.len; k++)
            if (out->scope.items[i].plan_id == out->scope.items[k].plan_id)
                out->scope.items[i].lost = out->scope.items[k].lost = PLAN_LOST_BOTH;
    out->is_closed = true;
    rc = 0;
out:
    weir__plan_query_free(&l);
    weir__plan_query_free(&r);
    return rc;
}
