/*
 * Definitions made through C calls (weir.h "Defining the graph"): datasets,
 * flows and read references. Names, queries, schemas and expectations go
 * through the Spark SQL front end, so a definition made in C is the same
 * definition the equivalent SQL statement makes; everything is copied into
 * the pipeline's definition arena.
 */
#include "api/internal.h"

#include <string.h>

#include "graph/graph.h"
#include "util/buf.h"
#include "util/str.h"

static int oom(weir_error *err)
{
    return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
}

/* Outside backticks a name may hold identifier characters and dots only:
 * the parse below would otherwise accept "t WHERE x" as the name t. */
static bool plain_name(const char *s)
{
    bool quoted = false;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '`')
            quoted = !quoted;
        else if (!quoted && !(c >= 0x80 || c == '_' || c == '.' ||
                              (c >= '0' && c <= '9') ||
                              ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')))
            return false;
    }
    return !quoted;
}

/* Parse "a.b.c" (backticks allowed) as a name (sql/). */
static int parse_name_in(weir_arena *a, const char *text, weir_sql_name *out,
                         weir_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!text || !*text)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "a name is required");
    if (!plain_name(text))
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "invalid name '%s'", text);
    weir_sql_source src = { .path = "<api>", .text = text,
                            .len = strlen(text) };
    weir_error ignore;
    int rc = weir__sql_parse_table_name(out, a, &src, &ignore);
    if (rc == WEIR_ENOMEM)
        return oom(err);
    if (rc && strcmp(ignore.error_class, "REQUIRES_SINGLE_PART_NAMESPACE") == 0)
        return WEIR_ERR(err, WEIR_EINVAL, "REQUIRES_SINGLE_PART_NAMESPACE",
                        "4+ part table identifier %s is not supported.", text);
    if (rc)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "invalid name '%s'", text);
    /* Not a place in any text the graph reports on: errors about the name
     * point at the start of the definition's origin. */
    out->pos.offset = 0;
    out->pos.line = out->pos.column = 1;
    return 0;
}

int weir__parse_name(weir_pipeline *p, const char *text, weir_sql_name *out,
                     weir_error *err)
{
    return parse_name_in(&p->arena, text, out, err);
}

/* Whether dataset d is what name (as written, in the pipeline's catalog
 * and database) names: temporary views and sinks by their one part, the
 * others qualified. */
static bool names_dataset(weir_arena *a, const weir_pipeline *p,
                          const weir_def_dataset *d, const weir_sql_name *name)
{
    if (!d->name.n)
        return false;
    if (d->kind == WEIR_TEMPORARY_VIEW || d->kind == WEIR_SINK)
        return name->n == 1 &&
               weir__str_ieq(name->parts[0], d->name.parts[d->name.n - 1]);
    const char *want = weir__graph_qualify(a, name, p->catalog, p->database);
    const char *have = weir__graph_qualify(a, &d->name, d->ctx_catalog,
                                           d->ctx_database);
    return want && have && weir__str_ieq(want, have);
}

bool weir_pipeline_defines(const weir_pipeline *p, const char *name)
{
    if (!p || !name)
        return false;
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_name n;
    weir_error ignore;
    bool found = false;
    if (parse_name_in(&a, name, &n, &ignore) == 0)
        for (size_t i = 0; !found && i < p->defs.n_datasets; i++)
            found = names_dataset(&a, p, &p->defs.datasets[i], &n);
    weir__arena_free(&a);
    return found;
}

/* Where a definition made through the API says it comes from
 * (options version 2): errors about it are reported there. */
typedef struct api_origin {
    const char *path; /* NULL = the query text itself */
    unsigned line;
} api_origin;

/* The origin of a definition: its query's source, or for a definition
 * that names its own file, a source at that file:line. */
static int origin_of(weir_pipeline *p, const api_origin *at,
                     const weir_sql_source *query_src, weir_origin *out,
                     weir_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!at->path) {
        out->src = query_src; /* graph errors point into the query text */
        out->pos.line = out->pos.column = query_src ? 1 : 0;
        return 0;
    }
    weir_sql_source *src = weir__arena_alloc(&p->arena, sizeof(*src));
    if (!src)
        return oom(err);
    memset(src, 0, sizeof(*src));
    src->path = src->at_path = weir__arena_strdup(&p->arena, at->path);
    src->at_line = at->line;
    src->text = query_src ? query_src->text : "";
    src->len = query_src ? query_src->len : 0;
    if (!src->path)
        return oom(err);
    out->src = src;
    out->pos.line = at->line;
    return 0;
}

/* The source of SQL text given through the API, named "<what>" so errors
 * point into the text (or at `at`, when given); NULL when out of memory. */
static weir_sql_source *api_source(weir_pipeline *p, const char *text,
                                   const char *what, const api_origin *at)
{
    weir_sql_source *src = weir__arena_alloc(&p->arena, sizeof(*src));
    if (!src)
        return NULL;
    memset(src, 0, sizeof(*src));
    src->path = weir__arena_printf(&p->arena, "<%s>", what);
    src->text = weir__arena_strdup(&p->arena, text);
    src->len = strlen(text);
    if (at->path) {
        src->at_path = weir__arena_strdup(&p->arena, at->path);
        src->at_line = at->line;
    }
    return weir__arena_failed(&p->arena) ? NULL : src;
}

/* A parser's result rc for API text: its error e becomes a diagnostic. */
static int parsed(weir_pipeline *p, int rc, weir_error *e, weir_error *err)
{
    if (rc == WEIR_ENOMEM)
        return oom(err);
    if (rc) {
        e->code = WEIR_ESQL;
        weir__diags_add(&p->diags, e);
        weir__error_copy(err, e);
        return WEIR_ESQL;
    }
    return 0;
}

/* Parse a query given through the API (api_source); *src_out is its
 * source. */
static int parse_query(weir_pipeline *p, const char *text, const char *what,
                       const api_origin *at, const weir_sql_query **out,
                       const weir_sql_source **src_out, weir_error *err)
{
    *out = NULL;
    *src_out = NULL;
    if (!text)
        return 0;
    weir_sql_source *src = api_source(p, text, what, at);
    if (!src)
        return oom(err);
    weir_error e;
    weir_sql_query *q = NULL;
    int rc = parsed(p, weir__sql_parse_query(&q, &p->arena, src, 0, src->len, &e),
                    &e, err);
    if (rc)
        return rc;
    *out = q;
    *src_out = src;
    return 0;
}

/* An AUTO CDC flow's clauses, like parse_query. */
static int parse_cdc(weir_pipeline *p, const char *text, const char *what,
                     const api_origin *at, weir_def_flow *f,
                     const weir_sql_source **src_out, weir_error *err)
{
    weir_sql_source *src = api_source(p, text, what, at);
    if (!src)
        return oom(err);
    weir_error e;
    int rc = parsed(p, weir__sql_parse_cdc(&f->cdc, &f->query, &p->arena, src,
                                           0, src->len, &e),
                    &e, err);
    if (rc)
        return rc;
    *src_out = src;
    return 0;
}

static weir_kv *copy_kv(weir_arena *a, const weir_kv *kv, size_t n)
{
    if (!n || !kv)
        return NULL;
    weir_kv *out = weir__arena_array(a, n, sizeof(*out));
    for (size_t i = 0; out && i < n; i++) {
        out[i].key = weir__arena_strdup(a, kv[i].key);
        out[i].value = weir__arena_strdup(a, kv[i].value);
    }
    return out;
}

static const char **copy_list(weir_arena *a, const char *const *v, size_t n)
{
    if (!n || !v)
        return NULL;
    const char **out = weir__arena_array(a, n, sizeof(*out));
    for (size_t i = 0; out && i < n; i++)
        out[i] = weir__arena_strdup(a, v[i]);
    return out;
}

/* Column list and expectations: parsed by the SQL front end from a
 * CREATE MATERIALIZED VIEW statement built around them. */
static int parse_schema(weir_pipeline *p, weir_def_dataset *d,
                        const weir_dataset_options *o, const api_origin *at,
                        weir_error *err)
{
    if (!o->schema && !o->n_expectations)
        return 0;
    if (o->n_expectations && !o->expectations)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "n_expectations is set but expectations is NULL");
    static const char *const actions[] = { "", " ON VIOLATION DROP ROW",
                                           " ON VIOLATION FAIL UPDATE",
                                           " ON VIOLATION QUARANTINE" };
    weir_buf sql = WEIR_BUF_INIT;
    weir__buf_puts(&sql, "CREATE MATERIALIZED VIEW x (");
    if (o->schema)
        weir__buf_puts(&sql, o->schema);
    for (size_t i = 0; i < o->n_expectations; i++) {
        const weir_expectation *x = &o->expectations[i];
        if ((unsigned)x->action > WEIR_EXPECT_QUARANTINE || !x->name ||
            !x->condition) {
            weir__buf_free(&sql);
            return WEIR_ERR(err, WEIR_EINVAL, NULL,
                            "expectation %zu needs a name, a condition and a "
                            "known action",
                            i + 1);
        }
        if (i || o->schema)
            weir__buf_puts(&sql, ", ");
        weir__buf_puts(&sql, "CONSTRAINT ");
        weir__buf_put_spark_ident(&sql, x->name);
        weir__buf_printf(&sql, " EXPECT (%s)%s", x->condition,
                         actions[x->action]);
    }
    weir__buf_puts(&sql, ") AS SELECT 1");
    weir_sql_source *src = weir__arena_alloc(&p->arena, sizeof(*src));
    if (src) {
        memset(src, 0, sizeof(*src));
        src->path = weir__arena_printf(&p->arena, "<%s schema>", o->name);
        if (at->path) {
            src->at_path = weir__arena_strdup(&p->arena, at->path);
            src->at_line = at->line;
        }
        src->text = weir__arena_strdup(&p->arena, weir__buf_cstr(&sql));
        src->len = sql.len;
    }
    bool failed = sql.failed;
    weir__buf_free(&sql);
    if (failed || !src || weir__arena_failed(&p->arena))
        return oom(err);
    weir_sql_stmt *stmts = NULL;
    size_t n = 0;
    int rc = weir__sql_parse_file(&stmts, &n, &p->arena, src, &p->diags);
    if (rc == WEIR_ENOMEM)
        return oom(err);
    if (rc || n != 1)
        return weir__first_diag(p, err, WEIR_ESQL);
    d->columns = stmts[0].columns;
    d->n_columns = stmts[0].n_columns;
    d->columns_src = src;
    if (stmts[0].n_constraints) {
        d->expectations = weir__arena_array(&p->arena, stmts[0].n_constraints,
                                            sizeof(*d->expectations));
        if (!d->expectations)
            return oom(err);
        for (size_t i = 0; i < stmts[0].n_constraints; i++) {
            const weir_sql_constraint *c = &stmts[0].constraints[i];
            d->expectations[i].name = c->name;
            d->expectations[i].condition = c->condition;
            d->expectations[i].condition_text = c->condition_text;
            d->expectations[i].action = c->action;
            d->expectations[i].origin.src = src;
            d->expectations[i].origin.pos = c->pos;
        }
        d->n_expectations = stmts[0].n_constraints;
    }
    return 0;
}

static bool one_part_kind(weir_dataset_kind kind)
{
    return kind == WEIR_TEMPORARY_VIEW || kind == WEIR_SINK;
}

/* The identifier a definition resolves to, as the graph will name it. */
static const char *resolved_name(weir_pipeline *p, weir_dataset_kind kind,
                                 const weir_sql_name *name)
{
    if (name->n == 1 && one_part_kind(kind))
        return name->parts[0];
    return weir__graph_qualify(&p->arena, name, p->catalog, p->database);
}

static int check_counts(const weir_dataset_options *o, weir_error *err)
{
    if ((o->n_properties && !o->properties) ||
        (o->n_partition_cols && !o->partition_cols) ||
        (o->n_cluster_cols && !o->cluster_cols) ||
        (o->n_options && !o->options))
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "a count is set but its array is NULL");
    return 0;
}

int weir_pipeline_define_dataset(weir_pipeline *p, weir_dataset_kind kind,
                                 const weir_dataset_options *o,
                                 const char **out, weir_error *err)
{
    if (out)
        *out = NULL;
    if (!p || !o)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "pipeline and options are required");
    if (o->version < 1 || o->version > WEIR_DATASET_OPTIONS_VERSION)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "unsupported weir_dataset_options version %u", o->version);
    if (kind < WEIR_STREAMING_TABLE || kind > WEIR_SINK)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "unknown dataset kind %d",
                        (int)kind);
    weir__begin_call(p);
    weir_def_dataset d;
    memset(&d, 0, sizeof(d));
    d.kind = kind;
    d.ctx_catalog = p->catalog;
    d.ctx_database = p->database;
    const weir_sql_source *src = NULL;
    api_origin at = { NULL, 0 };
    if (o->version >= 2 && o->source_path && *o->source_path) {
        at.path = o->source_path;
        at.line = o->source_line;
    }
    int rc = check_counts(o, err);
    if (!rc && o->version >= 2 && o->n_conf && !o->conf)
        rc = WEIR_ERR(err, WEIR_EINVAL, NULL, "n_conf is set but conf is NULL");
    if (!rc)
        rc = weir__parse_name(p, o->name, &d.name, err);
    if (!rc)
        rc = parse_query(p, o->query, o->name, &at, &d.query, &src, err);
    if (!rc)
        rc = parse_schema(p, &d, o, &at, err);
    if (!rc)
        rc = origin_of(p, &at, src, &d.origin, err);
    if (rc)
        return rc;
    weir_arena *a = &p->arena;
    if (o->version >= 2) {
        d.conf = copy_kv(a, o->conf, o->n_conf);
        d.n_conf = o->conf ? o->n_conf : 0;
    }
    d.comment = weir__arena_strdup(a, o->comment);
    d.format = weir__arena_strdup(a, o->format);
    d.properties = copy_kv(a, o->properties, o->n_properties);
    d.n_properties = o->n_properties;
    d.options = copy_kv(a, o->options, o->n_options);
    d.n_options = o->n_options;
    d.partition_cols = copy_list(a, o->partition_cols, o->n_partition_cols);
    d.n_partition_cols = o->n_partition_cols;
    d.cluster_cols = copy_list(a, o->cluster_cols, o->n_cluster_cols);
    d.n_cluster_cols = o->n_cluster_cols;
    const char *name = resolved_name(p, kind, &d.name);
    if (!name || weir__arena_failed(a) || weir__defs_add_dataset(&p->defs, &d) ||
        weir__record_dataset(p, kind, o))
        return oom(err);
    weir__defined(p);
    if (out)
        *out = name;
    return 0;
}

int weir_pipeline_create_table(weir_pipeline *p,
                               const weir_dataset_options *opts,
                               const char **out, weir_error *err)
{
    return weir_pipeline_define_dataset(p, WEIR_STREAMING_TABLE, opts, out, err);
}

int weir_pipeline_create_materialized_view(weir_pipeline *p,
                                           const weir_dataset_options *opts,
                                           const char **out, weir_error *err)
{
    return weir_pipeline_define_dataset(p, WEIR_MATERIALIZED_VIEW, opts, out,
                                        err);
}

int weir_pipeline_create_temporary_view(weir_pipeline *p,
                                        const weir_dataset_options *opts,
                                        const char **out, weir_error *err)
{
    return weir_pipeline_define_dataset(p, WEIR_TEMPORARY_VIEW, opts, out, err);
}

int weir_pipeline_define_flow(weir_pipeline *p, const weir_flow_options *o,
                              weir_error *err)
{
    if (!p || !o)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "pipeline and options are required");
    if (o->version < 1 || o->version > WEIR_FLOW_OPTIONS_VERSION)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "unsupported weir_flow_options version %u", o->version);
    const char *name = o->name, *target = o->target;
    const char *cdc = o->version >= 4 ? o->auto_cdc : NULL;
    if (!name || !target || (!o->query) == (!cdc))
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "a flow needs a name, a target and a query (or, for "
                        "an AUTO CDC flow, its clauses instead)");
    if (cdc && (o->once || (o->version >= 3 && o->import_checkpoint)))
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "flow '%s': an AUTO CDC flow cannot be a once flow "
                        "or import a checkpoint",
                        name);
    if (o->n_conf && !o->conf)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "n_conf is set but conf is NULL");
    weir__begin_call(p);
    weir_def_flow f;
    memset(&f, 0, sizeof(f));
    f.ctx_catalog = p->catalog;
    f.ctx_database = p->database;
    const weir_sql_source *src = NULL;
    api_origin at = { NULL, 0 };
    if (o->version >= 2 && o->source_path && *o->source_path) {
        at.path = o->source_path;
        at.line = o->source_line;
    }
    int rc = weir__parse_name(p, name, &f.name, err);
    if (!rc)
        rc = weir__parse_name(p, target, &f.target, err);
    if (!rc && cdc)
        rc = parse_cdc(p, cdc, name, &at, &f, &src, err);
    else if (!rc)
        rc = parse_query(p, o->query, name, &at, &f.query, &src, err);
    if (!rc)
        rc = origin_of(p, &at, src, &f.origin, err);
    if (rc)
        return rc;
    f.once = o->once;
    f.conf = copy_kv(&p->arena, o->conf, o->n_conf);
    f.n_conf = o->n_conf;
    f.comment = weir__arena_strdup(&p->arena, o->comment);
    if (o->version >= 3 && o->import_checkpoint) {
        if (!*o->import_checkpoint)
            return WEIR_ERR(err, WEIR_EINVAL, NULL,
                            "flow '%s': import_checkpoint is empty", name);
        if (o->once)
            return WEIR_ERR(err, WEIR_EINVAL, NULL,
                            "flow '%s': a once flow cannot import a "
                            "checkpoint (import_checkpoint is for streaming "
                            "append flows)",
                            name);
        f.import_checkpoint = weir__arena_strdup(&p->arena, o->import_checkpoint);
    }
    if (weir__arena_failed(&p->arena) || weir__defs_add_flow(&p->defs, &f) ||
        weir__record_flow(p, o))
        return oom(err);
    weir__defined(p);
    return 0;
}

/* Is `name` (one part) a temporary view defined so far? */
static bool is_temporary_view(const weir_pipeline *p, const char *name)
{
    for (size_t i = 0; i < p->defs.n_datasets; i++) {
        const weir_def_dataset *d = &p->defs.datasets[i];
        if (d->kind == WEIR_TEMPORARY_VIEW && d->name.n == 1 &&
            weir__str_ieq(d->name.parts[0], name))
            return true;
    }
    return false;
}

int weir_pipeline_read(weir_pipeline *p, const char *name, bool streaming,
                       const char **out, weir_error *err)
{
    if (out)
        *out = NULL;
    if (!p || !name || !out)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "pipeline, name and out are required");
    weir_sql_name n;
    int rc = weir__parse_name(p, name, &n, err);
    if (rc)
        return rc;
    weir_buf b = WEIR_BUF_INIT;
    if (streaming)
        weir__buf_puts(&b, "STREAM ");
    if (!(n.n == 1 && is_temporary_view(p, n.parts[0]))) {
        if (n.n < 3) {
            weir__buf_put_spark_ident(&b, p->catalog);
            weir__buf_putc(&b, '.');
        }
        if (n.n < 2) {
            weir__buf_put_spark_ident(&b, p->database);
            weir__buf_putc(&b, '.');
        }
    }
    for (size_t i = 0; i < n.n; i++) {
        if (i)
            weir__buf_putc(&b, '.');
        weir__buf_put_spark_ident(&b, n.parts[i]);
    }
    const char *text = b.failed ? NULL
                                : weir__arena_strdup(&p->arena, weir__buf_cstr(&b));
    weir__buf_free(&b);
    if (!text)
        return oom(err);
    *out = text;
    return 0;
}
