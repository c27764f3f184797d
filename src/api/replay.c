/*
 * Definitions made again in another pipeline: every definition a C call
 * made (weir_pipeline_define_dataset and its shorthands,
 * weir_pipeline_define_flow, weir_pipeline_define_sql) is recorded with a
 * copy of its options in the pipeline's definition arena, and
 * weir_pipeline_copy_definitions replays the record on another pipeline
 * through the same calls. weir test imports a project's Python files once
 * and gives every test's pipeline their definitions this way.
 */
#include "api/internal.h"

#include <string.h>

typedef enum record_kind { REC_DATASET, REC_FLOW, REC_SQL } record_kind;

struct weir_def_record {
    record_kind kind;
    weir_dataset_kind dataset_kind;
    weir_dataset_options dataset;
    weir_flow_options flow;
    const char *sql, *file_name;
};

static const char *dup(weir_arena *a, const char *s)
{
    return weir__arena_strdup(a, s);
}

static const weir_kv *dup_kv(weir_arena *a, const weir_kv *kv, size_t n)
{
    if (!kv || !n)
        return NULL;
    weir_kv *out = weir__arena_array(a, n, sizeof(*out));
    for (size_t i = 0; out && i < n; i++) {
        out[i].key = dup(a, kv[i].key);
        out[i].value = dup(a, kv[i].value);
    }
    return out;
}

static const char *const *dup_list(weir_arena *a, const char *const *v,
                                   size_t n)
{
    if (!v || !n)
        return NULL;
    const char **out = weir__arena_array(a, n, sizeof(*out));
    for (size_t i = 0; out && i < n; i++)
        out[i] = dup(a, v[i]);
    return out;
}

static int push(weir_pipeline *p, const weir_def_record *r)
{
    weir_def_record *copy = weir__arena_alloc(&p->arena, sizeof(*copy));
    if (!copy || weir__arena_failed(&p->arena))
        return WEIR_ENOMEM;
    *copy = *r;
    return WEIR_VEC_PUSH(&p->records, copy);
}

int weir__record_dataset(weir_pipeline *p, weir_dataset_kind kind,
                         const weir_dataset_options *o)
{
    weir_arena *a = &p->arena;
    weir_def_record r;
    memset(&r, 0, sizeof(r));
    r.kind = REC_DATASET;
    r.dataset_kind = kind;
    weir_dataset_options *d = &r.dataset;
    *d = (weir_dataset_options)WEIR_DATASET_OPTIONS_INIT;
    d->name = dup(a, o->name);
    d->query = dup(a, o->query);
    d->comment = dup(a, o->comment);
    d->schema = dup(a, o->schema);
    d->format = dup(a, o->format);
    d->properties = dup_kv(a, o->properties, o->n_properties);
    d->n_properties = d->properties ? o->n_properties : 0;
    d->partition_cols = dup_list(a, o->partition_cols, o->n_partition_cols);
    d->n_partition_cols = d->partition_cols ? o->n_partition_cols : 0;
    d->cluster_cols = dup_list(a, o->cluster_cols, o->n_cluster_cols);
    d->n_cluster_cols = d->cluster_cols ? o->n_cluster_cols : 0;
    if (o->expectations && o->n_expectations) {
        weir_expectation *e = weir__arena_array(a, o->n_expectations,
                                                sizeof(*e));
        for (size_t i = 0; e && i < o->n_expectations; i++) {
            e[i].name = dup(a, o->expectations[i].name);
            e[i].condition = dup(a, o->expectations[i].condition);
            e[i].action = o->expectations[i].action;
        }
        d->expectations = e;
        d->n_expectations = e ? o->n_expectations : 0;
    }
    d->options = dup_kv(a, o->options, o->n_options);
    d->n_options = d->options ? o->n_options : 0;
    if (o->version >= 2) {
        d->source_path = dup(a, o->source_path);
        d->source_line = o->source_line;
        d->conf = dup_kv(a, o->conf, o->n_conf);
        d->n_conf = d->conf ? o->n_conf : 0;
    }
    return push(p, &r);
}

int weir__record_flow(weir_pipeline *p, const weir_flow_options *o)
{
    weir_arena *a = &p->arena;
    weir_def_record r;
    memset(&r, 0, sizeof(r));
    r.kind = REC_FLOW;
    weir_flow_options *f = &r.flow;
    *f = (weir_flow_options)WEIR_FLOW_OPTIONS_INIT;
    f->name = dup(a, o->name);
    f->target = dup(a, o->target);
    f->query = dup(a, o->query);
    f->once = o->once;
    f->conf = dup_kv(a, o->conf, o->n_conf);
    f->n_conf = f->conf ? o->n_conf : 0;
    f->comment = dup(a, o->comment);
    if (o->version >= 2) {
        f->source_path = dup(a, o->source_path);
        f->source_line = o->source_line;
    }
    if (o->version >= 3)
        f->import_checkpoint = dup(a, o->import_checkpoint);
    if (o->version >= 4)
        f->auto_cdc = dup(a, o->auto_cdc);
    return push(p, &r);
}

int weir__record_sql(weir_pipeline *p, const char *sql, const char *file_name)
{
    weir_def_record r;
    memset(&r, 0, sizeof(r));
    r.kind = REC_SQL;
    r.sql = dup(&p->arena, sql);
    r.file_name = dup(&p->arena, file_name);
    return push(p, &r);
}

int weir_pipeline_copy_definitions(weir_pipeline *dst,
                                   const weir_pipeline *src, weir_error *err)
{
    if (!dst || !src)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "both pipelines are required");
    if (dst == src)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "a pipeline cannot copy its own definitions");
    int rc = 0;
    for (size_t i = 0; !rc && i < src->records.len; i++) {
        const weir_def_record *r = src->records.items[i];
        switch (r->kind) {
        case REC_DATASET:
            rc = weir_pipeline_define_dataset(dst, r->dataset_kind, &r->dataset,
                                              NULL, err);
            break;
        case REC_FLOW: rc = weir_pipeline_define_flow(dst, &r->flow, err); break;
        case REC_SQL:
            rc = weir_pipeline_define_sql(dst, r->sql, r->file_name, err);
            break;
        }
    }
    return rc;
}
