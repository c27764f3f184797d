/*
 * Spark's graph validations that need no schemas (GraphValidations: flow
 * streamingness, multiple flows into a materialized view, AUTO CDC flows'
 * clauses and targets, temporary objects
 * in persisted views, datasets without flows, resettable dependencies,
 * streaming aggregations) and each dataset's expectations, including
 * those declared as table properties.
 */
#include "graph/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/storage.h"
#include "util/buf.h"
#include "util/str.h"
#include "util/vec.h"

/* ---- expectations from table properties ------------------------------------ */

/* pipelines.expect.<name>, pipelines.expect_or_drop.<name>,
 * pipelines.expect_or_fail.<name>, pipelines.expect_or_quarantine.<name>
 * = '<condition>': the spellings of Python's @dp.expect* decorators. */
static bool property_action(const char *key, weir_sql_violation *action,
                            const char **name)
{
    static const struct {
        const char *prefix;
        weir_sql_violation action;
    } forms[] = { { "pipelines.expect.", WEIR_SQL_VIOLATION_WARN },
                  { "pipelines.expect_or_drop.", WEIR_SQL_VIOLATION_DROP },
                  { "pipelines.expect_or_fail.", WEIR_SQL_VIOLATION_FAIL },
                  { "pipelines.expect_or_quarantine.",
                    WEIR_SQL_VIOLATION_QUARANTINE } };
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        size_t n = strlen(forms[i].prefix);
        if (weir__str_ieqn(key, forms[i].prefix, n) && key[n]) {
            *action = forms[i].action;
            *name = key + n;
            return true;
        }
    }
    return false;
}

/* Expectation names are unique per dataset, whoever declared them (SQL
 * CONSTRAINT, C API, table property, spec). */
static void unique_expectations(builder *b, const weir_gdataset *d)
{
    const weir_def_expectation *all = d->expectations;
    for (size_t i = 0; i < d->n_expectations; i++)
        for (size_t j = 0; j < i; j++)
            if (weir__str_ieq(all[i].name, all[j].name)) {
                weir__graph_report(b,
                                   all[i].origin.src ? &all[i].origin
                                                     : &d->def->origin,
                                   NULL, "DUPLICATE_EXPECTATION_NAME",
                                   "Expectation '%s' is declared twice for "
                                   "%s; expectation names are unique per "
                                   "dataset",
                                   all[i].name, d->display);
                break;
            }
}

int weir__graph_dataset_expectations(builder *b, weir_gdataset *d)
{
    weir_graph *g = b->g;
    const weir_def_dataset *def = d->def;
    size_t n = def->n_expectations;
    for (size_t i = 0; i < def->n_properties; i++) {
        weir_sql_violation a;
        const char *name;
        n += property_action(def->properties[i].key, &a, &name);
    }
    d->expectations = def->expectations;
    d->n_expectations = def->n_expectations;
    if (n == def->n_expectations) {
        unique_expectations(b, d);
        return 0;
    }
    weir_def_expectation *all = weir__arena_array(&g->arena, n + 1, sizeof(*all));
    if (!all)
        return WEIR_ENOMEM;
    if (def->n_expectations)
        memcpy(all, def->expectations, def->n_expectations * sizeof(*all));
    size_t k = def->n_expectations;
    for (size_t i = 0; i < def->n_properties; i++) {
        weir_sql_violation a;
        const char *name;
        if (!property_action(def->properties[i].key, &a, &name))
            continue;
        weir_sql_source *src = weir__arena_alloc(&g->arena, sizeof(*src));
        if (!src)
            return WEIR_ENOMEM;
        src->path = def->origin.src ? def->origin.src->path : "<properties>";
        src->text = def->properties[i].value ? def->properties[i].value : "";
        src->len = strlen(src->text);
        weir_sql_expr *cond = NULL;
        weir_error e;
        if (weir__sql_parse_expr(&cond, &g->arena, src, 0, src->len, &e)) {
            weir__graph_report(b, &def->origin, NULL, "INVALID_EXPECTATION",
                      "Expectation '%s' of %s (table property %s): %s", name,
                      d->display, def->properties[i].key, e.message);
            continue;
        }
        weir_def_expectation *x = &all[k++];
        x->name = name;
        x->condition = cond;
        x->condition_text = src->text;
        x->action = a;
        x->from = WEIR_EXPECT_FROM_PROPERTY;
        x->origin = def->origin;
    }
    d->expectations = all;
    d->n_expectations = k;
    unique_expectations(b, d);
    return 0;
}

/* ---- definitions ---------------------------------------------------------- */

/* What a front end may register is checked here, not in the front end: SQL
 * files, C calls (and, later, Python files over Spark Connect) reach the
 * same rules with the same error classes. */

#define NOT_ALLOWED "_LEGACY_ERROR_TEMP_0035"

static const char *create_what(weir_dataset_kind k)
{
    switch (k) {
    case WEIR_STREAMING_TABLE: return "STREAMING TABLE";
    case WEIR_MATERIALIZED_VIEW: return "MATERIALIZED VIEW";
    case WEIR_SINK: return "SINK";
    default: return "VIEW";
    }
}

#define DELTA_UNSUPPORTED "DELTA_UNSUPPORTED_FEATURE"

static void not_allowed(builder *b, const weir_gdataset *d, const char *what)
{
    weir__graph_report(b, &d->def->origin, NULL, NOT_ALLOWED,
                       "Operation not allowed: %s %s not supported for "
                       "CREATE %s statements.",
                       what, strchr(what, ' ') ? "are" : "is",
                       create_what(d->kind));
}

/* Clauses each kind takes: tables everything but sink options; views a
 * query, columns, comment and properties; sinks a format, options and a
 * comment. The SQL grammar cannot say more; other front ends can. */
static void check_clauses(builder *b, const weir_gdataset *d)
{
    const weir_def_dataset *def = d->def;
    if (def->n_options && d->kind != WEIR_SINK)
        weir__graph_report(b, &def->origin, NULL, NOT_ALLOWED,
                           "Operation not allowed: Options are not supported "
                           "for CREATE %s statements. Please remove any "
                           "OPTIONS lists specified in the statement.",
                           create_what(d->kind));
    if (weir__is_table(d->kind))
        return;
    if (def->n_partition_cols)
        not_allowed(b, d, "PARTITIONED BY");
    if (def->n_cluster_cols)
        not_allowed(b, d, "CLUSTER BY");
    if (d->kind == WEIR_SINK) {
        if (def->query)
            weir__graph_report(b, &def->origin, NULL, NOT_ALLOWED,
                               "Operation not allowed: a sink has no query "
                               "of its own; append flows write sink %s.",
                               d->display);
        if (def->n_columns)
            not_allowed(b, d, "Column lists");
        if (def->n_properties)
            not_allowed(b, d, "TBLPROPERTIES");
    } else if (def->format) {
        not_allowed(b, d, "USING");
    }
}

/* Spark's COLUMN_ALREADY_EXISTS, for the user schema and for partition
 * and clustering columns (names are case-insensitive). */
static void column_exists(builder *b, const weir_origin *o,
                          const weir_sql_pos *pos, const char *name)
{
    weir__graph_report(b, o, pos, "COLUMN_ALREADY_EXISTS",
                       "The column `%s` already exists. Choose another name "
                       "or rename the existing column.",
                       name);
}

static void unique_names(builder *b, const weir_def_dataset *def,
                         const char *what, const char **cols, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!cols[i] || !*cols[i]) {
            weir__graph_report(b, &def->origin, NULL, "INVALID_COLUMN_NAME",
                               "A %s column needs a name.", what);
            continue;
        }
        for (size_t j = 0; j < i; j++)
            if (cols[j] && weir__str_ieq(cols[i], cols[j])) {
                column_exists(b, &def->origin, NULL, cols[i]);
                break;
            }
    }
}

static void check_columns(builder *b, const weir_gdataset *d)
{
    const weir_def_dataset *def = d->def;
    weir_origin at = def->origin;
    if (def->columns_src)
        at.src = def->columns_src;
    for (size_t i = 0; i < def->n_columns; i++)
        for (size_t j = 0; j < i; j++)
            if (weir__str_ieq(def->columns[i].name, def->columns[j].name)) {
                column_exists(b, &at, at.src ? &def->columns[i].pos : NULL,
                              def->columns[i].name);
                break;
            }
    unique_names(b, def, "partition", def->partition_cols,
                 def->n_partition_cols);
    unique_names(b, def, "clustering", def->cluster_cols, def->n_cluster_cols);
    if (def->n_partition_cols && def->n_cluster_cols)
        weir__graph_report(b, &def->origin, NULL,
                           "SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED",
                           "Cannot specify both CLUSTER BY and PARTITIONED BY "
                           "(%s).",
                           d->display);
}

/* Expectations check the rows a table stores: views and sinks store none. */
static void check_expectations(builder *b, const weir_gdataset *d)
{
    bool quarantine = false;
    for (size_t k = 0; k < d->n_expectations; k++) {
        const weir_def_expectation *x = &d->expectations[k];
        quarantine |= x->action == WEIR_SQL_VIOLATION_QUARANTINE;
        if (!x->name || !*x->name)
            weir__graph_report(b, x->origin.src ? &x->origin : &d->def->origin,
                               NULL, "INVALID_EXPECTATION",
                               "An expectation of %s has no name.",
                               d->display);
    }
    if (!d->n_expectations || weir__is_table(d->kind))
        return;
    if (quarantine)
        weir__graph_report(b, &d->def->origin, NULL, "INVALID_EXPECTATION",
                           "ON VIOLATION QUARANTINE needs a streaming table "
                           "or materialized view to put the rows beside; %s "
                           "is a %s.",
                           d->display, weir__kind_name(d->kind));
    else
        weir__graph_report(b, &d->def->origin, NULL, "INVALID_EXPECTATION",
                           "Expectations check the rows a streaming table or "
                           "materialized view stores; %s is a %s, which "
                           "stores none.",
                           d->display, weir__kind_name(d->kind));
}

/* The table property location: the folder of a Delta dataset, local
 * and absolute, one dataset's only. */
static void check_location(builder *b, const weir_gdataset *d)
{
    if (!d->location)
        return;
    if (!weir__dataset_delta(d)) {
        weir__graph_report(b, &d->def->origin, NULL, "LOCATION_NOT_SUPPORTED",
                           "The %s %s has the table property location, which "
                           "weir takes only for datasets stored as Delta "
                           "(USING delta); its other tables are in the "
                           "pipeline's storage.",
                           weir__kind_name(d->kind), d->display);
        return;
    }
    if (strstr(d->location, "://") || d->location[0] != '/') {
        weir__graph_report(b, &d->def->origin, NULL, "INVALID_LOCATION",
                           "The location '%s' of %s must be an absolute local "
                           "path (or a file: URI); weir does not write Delta "
                           "datasets to object storage yet.",
                           d->location, d->display);
        return;
    }
    for (size_t i = 0; i < b->g->n_datasets; i++) {
        const weir_gdataset *o = &b->g->datasets[i];
        if (o == d)
            break;
        if (o->location && weir__dataset_delta(o) &&
            !strcmp(o->location, d->location))
            weir__graph_report(b, &d->def->origin, NULL,
                               "LOCATION_ALREADY_EXISTS",
                               "%s and %s have the same location '%s': a "
                               "Delta table holds one dataset.",
                               o->display, d->display, d->location);
    }
}

/* What weir does not store as Delta yet (docs/delta.md): expectations. */
static void check_delta(builder *b, const weir_gdataset *d)
{
    check_location(b, d);
    if (weir__dataset_delta(d) && d->n_expectations)
        weir__graph_report(b, &d->def->origin, NULL, DELTA_UNSUPPORTED,
                           "The %s %s is stored as Delta and has "
                           "expectations, which weir does not check on "
                           "Delta tables yet; check them in a view that "
                           "reads its source, or leave the format out.",
                           weir__kind_name(d->kind), d->display);
}

void weir__graph_validate_definitions(builder *b)
{
    for (size_t i = 0; i < b->g->n_datasets; i++) {
        const weir_gdataset *d = &b->g->datasets[i];
        check_clauses(b, d);
        check_delta(b, d);
        check_columns(b, d);
        check_expectations(b, d);
    }
}

/* ---- catalog and database names ------------------------------------------- */

/* A catalog becomes the file <storage>/<alias>.duckdb (store/storage.c):
 * why it cannot, or NULL. */
static const char *bad_catalog_file_name(const char *catalog)
{
    if (!*catalog)
        return "it is empty";
    if (strchr(catalog, '/') || strchr(catalog, '\\'))
        return "it holds a path separator";
    for (const char *c = catalog; *c; c++)
        if ((unsigned char)*c < 0x20)
            return "it holds a control character";
    if (strlen(catalog) > 200)
        return "it is longer than 200 bytes";
    return NULL;
}

/* Remember catalog under its file alias; when another catalog name has the
 * same file, return that name. */
static const char *same_file(weir_arena *a, weir_map *files,
                             const char *catalog, const char **alias_out)
{
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), catalog);
    *alias_out = weir__arena_strdup(a, alias);
    const char *prev = weir__map_get(files, alias);
    if (prev)
        return weir__str_ieq(prev, catalog) ? NULL : prev;
    if (*alias_out && weir__map_put(files, *alias_out, (void *)catalog))
        a->failed = true;
    return NULL;
}

void weir__graph_validate_names(builder *b)
{
    weir_graph *g = b->g;
    weir_map files = WEIR_MAP_INIT(false); /* alias -> first catalog name */
    const char *alias;
    if (g->default_catalog && !bad_catalog_file_name(g->default_catalog))
        same_file(&g->arena, &files, g->default_catalog, &alias);
    for (size_t i = 0; i < g->n_datasets; i++) {
        const weir_gdataset *d = &g->datasets[i];
        if (!d->catalog)
            continue; /* temporary views and sinks live in no catalog */
        const weir_origin *o = &d->def->origin;
        const weir_sql_pos *pos = &d->def->name.pos;
        if (weir__str_ieq(d->catalog, WEIR_SYSTEM_ALIAS)) {
            weir__graph_report(b, o, pos, "PIPELINE_RESERVED_CATALOG",
                               "Dataset %s cannot be defined: the catalog "
                               "name '%s' is reserved for weir's event log "
                               "and update list; choose another catalog.",
                               d->display, d->catalog);
            continue;
        }
        if (weir__str_ieq(d->database, "_weir"))
            weir__graph_report(b, o, pos, "PIPELINE_RESERVED_DATABASE",
                               "Dataset %s cannot be defined: the database "
                               "name '_weir' is reserved for weir's "
                               "checkpoints and file manifests in every "
                               "catalog; choose another database.",
                               d->display);
        const char *why = bad_catalog_file_name(d->catalog);
        if (why) {
            weir__graph_report(b, o, pos, "PIPELINE_INVALID_CATALOG_NAME",
                               "Dataset %s cannot be stored: its catalog "
                               "name '%s' cannot name a file in the storage "
                               "folder (%s).",
                               d->display, d->catalog, why);
            continue;
        }
        const char *other = same_file(&g->arena, &files, d->catalog, &alias);
        if (other)
            weir__graph_report(b, o, pos, "PIPELINE_CATALOG_NAME_CONFLICT",
                               "Dataset %s cannot be stored: catalogs '%s' "
                               "and '%s' would share the storage file "
                               "%s.duckdb. Rename one of them.",
                               d->display, other, d->catalog,
                               alias ? alias : "?");
    }
    weir__map_free(&files);
}

/* ---- validations -------------------------------------------------------- */

/* Confs through views. A view's plan is fused into its reader, so Spark
 * analyses the reader with the confs of every view it reads merged into
 * its own (the pipeline configuration, then the flow's SET or decorator
 * confs); a key two of them set differently fails the reader with
 * DUPLICATE_FLOW_SQL_CONF. A view passes on what it merged from the views
 * it reads, under its own name. */

/* One SET of a flow the reader's plan fuses, in the order Spark merges
 * them (seq). */
typedef struct conf_entry {
    const char *key, *value;
    const weir_gflow *from; /* the reader, or the view that passes it on */
    size_t seq;
} conf_entry;
typedef WEIR_VEC(conf_entry) conf_entries;

/* Every conf of f and of the views it reads; false when out of memory. */
static bool collect_confs(const weir_graph *g, const weir_gflow *f,
                          const weir_gflow *from, size_t depth,
                          conf_entries *out)
{
    if (depth > g->n_flows)
        return true; /* a cycle, reported on its own */
    for (size_t i = 0; i < f->n_conf; i++) {
        conf_entry e = { f->conf[i].key, f->conf[i].value, from, out->len };
        if (WEIR_VEC_PUSH(out, e))
            return false;
    }
    for (size_t i = 0; i < f->n_inputs; i++) {
        int di = f->inputs[i].dataset;
        if (di < 0)
            continue;
        const weir_gdataset *d = &g->datasets[di];
        if (!weir__is_view(d->kind) || !d->n_flows)
            continue;
        const weir_gflow *vf = &g->flows[d->flows[0]];
        if (!collect_confs(g, vf, depth ? from : vf, depth + 1, out))
            return false;
    }
    return true;
}

static int by_key_from_seq(const void *pa, const void *pb)
{
    const conf_entry *a = pa, *b = pb;
    int c = strcmp(a->key, b->key);
    if (c)
        return c;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Whether f reads a view (only then can two confs come from two flows). */
static bool reads_view(const weir_graph *g, const weir_gflow *f)
{
    for (size_t i = 0; i < f->n_inputs; i++) {
        int di = f->inputs[i].dataset;
        if (di >= 0 && weir__is_view(g->datasets[di].kind))
            return true;
    }
    return false;
}

/* Sorted by key, then by flow: a flow's last SET of a key is its value;
 * a key whose flows give different values clashes. Of the clashes, the
 * one Spark meets first is reported: the key whose earliest value comes
 * first, against the first different value. O(n log n) in the confs. */
static void check_view_confs(builder *b, const weir_gflow *f)
{
    if (!reads_view(b->g, f))
        return;
    conf_entries all = WEIR_VEC_INIT, won = WEIR_VEC_INIT;
    bool ok = collect_confs(b->g, f, f, 0, &all);
    if (ok && all.len)
        qsort(all.items, all.len, sizeof(*all.items), by_key_from_seq);
    conf_entry c1, c2; /* the clash to report, when found */
    bool found = false;
    for (size_t i = 0; ok && i < all.len;) {
        /* One key: its value per flow (the flow's last SET of it). */
        size_t j = i;
        won.len = 0;
        while (ok && j < all.len && !strcmp(all.items[j].key, all.items[i].key)) {
            size_t k = j;
            while (k + 1 < all.len && all.items[k + 1].from == all.items[j].from &&
                   !strcmp(all.items[k + 1].key, all.items[j].key))
                k++;
            ok = !WEIR_VEC_PUSH(&won, all.items[k]);
            j = k + 1;
        }
        const conf_entry *first = NULL, *other = NULL;
        for (size_t k = 0; k < won.len; k++)
            if (!first || won.items[k].seq < first->seq)
                first = &won.items[k];
        for (size_t k = 0; first && k < won.len; k++)
            if (strcmp(won.items[k].value, first->value) &&
                (!other || won.items[k].seq < other->seq))
                other = &won.items[k];
        if (other && (!found || first->seq < c1.seq)) {
            c1 = *first;
            c2 = *other;
            found = true;
        }
        i = j;
    }
    if (ok && found) {
        bool lo = strcmp(c1.value, c2.value) < 0; /* Spark sorts by value */
        const weir_gflow *f1 = lo ? c1.from : c2.from;
        const weir_gflow *f2 = lo ? c2.from : c1.from;
        weir__graph_report(b, &f->origin, NULL, "DUPLICATE_FLOW_SQL_CONF",
                           "Found duplicate sql conf for dataset '%s': '%s' "
                           "is defined by both '%s' and '%s'",
                           f->display, c1.key, f1->display, f2->display);
    }
    WEIR_VEC_FREE(&all);
    WEIR_VEC_FREE(&won);
}

/* ---- AUTO CDC flows ---------------------------------------------------------
 * What an AUTO CDC flow's clauses must be, whichever front end defined it
 * (docs/auto-cdc.md). Rules on columns need the source's schema and are
 * the engine's (engine/cdc.c). */

static void cdc_multipart(builder *b, const weir_gflow *f,
                          const weir_sql_name *names, size_t n)
{
    weir_graph *g = b->g;
    for (size_t i = 0; i < n; i++) {
        if (names[i].n <= 1)
            continue;
        weir_buf t = WEIR_BUF_INIT;
        for (size_t k = 0; k < names[i].n; k++)
            weir__buf_printf(&t, "%s%s", k ? "." : "", names[i].parts[k]);
        weir__graph_report(b, &f->origin, &names[i].pos,
                           "AUTOCDC_MULTIPART_COLUMN_IDENTIFIER",
                           "Expected a single column identifier in AUTO CDC "
                           "flow %s; got the multi-part identifier '%s'.",
                           weir__graph_quoted(&g->arena, f->display),
                           weir__buf_cstr(&t));
        weir__buf_free(&t);
    }
}

static void check_cdc(builder *b, const weir_gflow *f)
{
    weir_graph *g = b->g;
    const weir_gdataset *t = &g->datasets[f->target];
    const weir_sql_cdc *c = f->cdc;
    const char *fq = weir__graph_quoted(&g->arena, f->display);
    if (t->kind != WEIR_STREAMING_TABLE) {
        weir__graph_report(b, &f->origin, &c->pos, "AUTOCDC_INVALID_TARGET",
                           "AUTO CDC flow %s writes the %s %s; AUTO CDC flows "
                           "may only write streaming tables.",
                           fq, weir__kind_name(t->kind),
                           weir__graph_quoted(&g->arena, t->display));
        return;
    }
    if (t->n_expectations)
        weir__graph_report(b, &f->origin, &c->pos,
                           "UNSUPPORTED_FEATURE.AUTOCDC_EXPECTATIONS",
                           "AUTO CDC target %s declares expectations; weir "
                           "does not enforce them on AUTO CDC flows yet. "
                           "Declare them on the source instead.",
                           weir__graph_quoted(&g->arena, t->display));
    if (!f->streaming)
        weir__graph_report(b, &f->origin, &c->pos, "AUTOCDC_SOURCE_NOT_STREAMING",
                           "AUTO CDC source must be a streaming query: flow "
                           "%s reads its source as a batch. Read it with "
                           "FROM STREAM(source).",
                           fq);
    if (!c->n_keys)
        weir__graph_report(b, &f->origin, &c->keys_pos, "AUTOCDC_EMPTY_KEYS",
                           "AUTO CDC flow %s needs at least one key column "
                           "(KEYS (col, ...)).",
                           fq);
    if (!c->sequence_by)
        weir__graph_report(b, &f->origin, &c->pos, "AUTOCDC_MISSING_SEQUENCE_BY",
                           "AUTO CDC flow %s has no SEQUENCE BY: a sequencing "
                           "expression is required to order the changes of "
                           "each key.",
                           fq);
    cdc_multipart(b, f, c->keys, c->n_keys);
    cdc_multipart(b, f, c->columns.cols, c->columns.n);
    cdc_multipart(b, f, c->track_history.cols, c->track_history.n);
    if (c->track_history.set && c->scd_type != 2)
        weir__graph_report(b, &f->origin, &c->track_history.pos,
                           "AUTOCDC_TRACK_HISTORY_REQUIRES_SCD_TYPE_2",
                           "TRACK HISTORY requires STORED AS SCD TYPE 2 (flow "
                           "%s keeps SCD type 1).",
                           fq);
    if (c->truncate_when && c->scd_type == 2)
        weir__graph_report(b, &f->origin, &c->pos,
                           "AUTOCDC_TRUNCATE_REQUIRES_SCD_TYPE_1",
                           "APPLY AS TRUNCATE WHEN is supported only for SCD "
                           "type 1 (flow %s is STORED AS SCD TYPE 2).",
                           fq);
}

/* ---- operators of streaming queries (docs/streaming.md) ---------------- */

/* The view a STREAM reference of flow ctx names, for the analysis to look
 * into: its query is part of the reader's. */
static const weir_sql_query *stream_view(void *payload, const void *ctx,
                                         const weir_sql_relref *ref,
                                         const void **view_ctx)
{
    const weir_graph *g = payload;
    const weir_gflow *f = ctx;
    for (size_t i = 0; f && i < f->n_inputs; i++) {
        const weir_input *in = &f->inputs[i];
        if (!in->ref || in->ref->node != ref->node || in->dataset < 0)
            continue;
        const weir_gdataset *d = &g->datasets[in->dataset];
        if (!weir__is_view(d->kind) || !d->n_flows)
            return NULL;
        const weir_gflow *vf = &g->flows[d->flows[0]];
        *view_ctx = vf;
        return vf->query;
    }
    return NULL;
}

static void report_stream_op(builder *b, const weir_gflow *f,
                             const weir_sql_sop *op)
{
    weir_origin o = { op->src, op->pos, false };
    const char *fq = weir__graph_quoted(&b->g->arena, f->display);
    switch (op->kind) {
    case WEIR_SQL_SOP_AGGREGATE:
        if (!op->watermarked)
            weir__graph_report(b, &o, NULL,
                      "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
                      "Invalid streaming output mode: append. This output "
                      "mode is not supported for streaming aggregations "
                      "without watermark on streaming DataFrames/DataSets "
                      "(flow %s, %s). Aggregate in a "
                      "materialized view that reads the streaming table "
                      "instead.",
                      fq, op->what);
        else
            weir__graph_report(b, &o, NULL, "STREAMING_STATE_NOT_SUPPORTED",
                      "Flow %s aggregates a stream by event time (%s) in a "
                      "way weir keeps no state for yet: it keeps the open "
                      "groups of an aggregation over one relation (a stream, "
                      "a view or a subquery, not a join) grouped by a "
                      "window(), a session_window() or the event time "
                      "itself. Join in "
                      "a view the aggregation streams from, or aggregate in "
                      "a materialized view that reads the streaming table.",
                      fq, op->what);
        break;
    case WEIR_SQL_SOP_DEDUPLICATE:
    case WEIR_SQL_SOP_EXCEPT:
        weir__graph_report(b, &o, NULL, "STREAMING_STATE_NOT_SUPPORTED",
                  "Flow %s deduplicates a stream (%s): Spark keeps the keys "
                  "it has seen as state and drops a key that comes again in "
                  "a later update, and weir does not keep that state yet "
                  "(it would deduplicate within each update only). "
                  "Deduplicate in a materialized view that reads the "
                  "streaming table instead.",
                  fq, op->what);
        break;
    case WEIR_SQL_SOP_JOIN:
        weir__graph_report(b, &o, NULL, "STREAMING_STATE_NOT_SUPPORTED",
                  "Flow %s joins two streams (%s) in a way weir keeps no "
                  "state for yet: it keeps the rows of both sides of a join "
                  "(ON a condition, USING columns or NATURAL) of two "
                  "relations "
                  "(streams, views or subqueries, not joins themselves) "
                  "that a SELECT without GROUP BY or DISTINCT reads "
                  "directly. Join in a view the flow streams from, or in a "
                  "materialized view that reads both tables.",
                  fq, op->what);
        break;
    case WEIR_SQL_SOP_LIMIT:
        weir__graph_report(b, &o, NULL, "STREAMING_STATE_NOT_SUPPORTED",
                  "Flow %s limits a stream (LIMIT): Spark counts the rows "
                  "written across updates as state, and weir does not keep "
                  "that state yet (it would write up to the limit in every "
                  "update). Limit in a materialized view that reads the "
                  "streaming table instead.",
                  fq);
        break;
    case WEIR_SQL_SOP_WINDOW_FUNCTION:
        weir__graph_report(b, &o, NULL,
                  "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING",
                  "Window function is not supported in %s on streaming "
                  "DataFrames/Datasets (flow %s). Structured Streaming only "
                  "supports time-window aggregation using the WINDOW "
                  "function.",
                  op->what, fq);
        break;
    case WEIR_SQL_SOP_UNSUPPORTED:
        weir__graph_report(b, &o, NULL, "_LEGACY_ERROR_TEMP_3102",
                           "%s (flow %s).", op->what, fq);
        break;
    }
}

static bool is_stream_op_class(const char *cls)
{
    static const char *const classes[] = {
        "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
        "STREAMING_STATE_NOT_SUPPORTED",
        "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING", "_LEGACY_ERROR_TEMP_3102"
    };
    for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
        if (!strcmp(cls, classes[i]))
            return true;
    return false;
}

/* An operator of a view that two flows read is reported once. */
static bool stream_op_reported(const builder *b, const weir_sql_sop *op)
{
    weir_error at;
    memset(&at, 0, sizeof(at));
    if (!op->src)
        return false;
    weir__sql_error_at(&at, op->src, op->pos);
    for (size_t i = 0; i < b->diags->len; i++) {
        const weir_error *e = &b->diags->items[i];
        if (e->line == at.line && e->column == at.column &&
            !strcmp(e->path, at.path) && is_stream_op_class(e->error_class))
            return true;
    }
    return false;
}

size_t weir__graph_state_chain(const weir_sql_sop *ops, size_t n,
                               const weir_sql_state_plan **out, size_t cap)
{
    const weir_sql_state_plan *chain[2];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ops[i].plan)
            continue;
        if (k == 2)
            return 0;
        chain[k++] = ops[i].plan;
    }
    /* One operator, or an aggregation by event time over the output of a
     * deduplication, a join of two streams or another aggregation (Spark
     * 4.1 runs these in append mode): each reads the watermark its input
     * operator passes on (Spark's output watermark: a join's is lowered
     * by how far its range condition lets rows trail, the others pass
     * the flow's on as it is; engine/stateful.c). */
    if (k == 2 && (chain[1]->below != chain[0] ||
                   chain[1]->kind != WEIR_SQL_SOP_AGGREGATE ||
                   (chain[0]->kind != WEIR_SQL_SOP_DEDUPLICATE &&
                    chain[0]->kind != WEIR_SQL_SOP_JOIN &&
                    chain[0]->kind != WEIR_SQL_SOP_AGGREGATE)))
        return 0;
    for (size_t i = 0; i < k && i < cap; i++)
        out[i] = chain[i];
    return k;
}

/* Operators of a flow's query (with the views it streams from) that need
 * state across updates, or that Spark refuses on a stream. A view's
 * operators are reported where they are written, once. */
int weir__graph_stream_ops(const weir_graph *g, const weir_gflow *f,
                           weir_arena *arena, weir_sql_sop **out,
                           size_t *n_out)
{
    weir_sql_stream_resolver res = { stream_view, (void *)g, f };
    return weir__sql_stream_ops(out, n_out, arena, f->query, &res);
}

static void check_stream_ops(builder *b, const weir_gflow *f)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_sop *ops = NULL;
    size_t n = 0;
    if (weir__graph_stream_ops(b->g, f, &a, &ops, &n)) {
        b->rc = WEIR_ENOMEM;
        n = 0;
    }
    size_t planned = 0;
    for (size_t i = 0; i < n; i++)
        planned += ops[i].plan != NULL;
    bool chain_ok = weir__graph_state_chain(ops, n, NULL, 0) == planned;
    for (size_t i = 0; i < n; i++) {
        if ((ops[i].plan && chain_ok) || stream_op_reported(b, &ops[i]))
            continue;
        if (!ops[i].plan) {
            report_stream_op(b, f, &ops[i]);
            continue;
        }
        weir_origin o = { ops[i].src, ops[i].pos, false };
        weir__graph_report(b, &o, NULL, "STREAMING_STATE_NOT_SUPPORTED",
                           "Flow %s chains stateful operators (%s is one of "
                           "%zu): weir keeps the state of one operator per "
                           "flow, or of an aggregation by event time over a "
                           "deduplication, a join or an aggregation, yet. "
                           "Write each into a streaming table of its own, "
                           "read by the next.",
                           weir__graph_quoted(&b->g->arena, f->display),
                           ops[i].what, planned);
    }
    weir__arena_free(&a);
}

void weir__graph_validate_flow(builder *b, const weir_gflow *f)
{
    weir_graph *g = b->g;
    const weir_gdataset *t = &g->datasets[f->target];
    for (size_t i = 0; i < f->n_inputs; i++) {
        const weir_input *in = &f->inputs[i];
        if (in->dataset < 0)
            continue;
        const weir_gdataset *d = &g->datasets[in->dataset];
        const weir_sql_pos *pos = in->ref ? &in->ref->name.pos : NULL;
        if (t->kind == WEIR_PERSISTED_VIEW && d->kind == WEIR_TEMPORARY_VIEW)
            weir__graph_report(b, &f->origin, pos, "INVALID_TEMP_OBJ_REFERENCE",
                      "Cannot create the persistent object %s of the type "
                      "VIEW because it references to the temporary object %s "
                      "of the type VIEW. Please make the temporary object %s "
                      "persistent, or make the persistent object %s "
                      "temporary.",
                      weir__graph_quoted(&g->arena, t->display), weir__graph_quoted(&g->arena, d->display),
                      weir__graph_quoted(&g->arena, d->display), weir__graph_quoted(&g->arena, t->display));
        if (weir__is_view(d->kind) && d->n_flows) {
            bool view_streaming = g->flows[d->flows[0]].streaming;
            if (in->streaming && !view_streaming)
                weir__graph_report(b, &f->origin, pos, "INCOMPATIBLE_BATCH_VIEW_READ",
                          "View %s is a batch view and must be referenced "
                          "using SparkSession#read (in SQL: without STREAM). "
                          "This check can be disabled by setting Spark conf "
                          "pipelines.incompatibleViewCheck.enabled = false.",
                          weir__graph_quoted(&g->arena, d->display));
            else if (!in->streaming && view_streaming)
                weir__graph_report(b, &f->origin, pos, "INCOMPATIBLE_STREAMING_VIEW_READ",
                          "View %s is a streaming view and must be "
                          "referenced using SparkSession#readStream (in SQL: "
                          "STREAM %s). This check can be disabled by setting "
                          "Spark conf pipelines.incompatibleViewCheck.enabled "
                          "= false.",
                          weir__graph_quoted(&g->arena, d->display), d->name);
        }
        /* STREAM of a materialized view is allowed: each recomputation
         * reaches its streaming readers as new data (sources/table.c), or
         * is a change a Delta stream stops at (sources/delta.c). */
    }
    check_view_confs(b, f);
    if (weir__dataset_delta(t) && (f->cdc || f->once)) {
        weir__graph_report(b, &f->origin, NULL, DELTA_UNSUPPORTED,
                           "Flow %s is %s into the Delta table %s, which "
                           "weir does not write yet: Delta streaming "
                           "tables take streaming append flows.",
                           weir__graph_quoted(&g->arena, f->display),
                           f->cdc ? "an AUTO CDC flow" : "a once flow",
                           weir__graph_quoted(&g->arena, t->display));
        return;
    }
    if (f->cdc) {
        check_cdc(b, f);
        return;
    }
    const char *fq = weir__graph_quoted(&g->arena, f->display);
    if (f->once && t->kind != WEIR_STREAMING_TABLE) {
        /* A once flow appends a backfill; only a streaming table keeps
         * what was appended (a materialized view is recomputed, views and
         * sinks take their own query or streaming flows). */
        weir__graph_report(b, &f->origin, NULL, "INVALID_ONCE_FLOW_TARGET",
                           "Flow %s is a once flow into the %s %s; once "
                           "flows (backfills) may only write streaming "
                           "tables.",
                           fq, weir__kind_name(t->kind),
                           weir__graph_quoted(&g->arena, t->display));
        return;
    }
    if (f->once) {
        if (f->streaming)
            weir__graph_report(b, &f->origin, NULL,
                      "INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_ONCE_FLOW",
                      "Flow %s returns an invalid relation type. %s is an "
                      "append once-flow that is defined by a streaming "
                      "relation. Append once-flows may only be defined by or "
                      "return a batch relation.",
                      fq, fq);
        return;
    }
    if (f->def && f->def->import_checkpoint && t->kind != WEIR_STREAMING_TABLE &&
        t->kind != WEIR_SINK) {
        /* docs/import-checkpoint.md: what a Structured Streaming query
         * wrote continues in a table the pipeline appends to, or a sink. */
        weir__graph_report(b, &f->origin, NULL, "IMPORT_CHECKPOINT_NOT_SUPPORTED",
                           "Flow %s imports a checkpoint into the %s %s; "
                           "import_checkpoint is for streaming append flows "
                           "into a streaming table or a sink.",
                           fq, weir__kind_name(t->kind),
                           weir__graph_quoted(&g->arena, t->display));
        return;
    }
    if (t->kind == WEIR_STREAMING_TABLE && !f->streaming)
        weir__graph_report(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_STREAMING_TABLE",
                  "Flow %s returns an invalid relation type. Streaming tables "
                  "may only be defined by streaming relations, but the flow "
                  "%s attempts to write a batch relation to the streaming "
                  "table %s. Consider using the STREAM operator in Spark-SQL "
                  "to convert the batch relation into a streaming relation, "
                  "or populating the streaming table with an append "
                  "once-flow instead.",
                  fq, fq, weir__graph_quoted(&g->arena, t->display));
    else if (t->kind == WEIR_MATERIALIZED_VIEW && f->streaming)
        weir__graph_report(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_MATERIALIZED_VIEW",
                  "Flow %s returns an invalid relation type. Materialized "
                  "views may only be defined by a batch relation, but the "
                  "flow %s attempts to write a streaming relation to the "
                  "materialized view %s.",
                  fq, fq, weir__graph_quoted(&g->arena, t->display));
    else if (t->kind == WEIR_PERSISTED_VIEW && f->streaming)
        weir__graph_report(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.STREAMING_RELATION_FOR_PERSISTED_VIEW",
                  "Flow %s returns an invalid relation type. Persisted views "
                  "may only be defined by a batch relation, but the flow %s "
                  "attempts to write a streaming relation to the persisted "
                  "view %s.",
                  fq, fq, weir__graph_quoted(&g->arena, t->display));
    else if (t->kind == WEIR_SINK && !f->streaming)
        weir__graph_report(b, &f->origin, NULL,
                  "INVALID_FLOW_QUERY_TYPE.BATCH_RELATION_FOR_SINK",
                  "Flow %s returns an invalid relation type. Sinks may only "
                  "be written by streaming append flows, but the flow %s "
                  "attempts to write a batch relation to the sink %s. Use "
                  "the STREAM operator to read its source as a stream.",
                  fq, fq, weir__graph_quoted(&g->arena, t->display));
    if (f->streaming && t->kind != WEIR_TEMPORARY_VIEW)
        check_stream_ops(b, f);
}

void weir__graph_validate_datasets(builder *b)
{
    weir_graph *g = b->g;
    for (size_t i = 0; i < g->n_datasets; i++) {
        const weir_gdataset *d = &g->datasets[i];
        if (d->kind == WEIR_MATERIALIZED_VIEW || d->kind == WEIR_STREAMING_TABLE) {
            size_t batch = 0, regular = 0;
            for (size_t k = 0; k < d->n_flows; k++) {
                const weir_gflow *f = &g->flows[d->flows[k]];
                if (f->once)
                    continue;
                regular++;
                if (!f->streaming)
                    batch++;
            }
            if (regular > 1 && (batch || d->kind == WEIR_MATERIALIZED_VIEW)) {
                weir_buf q = WEIR_BUF_INIT;
                for (size_t k = 0; k < d->n_flows; k++) {
                    if (k)
                        weir__buf_puts(&q, ", ");
                    weir__buf_puts(&q, g->flows[d->flows[k]].display);
                }
                weir__graph_report(b, &d->def->origin, NULL,
                          "MATERIALIZED_VIEW_WITH_MULTIPLE_QUERIES",
                          "Invalid destination %s with multiple flows: %s.",
                          weir__graph_quoted(&g->arena, d->display), weir__buf_cstr(&q));
                weir__buf_free(&q);
            }
        }
        bool cdc = false;
        for (size_t k = 0; k < d->n_flows; k++)
            cdc |= g->flows[d->flows[k]].cdc != NULL;
        if (cdc && d->kind == WEIR_STREAMING_TABLE && d->n_flows > 1) {
            weir_buf q = WEIR_BUF_INIT;
            for (size_t k = 0; k < d->n_flows; k++)
                weir__buf_printf(&q, "%s%s", k ? ", " : "",
                                 g->flows[d->flows[k]].display);
            weir__graph_report(b, &d->def->origin, NULL,
                               "AUTOCDC_MULTIPLE_FLOWS_TO_TARGET",
                               "AUTO CDC target %s has %zu flows (%s); a table "
                               "written by an AUTO CDC flow takes that flow "
                               "only.",
                               weir__graph_quoted(&g->arena, d->display),
                               d->n_flows, weir__buf_cstr(&q));
            weir__buf_free(&q);
        }
        bool quarantine = false;
        for (size_t k = 0; k < d->n_expectations; k++)
            quarantine |= d->expectations[k].action ==
                          WEIR_SQL_VIOLATION_QUARANTINE;
        if (weir__is_view(d->kind) && d->n_flows > 1) {
            /* A view is its one query: further flows would be ignored. */
            weir_buf q = WEIR_BUF_INIT;
            for (size_t k = 0; k < d->n_flows; k++)
                weir__buf_printf(&q, "%s%s", k ? ", " : "",
                                 g->flows[d->flows[k]].display);
            weir__graph_report(b, &d->def->origin, NULL,
                               "MATERIALIZED_VIEW_WITH_MULTIPLE_QUERIES",
                               "Invalid destination %s with multiple flows: "
                               "%s. A view is defined by its own query only.",
                               weir__graph_quoted(&g->arena, d->display),
                               weir__buf_cstr(&q));
            weir__buf_free(&q);
        }
        if (quarantine && d->catalog && weir__is_table(d->kind)) {
            char name[800];
            snprintf(name, sizeof(name), "%s_quarantine", d->display);
            if (weir__graph_find_dataset(g, name) >= 0)
                weir__graph_report(b, &d->def->origin, NULL,
                          "PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT",
                          "The quarantine table of %s would be %s, which the "
                          "pipeline already defines.",
                          d->display, name);
        }
        if ((weir__is_table(d->kind) || weir__is_view(d->kind)) && d->n_flows == 0)
            weir__graph_report(b, &d->def->origin, NULL, "PIPELINE_DATASET_WITHOUT_FLOW",
                      "Pipeline dataset %s does not have any defined flows. "
                      "Please attach a query with the dataset's definition, "
                      "or explicitly define at least one flow that writes to "
                      "the dataset.",
                      weir__graph_quoted(&g->arena, d->display));
        if (weir__is_table(d->kind) && !d->reset_allowed) {
            /* Spark's best-effort INVALID_RESETTABLE_DEPENDENCY. */
            for (size_t k = 0; k < d->n_flows; k++) {
                const weir_gflow *f = &g->flows[d->flows[k]];
                for (size_t j = 0; f->streaming && j < f->n_inputs; j++) {
                    int u = f->inputs[j].dataset;
                    if (u < 0 || !f->inputs[j].streaming ||
                        !weir__is_table(g->datasets[u].kind) ||
                        !g->datasets[u].reset_allowed)
                        continue;
                    weir__graph_report(b, &d->def->origin, NULL,
                              "INVALID_RESETTABLE_DEPENDENCY",
                              "Tables %s are resettable but have a "
                              "non-resettable downstream dependency '%s'. "
                              "`reset` will fail as Spark Streaming does not "
                              "support deleted source data. You can either "
                              "remove the pipelines.reset.allowed=false "
                              "property from '%s' or add it to its upstream "
                              "dependencies.",
                              g->datasets[u].display, d->display, d->display);
                }
            }
        }
    }
}

