/*
 * Spark Connect relations to Spark SQL text (see plan.h). A relation is
 * built up as one SELECT whose clauses fill in SQL's logical order (FROM,
 * WHERE, GROUP BY, select list, DISTINCT, ORDER BY, LIMIT/OFFSET); an
 * operator that would come earlier than a clause already filled wraps the
 * query so far as a derived table `(...) AS _pN`, so Spark's name
 * resolution applies to each DataFrame step unchanged. df.alias("o") keeps
 * its name on the derived table, so `o.col` keeps working.
 */
#include "connect/plan.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_query.h"

typedef Spark__Connect__Relation Rel;

void weir__plan_query_init(plan_query *x)
{
    memset(x, 0, sizeof *x);
}

void weir__plan_scope_free(plan_scope *s)
{
    for (size_t i = 0; i < s->len; i++)
        free(s->items[i].qual);
    free(s->items);
    memset(s, 0, sizeof *s);
}

void weir__plan_defs_free(plan_defs *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->names[i]);
        free(d->sqls[i]);
    }
    free(d->names);
    free(d->sqls);
    memset(d, 0, sizeof *d);
}

void weir__plan_query_free(plan_query *x)
{
    weir__buf_free(&x->excepts);
    weir__plan_defs_free(&x->defs);
    weir__buf_free(&x->from);
    weir__buf_free(&x->select);
    weir__buf_free(&x->where);
    weir__buf_free(&x->group);
    weir__buf_free(&x->order);
    weir__buf_free(&x->qualify);
    weir__buf_free(&x->renamed);
    weir__buf_free(&x->closed);
    free(x->qual);
    weir__plan_scope_free(&x->scope);
    memset(x, 0, sizeof *x);
}

int weir__plan_oom(plan_ctx *c)
{
    return weir__plan_fail(c, "OUT_OF_MEMORY", "Out of memory.");
}

static int scope_add(plan_ctx *c, plan_scope *s, int64_t id, const char *qual)
{
    if (s->len == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        plan_scope_entry *n = realloc(s->items, cap * sizeof *n);
        if (!n)
            return weir__plan_oom(c);
        s->items = n;
        s->cap = cap;
    }
    char *dup = NULL;
    if (qual && !(dup = strdup(qual)))
        return weir__plan_oom(c);
    s->items[s->len].plan_id = id;
    s->items[s->len].qual = dup;
    s->items[s->len].ambiguous = false;
    s->items[s->len].lost = 0;
    s->len++;
    return 0;
}

int weir__plan_scope_append(plan_ctx *c, plan_scope *dst, const plan_scope *src)
{
    for (size_t i = 0; i < src->len; i++)
        if (scope_add(c, dst, src->items[i].plan_id, src->items[i].qual) < 0)
            return -1;
        else {
            dst->items[dst->len - 1].ambiguous = src->items[i].ambiguous;
            dst->items[dst->len - 1].lost = src->items[i].lost;
        }
    return 0;
}

/* Every plan id in s now names qual. */
static int scope_remap(plan_ctx *c, plan_scope *s, const char *qual)
{
    for (size_t i = 0; i < s->len; i++) {
        free(s->items[i].qual);
        s->items[i].qual = NULL;
        if (qual && !(s->items[i].qual = strdup(qual)))
            return weir__plan_oom(c);
    }
    return 0;
}

bool weir__plan_query_is_item(const plan_query *x)
{
    return !x->is_closed && !x->is_join && x->stage == PLAN_ST_FROM &&
           x->select.len == 0 && x->where.len == 0;
}

static void query_text(const plan_query *x, weir_buf *b);

void weir__plan_query_text(const plan_query *x, weir_buf *b)
{
    query_text(x, b);
}

static void query_text(const plan_query *x, weir_buf *b)
{
    if (x->is_closed) {
        weir__buf_puts(b, weir__buf_cstr(&x->closed));
        return;
    }
    weir__buf_puts(b, x->distinct ? "SELECT DISTINCT " : "SELECT ");
    weir__buf_puts(b, x->select.len ? weir__buf_cstr(&x->select) : "*");
    weir__buf_puts(b, " FROM ");
    weir__buf_puts(b, weir__buf_cstr(&x->from));
    if (x->where.len)
        weir__buf_printf(b, " WHERE %s", weir__buf_cstr(&x->where));
    if (x->group.len)
        weir__buf_printf(b, " GROUP BY %s", weir__buf_cstr(&x->group));
    if (x->qualify.len)
        weir__buf_printf(b, " QUALIFY %s", weir__buf_cstr(&x->qualify));
    if (x->order.len)
        weir__buf_printf(b, " ORDER BY %s", weir__buf_cstr(&x->order));
    if (x->has_limit)
        weir__buf_printf(b, " LIMIT %" PRId32, x->limit);
    if (x->has_offset)
        weir__buf_printf(b, " OFFSET %" PRId32, x->offset);
}

void weir__plan_next_alias(plan_ctx *c, char *out, size_t n)
{
    snprintf(out, n, "_p%u", ++c->next_alias);
}

/* The number of distinct qualifiers in s (a join's sides). */
static size_t distinct_quals(const plan_scope *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->len; i++) {
        const char *q = s->items[i].qual;
        size_t k = 0;
        while (q && k < i && !(s->items[k].qual && strcmp(s->items[k].qual, q) == 0))
            k++;
        n += q && k == i;
    }
    return n;
}

/* Make x a single FROM item named alias (NULL: a fresh _pN unless x is
 * already a plain item). A join's sides' plan ids are lost there
 * (plan_scope_entry.lost) unless weir__plan_query_wrap_sides keeps them. */
static int wrap(plan_ctx *c, plan_query *x, const char *alias,
                const char *clause);

int weir__plan_scope_append_lost(plan_ctx *c, plan_scope *dst, const plan_query *x)
{
    bool sides = x->join_sides && distinct_quals(&x->scope) >= 2;
    for (size_t i = 0; i < x->scope.len; i++) {
        const plan_scope_entry *e = &x->scope.items[i];
        if (!e->lost && !(sides && e->qual))
            continue;
        if (scope_add(c, dst, e->plan_id, e->qual) < 0)
            return -1;
        dst->items[dst->len - 1].lost = e->lost ? e->lost : PLAN_LOST;
    }
    return 0;
}

int weir__plan_query_wrap(plan_ctx *c, plan_query *x, const char *alias)
{
    if (!alias && weir__plan_query_is_item(x))
        return 0;
    return wrap(c, x, alias, NULL);
}

int weir__plan_query_wrap_clause(plan_ctx *c, plan_query *x, const char *clause)
{
    return wrap(c, x, NULL, clause);
}

static int wrap(plan_ctx *c, plan_query *x, const char *alias,
                const char *clause)
{
    char fresh[32];
    if (!alias) {
        weir__plan_next_alias(c, fresh, sizeof fresh);
        alias = fresh;
    }
    weir_buf from = WEIR_BUF_INIT;
    if (x->bare_table && weir__plan_query_is_item(x)) {
        weir__buf_puts(&from, weir__buf_cstr(&x->from));
    } else {
        weir__buf_putc(&from, '(');
        query_text(x, &from);
        weir__buf_putc(&from, ')');
    }
    if (clause)
        weir__buf_printf(&from, " %s", clause);
    weir__buf_puts(&from, " AS ");
    weir__buf_puts(&from, alias);
    plan_scope scope = x->scope;
    memset(&x->scope, 0, sizeof x->scope);
    if (x->join_sides && distinct_quals(&scope) >= 2)
        for (size_t i = 0; i < scope.len; i++)
            if (scope.items[i].qual && !scope.items[i].lost)
                scope.items[i].lost = PLAN_LOST;
    weir__plan_query_free(x);
    x->from = from;
    x->scope = scope;
    if (!(x->qual = strdup(alias)))
        return weir__plan_oom(c);
    return scope_remap(c, &x->scope, alias);
}

/* A qualifier a row can be read through as a struct (one plain name). */
static bool plain_qual(const char *q)
{
    if (!q || !*q || isdigit((unsigned char)*q))
        return false;
    for (; *q; q++)
        if (!isalnum((unsigned char)*q) && *q != '_')
            return false;
    return true;
}

/* The distinct qualifiers of s (at most max, each a plain name) into
 * sides; 0 when any is not. */
static size_t side_quals(const plan_scope *s, const char **sides, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < s->len; i++) {
        const char *q = s->items[i].qual;
        if (!q)
            continue;
        size_t k = 0;
        while (k < n && strcmp(sides[k], q) != 0)
            k++;
        if (k < n)
            continue;
        if (n == max || !plain_qual(q))
            return 0;
        sides[n++] = q;
    }
    return n;
}

int weir__plan_query_wrap_sides(plan_ctx *c, plan_query *x, const char *probes)
{
    plan_scope old = { NULL, 0, 0 };
    if (weir__plan_scope_append(c, &old, &x->scope) < 0)
        return -1;
    const char *sides[16];
    /* DISTINCT over columns some dropped or replaced: the sides' whole
     * rows would change what is distinct (the sides are lost instead). */
    bool changed = x->distinct && (x->excepts.len || x->defs.n);
    size_t n = x->join_sides && !x->is_closed && !changed ? side_quals(&old, sides, 16) : 0;
    if (n < 2) {
        weir__plan_scope_free(&old);
        return weir__plan_query_wrap(c, x, NULL);
    }
    /* side i's row as the struct column __weir_s<i>, first: a star form
     * (`* __weir_rename (..)`) must end the list */
    weir_buf list = WEIR_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        weir__buf_printf(&list, "%s AS __weir_s%zu, ", sides[i], i);
    if (probes && *probes)
        weir__buf_printf(&list, "%s, ", probes);
    weir__buf_puts(&list, x->select.len ? weir__buf_cstr(&x->select) : "*");
    if (weir__buf_failed(&list)) {
        weir__buf_free(&list);
        weir__plan_scope_free(&old);
        return weir__plan_oom(c);
    }
    weir__buf_free(&x->select);
    x->select = list;
    int rc = wrap(c, x, NULL, NULL);
    for (size_t i = 0; rc == 0 && i < x->scope.len && i < old.len; i++) {
        const char *q = old.items[i].qual;
        size_t k = 0;
        while (q && k < n && strcmp(sides[k], q) != 0)
            k++;
        if (!q || k == n)
            continue;
        size_t len = strlen(x->qual) + 32;
        char *nq = malloc(len);
        if (!nq) {
            rc = weir__plan_oom(c);
            break;
        }
        snprintf(nq, len, "%s.__weir_s%zu", x->qual, k);
        free(x->scope.items[i].qual);
        x->scope.items[i].qual = nq;
        x->scope.items[i].lost = 0;
    }
    weir__plan_scope_free(&old);
    return rc;
}

/* The proto field name of a relation kind, for messages. */
static const char *kind_name(const Rel *r)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(
        &spark__connect__relation__descriptor, (unsigned)r->rel_type_case);
    return f ? f->name : "unknown";
}

/* A relation whose own columns are its child's: its plan id names the
 * same FROM item. */
static bool keeps_columns(const Rel *r)
{
    switch (r->rel_type_case) {
    case SPARK__CONNECT__RELATION__REL_TYPE_FILTER:
    case SPARK__CONNECT__RELATION__REL_TYPE_SORT:
    case SPARK__CONNECT__RELATION__REL_TYPE_LIMIT:
    case SPARK__CONNECT__RELATION__REL_TYPE_OFFSET:
    case SPARK__CONNECT__RELATION__REL_TYPE_HINT:
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_WATERMARK:
    case SPARK__CONNECT__RELATION__REL_TYPE_REPARTITION:
    case SPARK__CONNECT__RELATION__REL_TYPE_REPARTITION_BY_EXPRESSION:
    case SPARK__CONNECT__RELATION__REL_TYPE_READ:
    case SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS:
    case SPARK__CONNECT__RELATION__REL_TYPE_DEDUPLICATE:
    case SPARK__CONNECT__RELATION__REL_TYPE_SQL:
    case SPARK__CONNECT__RELATION__REL_TYPE_RANGE:
    case SPARK__CONNECT__RELATION__REL_TYPE_TO_DF:
    case SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION:
        return true;
    default:
        return false;
    }
}

static int dispatch(plan_ctx *c, const Rel *r, plan_query *out)
{
    switch (r->rel_type_case) {
    case SPARK__CONNECT__RELATION__REL_TYPE_READ: return weir__plan_read(c, r->read, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SQL: return weir__plan_sql(c, r->sql, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_PROJECT: return weir__plan_project(c, r->project, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_FILTER: return weir__plan_filter(c, r->filter, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_JOIN: return weir__plan_join(c, r->join, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SET_OP: return weir__plan_set_op(c, r->set_op, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SORT: return weir__plan_sort(c, r->sort, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_LIMIT:
        return r->limit ? weir__plan_limit(c, r->limit->input, r->limit->limit, false, out)
                        : weir__plan_fail(c, PLAN_E_INVALID, "A limit is empty.");
    case SPARK__CONNECT__RELATION__REL_TYPE_OFFSET:
        return r->offset ? weir__plan_limit(c, r->offset->input, r->offset->offset, true, out)
                         : weir__plan_fail(c, PLAN_E_INVALID, "An offset is empty.");
    case SPARK__CONNECT__RELATION__REL_TYPE_AGGREGATE:
        return weir__plan_aggregate(c, r->aggregate, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_DEDUPLICATE:
        return weir__plan_dedup(c, r->deduplicate, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_RANGE: return weir__plan_range(c, r->range, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS:
        return weir__plan_alias(c, r->subquery_alias, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_TO_DF: return weir__plan_to_df(c, r->to_df, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_COLUMNS_RENAMED:
        return weir__plan_rename(c, r->with_columns_renamed, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_COLUMNS:
        return weir__plan_with_columns(c, r->with_columns, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_DROP: return weir__plan_drop(c, r->drop, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_WATERMARK:
        return weir__plan_watermark(c, r->with_watermark, out);
    /* No-ops on a single-node engine. */
    case SPARK__CONNECT__RELATION__REL_TYPE_HINT:
        return weir__plan_rel(c, r->hint ? r->hint->input : NULL, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_REPARTITION:
        return weir__plan_rel(c, r->repartition ? r->repartition->input : NULL, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_REPARTITION_BY_EXPRESSION:
        return weir__plan_rel(c, r->repartition_by_expression
                                     ? r->repartition_by_expression->input
                                     : NULL,
                              out);
    case SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION:
        return weir__plan_local_rel(c, r->local_relation, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_CACHED_LOCAL_RELATION:
    case SPARK__CONNECT__RELATION__REL_TYPE_CHUNKED_CACHED_LOCAL_RELATION:
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "createDataFrame of large local data (cached on "
                               "the server) is not supported yet; read the data "
                               "from a file or set "
                               "spark.sql.session.localRelationCacheThreshold "
                               "higher.");
    case SPARK__CONNECT__RELATION__REL_TYPE_MAP_PARTITIONS:
    case SPARK__CONNECT__RELATION__REL_TYPE_GROUP_MAP:
    case SPARK__CONNECT__RELATION__REL_TYPE_CO_GROUP_MAP:
    case SPARK__CONNECT__RELATION__REL_TYPE_APPLY_IN_PANDAS_WITH_STATE:
    case SPARK__CONNECT__RELATION__REL_TYPE_COMMON_INLINE_USER_DEFINED_TABLE_FUNCTION:
    case SPARK__CONNECT__RELATION__REL_TYPE_COMMON_INLINE_USER_DEFINED_DATA_SOURCE:
        return weir__plan_fail(c, PLAN_E_UDF,
                               "The DataFrame operation '%s' runs Python code, which "
                               "weir cannot run: write it with Spark SQL functions.",
                               kind_name(r));
    case SPARK__CONNECT__RELATION__REL_TYPE__NOT_SET:
        return weir__plan_fail(c, PLAN_E_INVALID, "A relation has no kind.");
    default:
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "The DataFrame operation '%s' is not supported.",
                               kind_name(r));
    }
}

int weir__plan_rel(plan_ctx *c, const Rel *r, plan_query *out)
{
    if (!r)
        return weir__plan_fail(c, PLAN_E_INVALID, "A relation is missing its input.");
    plan_mark m;
    if (weir__plan_enter(c, &out->from, r->common ? r->common->origin : NULL, &m) < 0)
        return -1;
    int rc = dispatch(c, r, out);
    if (rc == 0 && r->common && r->common->_plan_id_case)
        rc = scope_add(c, &out->scope, r->common->plan_id,
                       keeps_columns(r) && !out->is_join ? out->qual : NULL);
    if (rc == 0 && (weir__buf_failed(&out->from) || weir__buf_failed(&out->select) ||
                    weir__buf_failed(&out->where) || weir__buf_failed(&out->group) ||
                    weir__buf_failed(&out->order) || weir__buf_failed(&out->closed)))
        rc = weir__plan_oom(c);
    size_t total = out->from.len + out->select.len + out->where.len + out->closed.len;
    if (rc == 0 && total > WEIR_PLAN_MAX_SQL)
        rc = weir__plan_fail(c, "PLAN_TOO_LARGE", "The DataFrame plan is too large.");
    weir__plan_leave(c, &m);
    return rc;
}

/* At most n rows of x, as df.limit(n) gives them but without a derived
 * table when x can take the LIMIT itself (a derived table would lose
 * duplicate column names). */
static int limit_query(plan_query *x, long long n)
{
    if (n > INT32_MAX)
        n = INT32_MAX;
    /* A closed query (a set operation or dropDuplicates, with neither
     * ORDER BY nor LIMIT of its own) takes the LIMIT last. */
    if (x->is_closed) {
        weir__buf_printf(&x->closed, " LIMIT %lld", n);
        return 0;
    }
    if (!x->has_limit || x->limit > n)
        x->limit = (int32_t)n;
    x->has_limit = true;
    x->stage = PLAN_ST_LIMIT;
    return 0;
}

int weir__plan_relation_sql(const Rel *r, char **out, weir__plan_error *err)
{
    return weir__plan_relation_sql_limit(r, -1, out, err);
}

int weir__plan_relation_sql_limit(const Rel *r, long long limit, char **out,
                                  weir__plan_error *err)
{
    memset(err, 0, sizeof *err);
    *out = NULL;
    plan_ctx c = { err, NULL, 0, 0, NULL, NULL };
    plan_query x;
    weir__plan_query_init(&x);
    weir_buf b = WEIR_BUF_INIT;
    int rc = weir__plan_rel(&c, r, &x);
    if (rc == 0 && limit >= 0)
        rc = limit_query(&x, limit);
    if (rc == 0)
        query_text(&x, &b);
    weir__plan_query_free(&x);
    if (rc == 0 && (weir__buf_failed(&b) || b.len > WEIR_PLAN_MAX_SQL))
        rc = weir__plan_fail(&c, "PLAN_TOO_LARGE", "The DataFrame plan is too large.");
    if (rc < 0) {
        weir__buf_free(&b);
        return -1;
    }
    *out = weir__buf_detach(&b);
    return *out ? 0 : weir__plan_fail(&c, "OUT_OF_MEMORY", "Out of memory.");
}

int weir__plan_expression_sql(const Spark__Connect__Expression *e, char **out,
                              weir__plan_error *err)
{
    memset(err, 0, sizeof *err);
    *out = NULL;
    plan_ctx c = { err, NULL, 0, 0, NULL, NULL };
    weir_buf b = WEIR_BUF_INIT;
    if (weir__plan_expr(&c, &b, e) < 0 || weir__buf_failed(&b)) {
        weir__buf_free(&b);
        return err->message[0] ? -1
                               : weir__plan_fail(&c, "OUT_OF_MEMORY", "Out of memory.");
    }
    *out = weir__buf_detach(&b);
    return *out ? 0 : weir__plan_fail(&c, "OUT_OF_MEMORY", "Out of memory.");
}

int weir__plan_datatype_ddl(const Spark__Connect__DataType *type, int as_columns,
                            char **out, weir__plan_error *err)
{
    memset(err, 0, sizeof *err);
    *out = NULL;
    plan_ctx c = { err, NULL, 0, 0, NULL, NULL };
    weir_buf b = WEIR_BUF_INIT;
    if (weir__plan_type(&c, &b, type, as_columns != 0) < 0 || weir__buf_failed(&b)) {
        weir__buf_free(&b);
        return err->error_class[0] ? -1 : weir__plan_fail(&c, "OUT_OF_MEMORY", "Out of memory.");
    }
    *out = weir__buf_detach(&b);
    return *out ? 0 : weir__plan_fail(&c, "OUT_OF_MEMORY", "Out of memory.");
}
