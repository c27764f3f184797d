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

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "util/str.h"

/* Older clients still send the deprecated fields (SQL.args, pos_args,
 * rename_columns_map, literal element types): read them too. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

typedef Spark__Connect__Relation Rel;

enum { ST_FROM, ST_WHERE, ST_GROUP, ST_SELECT, ST_DISTINCT, ST_ORDER, ST_LIMIT };

/* A query under construction. */
typedef struct q {
    weir_buf from;   /* FROM clause (one item, or a join) */
    weir_buf select; /* select list; empty = * */
    weir_buf where, group, order;
    weir_buf closed; /* a finished query (set operations); from is unused */
    bool is_closed, distinct, is_join;
    bool bare_table; /* from is a table name without alias: may take one */
    bool has_limit, has_offset;
    int32_t limit, offset;
    int stage;
    char *qual; /* the name of the single FROM item, if known (owned) */
    plan_scope scope;
} q;

static void q_init(q *x)
{
    memset(x, 0, sizeof *x);
}

static void scope_free(plan_scope *s)
{
    for (size_t i = 0; i < s->len; i++)
        free(s->items[i].qual);
    free(s->items);
    memset(s, 0, sizeof *s);
}

static void q_free(q *x)
{
    weir__buf_free(&x->from);
    weir__buf_free(&x->select);
    weir__buf_free(&x->where);
    weir__buf_free(&x->group);
    weir__buf_free(&x->order);
    weir__buf_free(&x->closed);
    free(x->qual);
    scope_free(&x->scope);
    memset(x, 0, sizeof *x);
}

static int oom(plan_ctx *c)
{
    return weir__plan_fail(c, "OUT_OF_MEMORY", "Out of memory.");
}

static int scope_add(plan_ctx *c, plan_scope *s, int64_t id, const char *qual)
{
    if (s->len == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        plan_scope_entry *n = realloc(s->items, cap * sizeof *n);
        if (!n)
            return oom(c);
        s->items = n;
        s->cap = cap;
    }
    char *dup = NULL;
    if (qual && !(dup = strdup(qual)))
        return oom(c);
    s->items[s->len].plan_id = id;
    s->items[s->len].qual = dup;
    s->len++;
    return 0;
}

static int scope_append(plan_ctx *c, plan_scope *dst, const plan_scope *src)
{
    for (size_t i = 0; i < src->len; i++)
        if (scope_add(c, dst, src->items[i].plan_id, src->items[i].qual) < 0)
            return -1;
    return 0;
}

/* Every plan id in s now names qual. */
static int scope_remap(plan_ctx *c, plan_scope *s, const char *qual)
{
    for (size_t i = 0; i < s->len; i++) {
        free(s->items[i].qual);
        s->items[i].qual = NULL;
        if (qual && !(s->items[i].qual = strdup(qual)))
            return oom(c);
    }
    return 0;
}

static bool q_is_item(const q *x)
{
    return !x->is_closed && !x->is_join && x->stage == ST_FROM &&
           x->select.len == 0 && x->where.len == 0;
}

static void q_text(const q *x, weir_buf *b)
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
    if (x->order.len)
        weir__buf_printf(b, " ORDER BY %s", weir__buf_cstr(&x->order));
    if (x->has_limit)
        weir__buf_printf(b, " LIMIT %" PRId32, x->limit);
    if (x->has_offset)
        weir__buf_printf(b, " OFFSET %" PRId32, x->offset);
}

static void next_alias(plan_ctx *c, char *out, size_t n)
{
    snprintf(out, n, "_p%u", ++c->next_alias);
}

/* Make x a single FROM item named alias (NULL: a fresh _pN unless x is
 * already a plain item). */
static int q_wrap(plan_ctx *c, q *x, const char *alias)
{
    if (!alias && q_is_item(x))
        return 0;
    char fresh[32];
    if (!alias) {
        next_alias(c, fresh, sizeof fresh);
        alias = fresh;
    }
    weir_buf from = WEIR_BUF_INIT;
    if (x->bare_table && q_is_item(x)) {
        weir__buf_puts(&from, weir__buf_cstr(&x->from));
    } else {
        weir__buf_putc(&from, '(');
        q_text(x, &from);
        weir__buf_putc(&from, ')');
    }
    weir__buf_puts(&from, " AS ");
    weir__buf_puts(&from, alias);
    plan_scope scope = x->scope;
    memset(&x->scope, 0, sizeof x->scope);
    q_free(x);
    x->from = from;
    x->scope = scope;
    if (!(x->qual = strdup(alias)))
        return oom(c);
    return scope_remap(c, &x->scope, alias);
}

static int rel(plan_ctx *c, const Rel *r, q *out);

/* Render child into out, wrapped if needed so that a clause at stage can
 * still be added. */
static int child_at(plan_ctx *c, const Rel *child, q *out, int stage,
                    bool need_star)
{
    if (rel(c, child, out) < 0)
        return -1;
    if (out->is_closed || out->stage > stage ||
        (need_star && out->select.len) ||
        (stage < ST_LIMIT && (out->has_limit || out->has_offset)))
        return q_wrap(c, out, NULL);
    return 0;
}

static int items(plan_ctx *c, weir_buf *b, Spark__Connect__Expression *const *e,
                 size_t n, const q *x)
{
    c->scope = &x->scope;
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (weir__plan_item(c, b, e[i]) < 0)
            return -1;
    }
    return 0;
}

static int exprs(plan_ctx *c, weir_buf *b, Spark__Connect__Expression *const *e,
                 size_t n, const q *x)
{
    c->scope = &x->scope;
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (weir__plan_expr(c, b, e[i]) < 0)
            return -1;
    }
    return 0;
}

/* ---- leaves -------------------------------------------------------------- */

static bool option_name_ok(const char *s)
{
    if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* Spark's Kafka source options, in Spark's spelling (the client keeps the
 * user's case; Spark matches them case-insensitively). */
static const char *const KAFKA_OPTIONS[] = {
    "subscribe", "subscribePattern", "assign", "startingOffsets", "endingOffsets",
    "startingOffsetsByTimestamp", "endingOffsetsByTimestamp", "startingTimestamp",
    "endingTimestamp", "startingOffsetsByTimestampStrategy", "failOnDataLoss",
    "minPartitions", "maxOffsetsPerTrigger", "minOffsetsPerTrigger", "maxTriggerDelay",
    "maxRecordsPerPartition", "kafkaConsumer.pollTimeoutMs", "fetchOffset.numRetries",
    "fetchOffset.retryIntervalMs", "groupIdPrefix", "includeHeaders", NULL
};

/* format("kafka"): read_kafka(bootstrapServers => '...', subscribe => '...',
 * ...), under STREAM for readStream. Spark's option names become named
 * arguments (known ones in Spark's case), kafka.bootstrap.servers becomes
 * bootstrapServers, and every other kafka.* client setting keeps its name as
 * a backquoted argument name (`kafka.security.protocol` => 'SSL'). The
 * client sends the options as a map in no particular order; the arguments
 * come in a fixed one: bootstrapServers, Spark's options in KAFKA_OPTIONS
 * order, then the kafka.* and any other options by name. */
typedef struct kafka_arg {
    const char *name, *value;
    int rank;
} kafka_arg;

static int kafka_arg_cmp(const void *a, const void *b)
{
    const kafka_arg *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int read_kafka(plan_ctx *c, const Spark__Connect__Read__DataSource *ds,
                      bool streaming, q *out)
{
    if (ds->_schema_case && ds->schema && *ds->schema)
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "Kafka source has a fixed schema and cannot be set with a "
                               "custom one.");
    if (ds->n_paths)
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "A Kafka read takes no path: name the topics with "
                               "subscribe, subscribePattern or assign.");
    enum { N_KNOWN = sizeof KAFKA_OPTIONS / sizeof *KAFKA_OPTIONS - 1 };
    kafka_arg *args = calloc(ds->n_options ? ds->n_options : 1, sizeof *args);
    if (!args)
        return oom(c);
    size_t n = 0;
    for (size_t i = 0; i < ds->n_options; i++) {
        const Spark__Connect__Read__DataSource__OptionsEntry *o = ds->options[i];
        if (!o || !o->key || !o->value || !*o->key || weir__str_ieq(o->key, "path"))
            continue;
        kafka_arg *a = &args[n++];
        a->name = o->key;
        a->value = o->value;
        a->rank = weir__str_istarts(o->key, "kafka.") ? N_KNOWN + 1 : N_KNOWN + 2;
        if (weir__str_ieq(o->key, "kafka.bootstrap.servers")) {
            a->name = "bootstrapServers";
            a->rank = -1;
        }
        for (int k = 0; KAFKA_OPTIONS[k]; k++)
            if (weir__str_ieq(o->key, KAFKA_OPTIONS[k])) {
                a->name = KAFKA_OPTIONS[k];
                a->rank = k;
            }
    }
    qsort(args, n, sizeof *args, kafka_arg_cmp);
    weir_buf *b = &out->from;
    if (streaming)
        weir__buf_puts(b, "STREAM ");
    weir__buf_puts(b, "read_kafka(");
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        weir__plan_put_ident(b, args[i].name);
        weir__buf_puts(b, " => ");
        weir__plan_put_string(b, args[i].value);
    }
    free(args);
    char alias[32];
    next_alias(c, alias, sizeof alias);
    weir__buf_printf(b, ") AS %s", alias);
    return (out->qual = strdup(alias)) ? 0 : oom(c);
}

static int read_files(plan_ctx *c, const Spark__Connect__Read__DataSource *ds,
                      bool streaming, q *out)
{
    const char *format = ds->_format_case && ds->format && *ds->format ? ds->format : NULL;
    bool cloud = format && weir__str_ieq(format, "cloudFiles");
    static const char *const FORMATS[] = { "json", "csv", "parquet", "text", NULL };
    if (format && !cloud) {
        bool ok = false;
        for (int i = 0; FORMATS[i]; i++)
            ok = ok || weir__str_ieq(format, FORMATS[i]);
        if (!ok)
            return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                   "Reading format '%.100s' is not supported (use json, "
                                   "csv, parquet, text or cloudFiles).",
                                   format);
    }
    const char *path = ds->n_paths ? ds->paths[0] : NULL;
    for (size_t i = 0; i < ds->n_options; i++)
        if (ds->options[i] && ds->options[i]->key && weir__str_ieq(ds->options[i]->key, "path"))
            path = path ? path : ds->options[i]->value;
    if (ds->n_paths > 1)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "Reading several paths in one load() is not supported; "
                               "union one read per path.");
    if (!path || !*path)
        return weir__plan_fail(c, PLAN_E_INVALID, "A file read has no path.");
    weir_buf *b = &out->from;
    if (streaming)
        weir__buf_puts(b, "STREAM ");
    weir__buf_puts(b, "read_files(");
    weir__plan_put_string(b, path);
    if (format && !cloud) {
        weir__buf_puts(b, ", format => ");
        weir__plan_put_string(b, format);
    }
    if (ds->_schema_case && ds->schema && *ds->schema) {
        weir_buf ddl = WEIR_BUF_INIT;
        if (weir__plan_schema_ddl(c, &ddl, ds->schema) < 0) {
            weir__buf_free(&ddl);
            return -1;
        }
        weir__buf_puts(b, ", schema => ");
        weir__plan_put_string(b, weir__buf_cstr(&ddl));
        weir__buf_free(&ddl);
    }
    for (size_t i = 0; i < ds->n_options; i++) {
        const Spark__Connect__Read__DataSource__OptionsEntry *o = ds->options[i];
        if (!o || !o->key)
            continue;
        const char *k = o->key;
        if (weir__str_ieq(k, "path"))
            continue;
        if (weir__str_istarts(k, "cloudFiles.")) {
            k += strlen("cloudFiles.");
            if (weir__str_ieq(k, "format")) {
                weir__buf_puts(b, ", format => ");
                weir__plan_put_string(b, o->value);
                continue;
            }
        }
        if (!option_name_ok(k))
            return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                   "Read option '%.200s' is not supported.", o->key);
        weir__buf_printf(b, ", %s => ", k);
        weir__plan_put_string(b, o->value);
    }
    char alias[32];
    next_alias(c, alias, sizeof alias);
    weir__buf_printf(b, ") AS %s", alias);
    return (out->qual = strdup(alias)) ? 0 : oom(c);
}

static int read(plan_ctx *c, const Spark__Connect__Read *rd, q *out)
{
    if (!rd)
        return weir__plan_fail(c, PLAN_E_INVALID, "A read has no source.");
    if (rd->read_type_case == SPARK__CONNECT__READ__READ_TYPE_DATA_SOURCE && rd->data_source) {
        const Spark__Connect__Read__DataSource *ds = rd->data_source;
        if (ds->_format_case && ds->format && weir__str_ieq(ds->format, "kafka"))
            return read_kafka(c, ds, rd->is_streaming, out);
        return read_files(c, ds, rd->is_streaming, out);
    }
    if (rd->read_type_case != SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE || !rd->named_table)
        return weir__plan_fail(c, PLAN_E_INVALID, "A read has no source.");
    const char *name = rd->named_table->unparsed_identifier;
    if (rd->is_streaming)
        weir__buf_puts(&out->from, "STREAM ");
    if (weir__plan_put_name(c, &out->from, name, "table") < 0)
        return -1;
    size_t n = strlen(name);
    char *last = malloc(n + 1);
    if (!last)
        return oom(c);
    weir_buf qb = WEIR_BUF_INIT;
    if (weir__plan_last_part(name, last, NULL) == 0)
        weir__plan_put_ident(&qb, last);
    free(last);
    out->qual = weir__buf_detach(&qb);
    out->bare_table = true;
    return 0;
}

/* ---- spark.sql(query, args) ---------------------------------------------- */

static const Spark__Connect__Expression *named_arg(const Spark__Connect__SQL *s,
                                                   const char *name, size_t n,
                                                   const Spark__Connect__Expression__Literal **lit)
{
    *lit = NULL;
    for (size_t i = 0; i < s->n_named_arguments; i++) {
        const char *k = s->named_arguments[i]->key;
        if (k && strlen(k) == n && strncmp(k, name, n) == 0)
            return s->named_arguments[i]->value;
    }
    for (size_t i = 0; i < s->n_args; i++) {
        const char *k = s->args[i]->key;
        if (k && strlen(k) == n && strncmp(k, name, n) == 0) {
            *lit = s->args[i]->value;
            return NULL;
        }
    }
    return NULL;
}

/* Replace :name and ? parameter markers (outside quotes and comments). */
static int sql_params(plan_ctx *c, weir_buf *b, const Spark__Connect__SQL *s)
{
    const char *t = s->query;
    size_t pos = 0;
    size_t n_pos = s->n_pos_arguments ? s->n_pos_arguments : s->n_pos_args;
    for (size_t i = 0; t[i]; i++) {
        char ch = t[i];
        if (ch == '\'' || ch == '"' || ch == '`') {
            size_t j = i + 1;
            while (t[j] && t[j] != ch) {
                if (t[j] == '\\' && ch != '`' && t[j + 1])
                    j++;
                j++;
            }
            weir__buf_put(b, t + i, (t[j] ? j + 1 : j) - i);
            i = t[j] ? j : j - 1;
            continue;
        }
        if (ch == '-' && t[i + 1] == '-') {
            size_t j = i;
            while (t[j] && t[j] != '\n')
                j++;
            weir__buf_put(b, t + i, j - i);
            i = j - 1;
            continue;
        }
        if (ch == '/' && t[i + 1] == '*') {
            const char *e = strstr(t + i + 2, "*/");
            size_t j = e ? (size_t)(e - t) + 2 : strlen(t);
            weir__buf_put(b, t + i, j - i);
            i = j - 1;
            continue;
        }
        bool named = (s->n_named_arguments || s->n_args) && ch == ':' && (i == 0 || t[i - 1] != ':') && t[i + 1] != ':' &&
                     ((t[i + 1] >= 'a' && t[i + 1] <= 'z') ||
                      (t[i + 1] >= 'A' && t[i + 1] <= 'Z') || t[i + 1] == '_');
        if (named) {
            size_t j = i + 1;
            while ((t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z') ||
                   (t[j] >= '0' && t[j] <= '9') || t[j] == '_')
                j++;
            const Spark__Connect__Expression__Literal *lit;
            const Spark__Connect__Expression *e = named_arg(s, t + i + 1, j - i - 1, &lit);
            if (!e && !lit)
                return weir__plan_fail(c, "UNBOUND_SQL_PARAMETER",
                                       "spark.sql(): no value for the parameter :%.*s.",
                                       (int)(j - i - 1), t + i + 1);
            weir__buf_putc(b, '(');
            if ((e ? weir__plan_expr(c, b, e) : weir__plan_literal(c, b, lit)) < 0)
                return -1;
            weir__buf_putc(b, ')');
            i = j - 1;
            continue;
        }
        if (ch == '?' && n_pos) {
            if (pos >= n_pos)
                return weir__plan_fail(c, "UNBOUND_SQL_PARAMETER",
                                       "spark.sql(): more ? markers than arguments.");
            weir__buf_putc(b, '(');
            int rc = s->n_pos_arguments
                         ? weir__plan_expr(c, b, s->pos_arguments[pos])
                         : weir__plan_literal(c, b, s->pos_args[pos]);
            if (rc < 0)
                return -1;
            weir__buf_putc(b, ')');
            pos++;
            continue;
        }
        weir__buf_putc(b, ch);
    }
    return 0;
}

static int sql_rel(plan_ctx *c, const Spark__Connect__SQL *s, q *out)
{
    if (!s || !s->query)
        return weir__plan_fail(c, PLAN_E_INVALID, "spark.sql() has no query.");
    /* A trailing ';' is harmless; anything else after one is not. */
    size_t n = strlen(s->query);
    while (n && strchr(" \t\r\n;", s->query[n - 1]))
        n--;
    char *text = strndup(s->query, n);
    if (!text)
        return oom(c);
    Spark__Connect__SQL copy = *s;
    copy.query = text;
    int rc = weir__plan_check_text(c, text, "spark.sql() query");
    weir__buf_putc(&out->from, '(');
    if (rc == 0)
        rc = sql_params(c, &out->from, &copy);
    free(text);
    if (rc < 0)
        return -1;
    char alias[32];
    next_alias(c, alias, sizeof alias);
    weir__buf_printf(&out->from, "%s) AS %s", strstr(s->query, "--") ? "\n" : "", alias);
    return (out->qual = strdup(alias)) ? 0 : oom(c);
}

/* ---- operators ----------------------------------------------------------- */

static void and_cond(weir_buf *where, const weir_buf *cond)
{
    if (where->len)
        weir__buf_puts(where, " AND ");
    weir__buf_puts(where, weir__buf_cstr(cond));
}

static int filter(plan_ctx *c, const Spark__Connect__Filter *f, q *out)
{
    if (!f || !f->condition)
        return weir__plan_fail(c, PLAN_E_INVALID, "A filter has no condition.");
    if (child_at(c, f->input, out, ST_WHERE, true) < 0)
        return -1;
    weir_buf cond = WEIR_BUF_INIT;
    c->scope = &out->scope;
    int rc = weir__plan_expr(c, &cond, f->condition);
    if (rc == 0)
        and_cond(&out->where, &cond);
    weir__buf_free(&cond);
    out->stage = ST_WHERE;
    return rc;
}

static int project(plan_ctx *c, const Spark__Connect__Project *p, q *out)
{
    if (!p || p->n_expressions == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "A select has no columns.");
    if (!p->input)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "A select without a DataFrame (spark.range/sql first) is "
                               "not supported.");
    if (child_at(c, p->input, out, ST_WHERE, true) < 0)
        return -1;
    out->stage = ST_SELECT;
    return items(c, &out->select, p->expressions, p->n_expressions, out);
}

static int aggregate(plan_ctx *c, const Spark__Connect__Aggregate *a, q *out)
{
    if (!a)
        return weir__plan_fail(c, PLAN_E_INVALID, "An aggregation is empty.");
    if (a->group_type == SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_PIVOT)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "groupBy().pivot() is not supported; aggregate with "
                               "F.when per value instead.");
    if (child_at(c, a->input, out, ST_WHERE, true) < 0)
        return -1;
    out->stage = ST_GROUP;
    weir_buf *s = &out->select;
    /* groupBy(F.window(..)) names its column `window`, as in Spark. */
    c->scope = &out->scope;
    for (size_t i = 0; i < a->n_grouping_expressions; i++) {
        const Spark__Connect__Expression *g = a->grouping_expressions[i];
        if (i)
            weir__buf_puts(s, ", ");
        if (weir__plan_item(c, s, g) < 0)
            return -1;
        if (g && g->expr_type_case == SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION &&
            g->unresolved_function && g->unresolved_function->function_name &&
            strcmp(g->unresolved_function->function_name, "window") == 0)
            weir__buf_puts(s, " AS `window`");
    }
    if (a->n_grouping_expressions && a->n_aggregate_expressions)
        weir__buf_puts(s, ", ");
    if (items(c, s, a->aggregate_expressions, a->n_aggregate_expressions, out) < 0)
        return -1;
    if (s->len == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "An aggregation has no columns.");
    weir_buf *g = &out->group;
    switch (a->group_type) {
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_ROLLUP:
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_CUBE:
        weir__buf_puts(g, a->group_type == SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_ROLLUP
                              ? "ROLLUP(" : "CUBE(");
        if (exprs(c, g, a->grouping_expressions, a->n_grouping_expressions, out) < 0)
            return -1;
        weir__buf_putc(g, ')');
        return 0;
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_GROUPING_SETS:
        weir__buf_puts(g, "GROUPING SETS (");
        for (size_t i = 0; i < a->n_grouping_sets; i++) {
            const Spark__Connect__Aggregate__GroupingSets *gs = a->grouping_sets[i];
            weir__buf_puts(g, i ? ", (" : "(");
            if (gs && exprs(c, g, gs->grouping_set, gs->n_grouping_set, out) < 0)
                return -1;
            weir__buf_putc(g, ')');
        }
        weir__buf_putc(g, ')');
        return 0;
    default:
        return exprs(c, g, a->grouping_expressions, a->n_grouping_expressions, out);
    }
}

static int sort(plan_ctx *c, const Spark__Connect__Sort *s, q *out)
{
    if (!s || s->n_order == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "A sort has no order.");
    if (child_at(c, s->input, out, ST_ORDER, false) < 0)
        return -1;
    weir__buf_clear(&out->order); /* a later sort replaces an earlier one */
    c->scope = &out->scope;
    for (size_t i = 0; i < s->n_order; i++) {
        if (i)
            weir__buf_puts(&out->order, ", ");
        if (weir__plan_sort_order(c, &out->order, s->order[i]) < 0)
            return -1;
    }
    out->stage = ST_ORDER;
    return 0;
}

static int limit(plan_ctx *c, const Rel *input, int32_t n, bool is_offset, q *out)
{
    if (n < 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "A %s must not be negative.",
                               is_offset ? "offset" : "limit");
    if (rel(c, input, out) < 0)
        return -1;
    if (out->is_closed || out->has_limit || (is_offset && out->has_offset))
        if (q_wrap(c, out, NULL) < 0)
            return -1;
    if (is_offset) {
        out->has_offset = true;
        out->offset = n;
    } else {
        out->has_limit = true;
        out->limit = n;
    }
    out->stage = ST_LIMIT;
    return 0;
}

static int distinct(plan_ctx *c, const Rel *input, q *out)
{
    if (child_at(c, input, out, ST_SELECT, false) < 0)
        return -1;
    out->distinct = true;
    out->stage = ST_DISTINCT;
    return 0;
}

/* dropDuplicates(cols): the first row of each key (rows of a key are in no
 * particular order, as in Spark). */
static int dedup(plan_ctx *c, const Spark__Connect__Deduplicate *d, q *out)
{
    if (!d)
        return weir__plan_fail(c, PLAN_E_INVALID, "A deduplication is empty.");
    if ((d->_all_columns_as_keys_case && d->all_columns_as_keys) || d->n_column_names == 0)
        return distinct(c, d->input, out);
    if (rel(c, d->input, out) < 0 || q_wrap(c, out, NULL) < 0)
        return -1;
    weir_buf keys = WEIR_BUF_INIT;
    for (size_t i = 0; i < d->n_column_names; i++) {
        if (i)
            weir__buf_puts(&keys, ", ");
        weir__plan_put_ident(&keys, d->column_names[i]);
    }
    weir_buf *t = &out->closed;
    weir__buf_printf(t, "SELECT * FROM %s QUALIFY row_number() OVER (PARTITION BY %s "
                        "ORDER BY %s) = 1",
                     weir__buf_cstr(&out->from), weir__buf_cstr(&keys),
                     weir__buf_cstr(&keys));
    weir__buf_free(&keys);
    out->is_closed = true;
    return 0;
}

/* `* EXCEPT (names...)` over x crossed with a one-row table that has every
 * name, so that names x lacks are no error (drop and withColumn of a new
 * name). The dummy columns are excluded with the others. */
static int except_over(plan_ctx *c, q *x, const weir_buf *names_sql,
                       const weir_buf *dummy_cols, const weir_buf *extra)
{
    if (q_wrap(c, x, NULL) < 0)
        return -1;
    char alias[32];
    next_alias(c, alias, sizeof alias);
    weir__buf_printf(&x->from, " CROSS JOIN (SELECT %s) AS %s", weir__buf_cstr(dummy_cols),
                     alias);
    weir__buf_printf(&x->select, "* EXCEPT (%s)", weir__buf_cstr(names_sql));
    if (extra->len)
        weir__buf_printf(&x->select, ", %s", weir__buf_cstr(extra));
    x->bare_table = false;
    x->is_join = true;
    x->stage = ST_SELECT;
    free(x->qual);
    x->qual = NULL;
    return 0;
}

static void name_lists(weir_buf *names, weir_buf *dummy, const char *name)
{
    if (names->len) {
        weir__buf_puts(names, ", ");
        weir__buf_puts(dummy, ", ");
    }
    weir__plan_put_ident(names, name);
    weir__buf_puts(dummy, "NULL AS ");
    weir__plan_put_ident(dummy, name);
}

/* withColumn(s): the new value is computed next to the old columns under a
 * temporary name, then the old column (if any) is dropped and the value
 * takes its name at the end of the column list. */
static int with_columns(plan_ctx *c, const Spark__Connect__WithColumns *w, q *out)
{
    if (!w || w->n_aliases == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "withColumns has no columns.");
    if (child_at(c, w->input, out, ST_WHERE, true) < 0)
        return -1;
    weir_buf names = WEIR_BUF_INIT, dummy = WEIR_BUF_INIT, extra = WEIR_BUF_INIT;
    int rc = 0;
    weir__buf_putc(&out->select, '*');
    c->scope = &out->scope;
    for (size_t i = 0; i < w->n_aliases && rc == 0; i++) {
        const Spark__Connect__Expression__Alias *a = w->aliases[i];
        if (!a || !a->expr || a->n_name != 1 || !a->name[0]) {
            rc = weir__plan_fail(c, PLAN_E_INVALID, "withColumns needs one name per column.");
            break;
        }
        char tmp[48];
        snprintf(tmp, sizeof tmp, "__weir_wc%zu", i);
        weir__buf_puts(&out->select, ", ");
        rc = weir__plan_expr(c, &out->select, a->expr);
        weir__buf_printf(&out->select, " AS %s", tmp);
        name_lists(&names, &dummy, a->name[0]);
        weir__buf_printf(&extra, "%s%s AS ", i ? ", " : "", tmp);
        weir__plan_put_ident(&extra, a->name[0]);
    }
    out->stage = ST_SELECT;
    for (size_t i = 0; rc == 0 && i < w->n_aliases; i++)
        weir__buf_printf(&names, ", __weir_wc%zu", i);
    if (rc == 0)
        rc = except_over(c, out, &names, &dummy, &extra);
    weir__buf_free(&names);
    weir__buf_free(&dummy);
    weir__buf_free(&extra);
    return rc;
}

static int drop(plan_ctx *c, const Spark__Connect__Drop *d, q *out)
{
    if (!d)
        return weir__plan_fail(c, PLAN_E_INVALID, "A drop is empty.");
    if (rel(c, d->input, out) < 0)
        return -1;
    weir_buf names = WEIR_BUF_INIT, dummy = WEIR_BUF_INIT, extra = WEIR_BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < d->n_column_names; i++)
        if (d->column_names[i])
            name_lists(&names, &dummy, d->column_names[i]);
    for (size_t i = 0; i < d->n_columns && rc == 0; i++) {
        const Spark__Connect__Expression *e = d->columns[i];
        if (!e || e->expr_type_case != SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE ||
            !e->unresolved_attribute || !e->unresolved_attribute->unparsed_identifier) {
            rc = weir__plan_fail(c, PLAN_E_UNSUPPORTED, "drop() takes column names only.");
            break;
        }
        const char *id = e->unresolved_attribute->unparsed_identifier;
        char *last = malloc(strlen(id) + 1);
        if (!last) {
            rc = oom(c);
            break;
        }
        if (weir__plan_last_part(id, last, NULL) < 0)
            rc = weir__plan_fail(c, PLAN_E_SYNTAX, "Invalid column name '%.200s'.", id);
        else
            name_lists(&names, &dummy, last);
        free(last);
    }
    if (rc == 0 && names.len)
        rc = except_over(c, out, &names, &dummy, &extra);
    weir__buf_free(&names);
    weir__buf_free(&dummy);
    weir__buf_free(&extra);
    return rc;
}

static int renamed(plan_ctx *c, const Spark__Connect__WithColumnsRenamed *w, q *out)
{
    if (!w)
        return weir__plan_fail(c, PLAN_E_INVALID, "A rename is empty.");
    if (rel(c, w->input, out) < 0 || q_wrap(c, out, NULL) < 0)
        return -1;
    weir_buf names = WEIR_BUF_INIT, extra = WEIR_BUF_INIT;
    size_t n = w->n_renames ? w->n_renames : w->n_rename_columns_map;
    for (size_t i = 0; i < n; i++) {
        const char *from, *to;
        if (w->n_renames) {
            from = w->renames[i] ? w->renames[i]->col_name : NULL;
            to = w->renames[i] ? w->renames[i]->new_col_name : NULL;
        } else {
            from = w->rename_columns_map[i]->key;
            to = w->rename_columns_map[i]->value;
        }
        if (!from || !to || !*from || !*to) {
            weir__buf_free(&names);
            weir__buf_free(&extra);
            return weir__plan_fail(c, PLAN_E_INVALID, "A rename has no column name.");
        }
        if (i) {
            weir__buf_puts(&names, ", ");
            weir__buf_puts(&extra, ", ");
        }
        weir__plan_put_ident(&names, from);
        weir__plan_put_ident(&extra, from);
        weir__buf_puts(&extra, " AS ");
        weir__plan_put_ident(&extra, to);
    }
    if (n)
        weir__buf_printf(&out->select, "* EXCEPT (%s), %s", weir__buf_cstr(&names),
                         weir__buf_cstr(&extra));
    out->stage = ST_SELECT;
    weir__buf_free(&names);
    weir__buf_free(&extra);
    return 0;
}

static int to_df(plan_ctx *c, const Spark__Connect__ToDF *t, q *out)
{
    if (!t || t->n_column_names == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "toDF has no column names.");
    if (rel(c, t->input, out) < 0)
        return -1;
    char alias[32];
    next_alias(c, alias, sizeof alias);
    if (q_wrap(c, out, alias) < 0)
        return -1;
    weir__buf_putc(&out->from, '(');
    for (size_t i = 0; i < t->n_column_names; i++) {
        if (i)
            weir__buf_puts(&out->from, ", ");
        weir__plan_put_ident(&out->from, t->column_names[i]);
    }
    weir__buf_putc(&out->from, ')');
    return 0;
}

static int subquery_alias(plan_ctx *c, const Spark__Connect__SubqueryAlias *s, q *out)
{
    if (!s || !s->alias || !*s->alias)
        return weir__plan_fail(c, PLAN_E_INVALID, "alias() has no name.");
    if (rel(c, s->input, out) < 0)
        return -1;
    weir_buf a = WEIR_BUF_INIT;
    weir__plan_put_ident(&a, s->alias);
    int rc = weir__buf_failed(&a) ? oom(c) : q_wrap(c, out, weir__buf_cstr(&a));
    weir__buf_free(&a);
    return rc;
}

static int join_operand(plan_ctx *c, q *x, bool right, weir_buf *b)
{
    if (x->is_join && !x->is_closed && x->stage == ST_FROM && x->where.len == 0 &&
        x->select.len == 0) {
        weir__buf_printf(b, right ? "(%s)" : "%s", weir__buf_cstr(&x->from));
        return 0;
    }
    if (q_wrap(c, x, NULL) < 0)
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

static int join(plan_ctx *c, const Spark__Connect__Join *j, q *out)
{
    if (!j)
        return weir__plan_fail(c, PLAN_E_INVALID, "A join is empty.");
    if (j->join_condition && j->n_using_columns)
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "A join has both a condition and USING columns.");
    q l, r;
    q_init(&l);
    q_init(&r);
    int rc = -1;
    weir_buf from = WEIR_BUF_INIT;
    if (rel(c, j->left, &l) < 0 || rel(c, j->right, &r) < 0)
        goto out;
    /* The same table on both sides: name the right one apart. */
    if (l.qual && r.qual && weir__str_ieq(l.qual, r.qual) && q_is_item(&r)) {
        char alias[32];
        next_alias(c, alias, sizeof alias);
        if (q_wrap(c, &r, alias) < 0)
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
    if (scope_append(c, &both, &l.scope) < 0 || scope_append(c, &both, &r.scope) < 0) {
        scope_free(&both);
        goto out;
    }
    if (j->join_condition) {
        weir__buf_puts(&from, " ON ");
        c->scope = &both;
        if (weir__plan_expr(c, &from, j->join_condition) < 0) {
            scope_free(&both);
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
    out->stage = ST_FROM;
    rc = 0;
out:
    weir__buf_free(&from);
    q_free(&l);
    q_free(&r);
    return rc;
}

static int set_op(plan_ctx *c, const Spark__Connect__SetOperation *s, q *out)
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
    q l, r;
    q_init(&l);
    q_init(&r);
    int rc = -1;
    if (rel(c, s->left_input, &l) < 0 || q_wrap(c, &l, NULL) < 0 ||
        rel(c, s->right_input, &r) < 0 || q_wrap(c, &r, NULL) < 0)
        goto out;
    weir__buf_printf(&out->closed, "SELECT * FROM %s %s%s%s SELECT * FROM %s",
                     weir__buf_cstr(&l.from), op, all ? " ALL" : "",
                     by_name ? " BY NAME" : "", weir__buf_cstr(&r.from));
    out->is_closed = true;
    rc = 0;
out:
    q_free(&l);
    q_free(&r);
    return rc;
}

static int range(plan_ctx *c, const Spark__Connect__Range *r, q *out)
{
    if (!r)
        return weir__plan_fail(c, PLAN_E_INVALID, "A range is empty.");
    if (r->step == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "spark.range(): step must not be 0.");
    char alias[32];
    next_alias(c, alias, sizeof alias);
    weir__buf_printf(&out->from, "range(%" PRId64 ", %" PRId64 ", %" PRId64 ") AS %s",
                     r->_start_case ? r->start : 0, r->end, r->step, alias);
    return (out->qual = strdup(alias)) ? 0 : oom(c);
}

/* spark.createDataFrame(local rows) (plan_local.c). */
static int local_relation(plan_ctx *c, const Spark__Connect__LocalRelation *lr, q *out)
{
    char alias[32];
    next_alias(c, alias, sizeof alias);
    if (weir__plan_local_relation(c, lr, &out->from))
        return -1;
    weir__buf_printf(&out->from, " AS %s", alias);
    return (out->qual = strdup(alias)) ? 0 : oom(c);
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
        return true;
    default:
        return false;
    }
}

static int dispatch(plan_ctx *c, const Rel *r, q *out)
{
    switch (r->rel_type_case) {
    case SPARK__CONNECT__RELATION__REL_TYPE_READ: return read(c, r->read, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SQL: return sql_rel(c, r->sql, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_PROJECT: return project(c, r->project, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_FILTER: return filter(c, r->filter, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_JOIN: return join(c, r->join, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SET_OP: return set_op(c, r->set_op, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SORT: return sort(c, r->sort, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_LIMIT:
        return r->limit ? limit(c, r->limit->input, r->limit->limit, false, out)
                        : weir__plan_fail(c, PLAN_E_INVALID, "A limit is empty.");
    case SPARK__CONNECT__RELATION__REL_TYPE_OFFSET:
        return r->offset ? limit(c, r->offset->input, r->offset->offset, true, out)
                         : weir__plan_fail(c, PLAN_E_INVALID, "An offset is empty.");
    case SPARK__CONNECT__RELATION__REL_TYPE_AGGREGATE: return aggregate(c, r->aggregate, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_DEDUPLICATE: return dedup(c, r->deduplicate, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_RANGE: return range(c, r->range, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS:
        return subquery_alias(c, r->subquery_alias, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_TO_DF: return to_df(c, r->to_df, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_COLUMNS_RENAMED:
        return renamed(c, r->with_columns_renamed, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_COLUMNS:
        return with_columns(c, r->with_columns, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_DROP: return drop(c, r->drop, out);
    /* No-ops on a single-node engine. The watermark is not needed either:
     * a triggered update reads all available data, and weir's SQL
     * translation ignores WATERMARK clauses too. */
    case SPARK__CONNECT__RELATION__REL_TYPE_HINT:
        return rel(c, r->hint ? r->hint->input : NULL, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_WITH_WATERMARK:
        return rel(c, r->with_watermark ? r->with_watermark->input : NULL, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_REPARTITION:
        return rel(c, r->repartition ? r->repartition->input : NULL, out);
    case SPARK__CONNECT__RELATION__REL_TYPE_REPARTITION_BY_EXPRESSION:
        return rel(c, r->repartition_by_expression ? r->repartition_by_expression->input : NULL,
                   out);
    case SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION:
        return local_relation(c, r->local_relation, out);
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

static int rel(plan_ctx *c, const Rel *r, q *out)
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
        rc = oom(c);
    size_t total = out->from.len + out->select.len + out->where.len + out->closed.len;
    if (rc == 0 && total > WEIR_PLAN_MAX_SQL)
        rc = weir__plan_fail(c, "PLAN_TOO_LARGE", "The DataFrame plan is too large.");
    weir__plan_leave(c, &m);
    return rc;
}

int weir__plan_relation_sql(const Rel *r, char **out, weir__plan_error *err)
{
    memset(err, 0, sizeof *err);
    *out = NULL;
    plan_ctx c = { err, NULL, 0, 0, NULL };
    q x;
    q_init(&x);
    weir_buf b = WEIR_BUF_INIT;
    int rc = rel(&c, r, &x);
    if (rc == 0)
        q_text(&x, &b);
    q_free(&x);
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
    plan_ctx c = { err, NULL, 0, 0, NULL };
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
    plan_ctx c = { err, NULL, 0, 0, NULL };
    weir_buf b = WEIR_BUF_INIT;
    if (weir__plan_type(&c, &b, type, as_columns != 0) < 0 || weir__buf_failed(&b)) {
        weir__buf_free(&b);
        return err->error_class[0] ? -1 : weir__plan_fail(&c, "OUT_OF_MEMORY", "Out of memory.");
    }
    *out = weir__buf_detach(&b);
    return *out ? 0 : weir__plan_fail(&c, "OUT_OF_MEMORY", "Out of memory.");
}
