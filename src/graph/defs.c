/*
 * Registering definitions: the growable lists of datasets and flows a
 * pipeline defines, and the translation of a parsed SQL file's statements
 * into them, applying the file-scoped effects of SET and USE in order.
 */
#include "graph.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "util/map.h"
#include "util/str.h"
#include "util/vec.h"

int weir__defs_add_dataset(weir_defs *defs, const weir_def_dataset *d)
{
    if (weir__vec_grow((void **)&defs->datasets, &defs->cap_datasets,
                       sizeof(*defs->datasets), defs->n_datasets + 1))
        return WEIR_ENOMEM;
    defs->datasets[defs->n_datasets++] = *d;
    return 0;
}

int weir__defs_add_flow(weir_defs *defs, const weir_def_flow *f)
{
    if (weir__vec_grow((void **)&defs->flows, &defs->cap_flows,
                       sizeof(*defs->flows), defs->n_flows + 1))
        return WEIR_ENOMEM;
    defs->flows[defs->n_flows++] = *f;
    return 0;
}

void weir__defs_free(weir_defs *defs)
{
    if (!defs)
        return;
    free(defs->datasets);
    free(defs->flows);
    defs->datasets = NULL;
    defs->flows = NULL;
    defs->n_datasets = defs->cap_datasets = 0;
    defs->n_flows = defs->cap_flows = 0;
}

/* File-scoped state while registering one SQL file. conf is the SET
 * pairs so far, each key once (a SET of a key again moves it last), with
 * index[key] = its position + 1. Definitions share conf as a snapshot
 * (shared); the next SET then copies it, otherwise it grows in place, so
 * that many SETs in a row take linear time and memory. A SET of a key
 * again leaves a hole (key NULL) that snapshots never see. */
typedef struct file_state {
    const char *catalog;
    const char *database;
    weir_kv *conf;
    size_t n_conf, cap_conf, n_holes;
    bool shared;
    weir_map index; /* case-sensitive, as SET keys are compared */
} file_state;

/* Copy conf without holes into a new array of capacity cap. */
static int conf_copy(file_state *st, weir_arena *arena, size_t cap)
{
    weir_kv *conf = weir__arena_array(arena, cap ? cap : 1, sizeof(*conf));
    if (!conf)
        return WEIR_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < st->n_conf; i++) {
        if (!st->conf[i].key)
            continue;
        conf[n] = st->conf[i];
        if (weir__map_put(&st->index, conf[n].key, (void *)(uintptr_t)(n + 1)))
            return WEIR_ENOMEM;
        n++;
    }
    st->conf = conf;
    st->n_conf = n;
    st->cap_conf = cap;
    st->n_holes = 0;
    st->shared = false;
    return 0;
}

static int set_conf(file_state *st, weir_arena *arena, const char *key,
                    const char *value)
{
    /* Copy-on-write: earlier flows keep the snapshot they were given. */
    if (st->shared || st->n_conf == st->cap_conf) {
        size_t live = st->n_conf - st->n_holes;
        if (conf_copy(st, arena, live < 8 ? 16 : 2 * live))
            return WEIR_ENOMEM;
    }
    uintptr_t at = (uintptr_t)weir__map_get(&st->index, key);
    if (at) {
        st->conf[at - 1].key = NULL;
        st->n_holes++;
    }
    weir_kv *kv = &st->conf[st->n_conf];
    kv->key = weir__arena_strdup(arena, key);
    kv->value = weir__arena_strdup(arena, value);
    if (!kv->key || !kv->value ||
        weir__map_put(&st->index, kv->key, (void *)(uintptr_t)(st->n_conf + 1)))
        return WEIR_ENOMEM;
    st->n_conf++;
    return 0;
}

/* Make conf fit to be shared by a definition: no holes, no more growth. */
static int conf_snapshot(file_state *st, weir_arena *arena)
{
    if (st->n_holes && conf_copy(st, arena, st->n_conf - st->n_holes))
        return WEIR_ENOMEM;
    st->shared = true;
    return 0;
}

static weir_kv *copy_props(weir_arena *arena,
                           const weir_sql_property *props, size_t n)
{
    if (!n)
        return NULL;
    weir_kv *out = weir__arena_array(arena, n, sizeof(*out));
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        out[i].key = props[i].key;
        out[i].value = props[i].value;
    }
    return out;
}

static weir_dataset_kind stmt_kind(weir_sql_stmt_kind k)
{
    switch (k) {
    case WEIR_SQL_CREATE_MATERIALIZED_VIEW: return WEIR_MATERIALIZED_VIEW;
    case WEIR_SQL_CREATE_STREAMING_TABLE: return WEIR_STREAMING_TABLE;
    case WEIR_SQL_CREATE_VIEW: return WEIR_PERSISTED_VIEW;
    case WEIR_SQL_CREATE_TEMPORARY_VIEW: return WEIR_TEMPORARY_VIEW;
    case WEIR_SQL_CREATE_SINK: return WEIR_SINK;
    default: return 0;
    }
}

static int add_dataset_stmt(weir_defs *defs, weir_arena *arena,
                            const weir_sql_stmt *s, const file_state *st)
{
    weir_def_dataset d;
    memset(&d, 0, sizeof(d));
    d.kind = stmt_kind(s->kind);
    d.name = s->name;
    d.ctx_catalog = st->catalog;
    d.ctx_database = st->database;
    d.columns = s->columns;
    d.n_columns = s->n_columns;
    d.columns_src = s->src;
    d.format = s->format;
    d.comment = s->comment;
    d.partition_cols = s->partition_cols;
    d.n_partition_cols = s->n_partition_cols;
    d.cluster_cols = s->cluster_cols;
    d.n_cluster_cols = s->n_cluster_cols;
    d.properties = copy_props(arena, s->properties, s->n_properties);
    d.n_properties = s->n_properties;
    d.options = copy_props(arena, s->options, s->n_options);
    d.n_options = s->n_options;
    d.query = s->query;
    d.cdc = s->cdc;
    d.conf = st->conf;
    d.n_conf = st->n_conf;
    d.is_private = s->is_private;
    d.create_written = s->create_written;
    d.create_spark = s->create_spark;
    d.origin.src = s->src;
    d.origin.pos = s->pos;
    d.origin.sql = true;
    if (s->n_constraints) {
        d.expectations = weir__arena_array(arena, s->n_constraints,
                                           sizeof(*d.expectations));
        if (!d.expectations)
            return WEIR_ENOMEM;
        for (size_t i = 0; i < s->n_constraints; i++) {
            const weir_sql_constraint *c = &s->constraints[i];
            weir_def_expectation *e = &d.expectations[i];
            e->name = c->name;
            e->condition = c->condition;
            e->condition_text = c->condition_text;
            e->action = c->action;
            e->from = WEIR_EXPECT_FROM_SQL;
            e->origin.src = s->src;
            e->origin.pos = c->pos;
            e->origin.sql = true;
        }
        d.n_expectations = s->n_constraints;
    }
    if (weir__arena_failed(arena))
        return WEIR_ENOMEM;
    return weir__defs_add_dataset(defs, &d);
}

static int add_flow_stmt(weir_defs *defs, const weir_sql_stmt *s,
                         const file_state *st)
{
    weir_def_flow f;
    memset(&f, 0, sizeof(f));
    f.name = s->name;
    f.target = s->target;
    f.ctx_catalog = st->catalog;
    f.ctx_database = st->database;
    f.query = s->query;
    f.once = s->once;
    f.cdc = s->cdc;
    f.conf = st->conf;
    f.n_conf = st->n_conf;
    f.comment = s->comment;
    for (size_t i = 0; i < s->n_options; i++)
        f.import_checkpoint = s->options[i].value; /* the parser's one key */
    f.create_written = s->create_written;
    f.create_spark = s->create_spark;
    f.origin.src = s->src;
    f.origin.pos = s->pos;
    f.origin.sql = true;
    return weir__defs_add_flow(defs, &f);
}

/* A SET of a key weir reads must give it a value weir can use
 * (spec/settings.c): else an error at the statement, and the SET is left
 * out. True when it is fine. */
static bool set_ok(const weir_sql_stmt *s, weir__diags *diags)
{
    char why[300];
    int bad = weir__spec_check_setting(s->set_key,
                                       s->set_value ? s->set_value : "", why,
                                       sizeof(why));
    if (!bad)
        return true;
    weir_error e;
    WEIR_ERR(&e, WEIR_ESQL, bad == 2 ? "UNKNOWN_CONF" : "INVALID_CONF_VALUE",
             "SET %.100s: %s.", s->set_key, why);
    weir__sql_error_at(&e, s->src, s->pos);
    if (diags)
        weir__diags_add(diags, &e);
    return false;
}

int weir__defs_add_sql(weir_defs *defs, weir_arena *arena,
                       const weir_sql_stmt *stmts, size_t n_stmts,
                       weir__diags *diags)
{
    bool bad_set = false;
    file_state st;
    memset(&st, 0, sizeof(st));
    st.catalog = defs->default_catalog;
    st.database = defs->default_database;
    weir__map_init(&st.index, false);
    int out = 0;
    for (size_t i = 0; i < n_stmts && !out; i++) {
        const weir_sql_stmt *s = &stmts[i];
        int rc = 0;
        switch (s->kind) {
        case WEIR_SQL_SET:
            if (!set_ok(s, diags))
                bad_set = true;
            else
                rc = set_conf(&st, arena, s->set_key,
                              s->set_value ? s->set_value : "");
            break;
        case WEIR_SQL_USE_CATALOG:
            st.catalog = s->name.n ? s->name.parts[0] : st.catalog;
            st.database = NULL; /* Spark clears the database */
            break;
        case WEIR_SQL_USE_SCHEMA:
            if (s->name.n >= 2) {
                st.catalog = s->name.parts[s->name.n - 2];
                st.database = s->name.parts[s->name.n - 1];
            } else if (s->name.n == 1) {
                st.database = s->name.parts[0];
            }
            break;
        case WEIR_SQL_CREATE_FLOW:
            rc = conf_snapshot(&st, arena);
            if (!rc)
                rc = add_flow_stmt(defs, s, &st);
            break;
        default:
            rc = conf_snapshot(&st, arena);
            if (!rc)
                rc = add_dataset_stmt(defs, arena, s, &st);
            break;
        }
        out = rc;
    }
    weir__map_free(&st.index);
    return out ? out : bad_set ? WEIR_ESQL : 0;
}
