/*
 * PipelineCommand handlers in registration mode: the definitions a
 * pyspark.pipelines client sends (graph, outputs, flows, SQL files) become
 * weir_pipeline_define_* calls on the bound pipeline.
 *
 * Spark sends a dataset's output (DefineOutput) and its implicit flow
 * (DefineFlow with flow name == target) separately, in any order, while
 * weir registers a dataset together with its query. So an output waits
 * here until its implicit flow arrives (then both are registered as one
 * dataset); outputs that never get one (create_streaming_table, sinks) are
 * registered without a query by weir__creg_flush, at the end of the
 * client's session. Standalone flows are registered when they arrive.
 *
 * Problems in the user's definitions are recorded as diagnostics with the
 * Python file:line and also answered to the client as a Spark error.
 *
 * This file: the registration state, copies, diagnostics, names,
 * registration into the pipeline, and the commands other than DefineFlow
 * (pipeline_flow.c; what both share: pipeline_internal.h).
 *
 * Owns: copies of the waiting definitions and the diagnostics.
 */
#include "connect/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/grpc.h"
#include "connect/pipeline_internal.h"
#include "connect/plan.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/str.h"
#include "util/vec.h"

#define MAX_KV 4096 /* pairs of one list a client can make the server keep */

/* ------------------------------------------------------------------------
 * Copies
 * ------------------------------------------------------------------------ */

char *weir__creg_dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

void weir__creg_kv_free(kv_list *l)
{
    for (size_t i = 0; i < l->len; i++) {
        free((char *)l->items[i].key);
        free((char *)l->items[i].value);
    }
    WEIR_VEC_FREE(l);
}

static void str_free(str_list *l)
{
    for (size_t i = 0; i < l->len; i++)
        free((char *)l->items[i]);
    WEIR_VEC_FREE(l);
}

/* Append key=value (replacing an earlier value of key). 0 or -1. */
int weir__creg_kv_put(kv_list *l, const char *key, const char *value)
{
    for (size_t i = 0; i < l->len; i++)
        if (strcmp(l->items[i].key, key) == 0) {
            char *v = strdup(value ? value : "");
            if (!v)
                return -1;
            free((char *)l->items[i].value);
            l->items[i].value = v;
            return 0;
        }
    if (l->len >= MAX_KV)
        return -1;
    weir_kv kv = { strdup(key), strdup(value ? value : "") };
    if (!kv.key || !kv.value || WEIR_VEC_PUSH(l, kv)) {
        free((char *)kv.key);
        free((char *)kv.value);
        return -1;
    }
    return 0;
}

static int str_push(str_list *l, const char *s)
{
    char *c = strdup(s ? s : "");
    if (!c || l->len >= MAX_KV || WEIR_VEC_PUSH(l, c)) {
        free(c);
        return -1;
    }
    return 0;
}

static void output_free(output *o)
{
    if (!o)
        return;
    free(o->name);
    free(o->comment);
    free(o->schema);
    free(o->format);
    weir__creg_kv_free(&o->properties);
    weir__creg_kv_free(&o->options);
    str_free(&o->partition_cols);
    str_free(&o->cluster_cols);
    free(o->file);
    weir__shim_exps_free(o->exps, o->n_exps);
    free(o);
}

void weir__creg_implicit_free(implicit_flow *f)
{
    if (!f)
        return;
    free(f->target);
    free(f->query);
    weir__creg_kv_free(&f->conf);
    free(f->file);
    weir__shim_exps_free(f->exps, f->n_exps);
    free(f);
}

weir__creg *weir__creg_new(weir_pipeline *pipeline)
{
    weir__creg *reg = calloc(1, sizeof *reg);
    if (reg)
        reg->pipeline = pipeline;
    return reg;
}

void weir__creg_free(weir__creg *reg)
{
    if (!reg)
        return;
    for (size_t i = 0; i < reg->outputs.len; i++)
        output_free(reg->outputs.items[i]);
    WEIR_VEC_FREE(&reg->outputs);
    for (size_t i = 0; i < reg->waiting.len; i++)
        weir__creg_implicit_free(reg->waiting.items[i]);
    WEIR_VEC_FREE(&reg->waiting);
    weir__creg_kv_free(&reg->graph_conf);
    weir__diags_free(&reg->diags);
    free(reg);
}

size_t weir__creg_diagnostics(weir__creg *reg, const weir_error **out)
{
    if (out)
        *out = reg->diags.items;
    return reg->diags.len;
}

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

int weir__creg_oom(weir__cstatus *st)
{
    return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                             "out of memory");
}

/* A Python file named as SQL files are: relative to the spec's folder
 * when it is below it (pyspark sends absolute paths). */
const char *weir__creg_display_path(const weir__creg *reg, const char *file)
{
    const char *spec = weir_pipeline_spec_path(reg->pipeline);
    const char *slash = spec ? strrchr(spec, '/') : NULL;
    if (!file || !slash)
        return file;
    size_t n = (size_t)(slash - spec);
    if (n && strncmp(file, spec, n) == 0 && file[n] == '/' && file[n + 1])
        return file + n + 1;
    return file;
}

int weir__creg_diag(weir__creg *reg, weir__cstatus *st, int code,
                    const char *error_class, const char *sql_state,
                    const char *file, unsigned line, const char *fmt, ...)
{
    weir_error e;
    va_list ap;
    va_start(ap, fmt);
    weir__error_vset(&e, code, error_class, __FILE__, __LINE__, fmt, ap);
    va_end(ap);
    file = weir__creg_display_path(reg, file);
    if (file && *file)
        weir__error_at(&e, file, line, 0);
    weir__diags_add(&reg->diags, &e);
    if (file && *file)
        return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, error_class, sql_state,
                                 "%s (%s:%u)", e.message, file, line);
    return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, error_class, sql_state,
                             "%s", e.message);
}

/* A weir_error from the public API, relocated to the Python definition. */
int weir__creg_diag_weir(weir__creg *reg, weir__cstatus *st, const weir_error *we,
                         const char *what, const char *file, unsigned line)
{
    const char *cls = we->error_class[0] ? we->error_class
                                         : "INVALID_PIPELINE_DEFINITION";
    return weir__creg_diag(reg, st, we->code ? we->code : WEIR_ERROR, cls, "42000", file,
                           line, "%s: %s", what, we->message);
}

/* ------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

/* Parts of a name, counting dots outside backticks. */
size_t weir__creg_name_parts(const char *s)
{
    size_t n = 1;
    bool quoted = false;
    for (; *s; s++) {
        if (*s == '`')
            quoted = !quoted;
        else if (*s == '.' && !quoted)
            n++;
    }
    return n;
}

output *weir__creg_find_output(weir__creg *reg, const char *name)
{
    for (size_t i = 0; i < reg->outputs.len; i++)
        if (weir__str_ieq(reg->outputs.items[i]->name, name))
            return reg->outputs.items[i];
    return NULL;
}

size_t weir__creg_find_waiting(weir__creg *reg, const char *target)
{
    for (size_t i = 0; i < reg->waiting.len; i++)
        if (weir__str_ieq(reg->waiting.items[i]->target, target))
            return i;
    return (size_t)-1;
}

static const char *kind_word(weir_dataset_kind k)
{
    switch (k) {
    case WEIR_STREAMING_TABLE: return "TABLE";
    case WEIR_MATERIALIZED_VIEW: return "MATERIALIZED_VIEW";
    case WEIR_TEMPORARY_VIEW: return "TEMPORARY_VIEW";
    case WEIR_SINK: return "SINK";
    default: return "VIEW";
    }
}

/* The pipeline's default catalog and database, read back through
 * weir_pipeline_read ("`cat`.`db`.`x`"). */
static bool pipeline_defaults(weir_pipeline *p, char *cat, size_t cat_size,
                              char *db, size_t db_size)
{
    const char *ref = NULL;
    if (weir_pipeline_read(p, "weir_probe", false, &ref, NULL) || !ref)
        return false;
    char *parts[2] = { cat, db };
    size_t sizes[2] = { cat_size, db_size };
    const char *s = ref;
    for (int i = 0; i < 2; i++) {
        if (*s++ != '`')
            return false;
        size_t n = 0;
        for (; *s && !(*s == '`' && s[1] != '`'); s++) {
            if (*s == '`')
                s++;
            if (n + 1 < sizes[i])
                parts[i][n++] = *s;
        }
        parts[i][n] = '\0';
        if (*s++ != '`' || *s++ != '.')
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------------
 * Registration into the pipeline
 * ------------------------------------------------------------------------ */

/* Flow confs: the graph's, then the flow's own (which win). */
int weir__creg_merged_conf(weir__creg *reg, const kv_list *own, kv_list *out)
{
    for (size_t i = 0; i < reg->graph_conf.len; i++)
        if (weir__creg_kv_put(out, reg->graph_conf.items[i].key, reg->graph_conf.items[i].value))
            return -1;
    for (size_t i = 0; own && i < own->len; i++)
        if (weir__creg_kv_put(out, own->items[i].key, own->items[i].value))
            return -1;
    return 0;
}

/* Register an output as a dataset, with its implicit flow when given. */
int weir__creg_register_output(weir__creg *reg, output *o, const implicit_flow *f,
                               weir__cstatus *st)
{
    o->registered = true; /* once, whatever the outcome */
    kv_list conf = WEIR_VEC_INIT;
    if (f && weir__creg_merged_conf(reg, &f->conf, &conf)) {
        weir__creg_kv_free(&conf);
        return weir__creg_oom(st);
    }
    weir_dataset_options d = WEIR_DATASET_OPTIONS_INIT;
    d.name = o->name;
    d.query = f ? f->query : NULL;
    d.comment = o->comment;
    d.schema = o->schema;
    d.format = o->format;
    d.properties = o->properties.items;
    d.n_properties = o->properties.len;
    d.partition_cols = o->partition_cols.items;
    d.n_partition_cols = o->partition_cols.len;
    d.cluster_cols = o->cluster_cols.items;
    d.n_cluster_cols = o->cluster_cols.len;
    d.options = o->options.items;
    d.n_options = o->options.len;
    /* Expectations (weir's shim) on the dataset's flows belong to it. */
    weir_expectation *exps = NULL;
    size_t n_exps = 0;
    if (weir__shim_exps_append(&exps, &n_exps, o->exps, o->n_exps) ||
        (f && weir__shim_exps_append(&exps, &n_exps, f->exps, f->n_exps))) {
        weir__shim_exps_free(exps, n_exps);
        weir__creg_kv_free(&conf);
        return weir__creg_oom(st);
    }
    d.expectations = exps;
    d.n_expectations = n_exps;
    /* Errors and events name the Python definition (the flow's when the
     * query came with one: that is where a bad query was written),
     * relative to the spec's folder as SQL files are. */
    d.source_path = weir__creg_display_path(reg, f && f->file ? f->file : o->file);
    d.source_line = f && f->file ? f->line : o->line;
    d.conf = conf.items;
    d.n_conf = conf.len;
    weir_error e;
    int rc = weir_pipeline_define_dataset(reg->pipeline, o->kind, &d, NULL, &e);
    weir__shim_exps_free(exps, n_exps);
    weir__creg_kv_free(&conf);
    if (rc == WEIR_ENOMEM)
        return weir__creg_oom(st);
    if (rc) {
        char what[600];
        snprintf(what, sizeof what, "cannot register %s '%s'", kind_word(o->kind),
                 o->name);
        return weir__creg_diag_weir(reg, st, &e, what, f ? f->file : o->file,
                                    f ? f->line : o->line);
    }
    return 0;
}

void weir__creg_flush(weir__creg *reg)
{
    weir__cstatus st;
    for (size_t i = 0; i < reg->outputs.len; i++) {
        output *o = reg->outputs.items[i];
        if (!o->registered)
            weir__creg_register_output(reg, o, NULL, &st);
    }
    for (size_t i = 0; i < reg->waiting.len; i++) {
        implicit_flow *f = reg->waiting.items[i];
        weir__creg_diag(reg, &st, WEIR_EGRAPH, "PIPELINE_FLOW_TARGET_NOT_DEFINED", "42000",
                        f->file, f->line,
                        "Flow '%s' writes to '%s', which is not defined in the pipeline",
                        f->target, f->target);
        weir__creg_implicit_free(f);
    }
    reg->waiting.len = 0;
}

/* ------------------------------------------------------------------------
 * Commands
 * ------------------------------------------------------------------------ */

void weir__creg_location(const Spark__Connect__SourceCodeLocation *loc,
                         const char **file, unsigned *line)
{
    *file = NULL;
    *line = 0;
    if (!loc)
        return;
    if (loc->_file_name_case && loc->file_name && *loc->file_name)
        *file = loc->file_name;
    if (loc->_line_number_case && loc->line_number > 0)
        *line = (unsigned)loc->line_number;
}

int weir__creg_check_graph(weir__creg *reg, int is_set, const char *id,
                           weir__cstatus *st)
{
    if (reg->has_graph && is_set && id && strcmp(id, reg->graph_id) == 0)
        return 0;
    return weir__cstatus_set(st, WEIR_GRPC_INTERNAL, "DATAFLOW_GRAPH_NOT_FOUND",
                             "42000",
                             "Dataflow graph with id %.64s could not be found",
                             is_set && id ? id : "(none)");
}

static int create_graph(weir__creg *reg,
                        const Spark__Connect__PipelineCommand__CreateDataflowGraph *c,
                        char graph_id[40], weir__cstatus *st)
{
    if (reg->has_graph)
        return weir__cstatus_set(
            st, WEIR_GRPC_FAILED_PRECONDITION,
            "UNSUPPORTED_FEATURE.CONNECT_SECOND_GRAPH", "0A000",
            "This weir endpoint registers one dataflow graph (%s) and it "
            "exists already.",
            reg->graph_id);
    const char *cat = weir__creg_opt(c->_default_catalog_case, c->default_catalog);
    const char *db = weir__creg_opt(c->_default_database_case, c->default_database);
    char pcat[256], pdb[256];
    if ((cat || db) &&
        pipeline_defaults(reg->pipeline, pcat, sizeof pcat, pdb, sizeof pdb) &&
        ((cat && *cat && strcmp(cat, pcat) != 0) ||
         (db && *db && strcmp(db, pdb) != 0)))
        return weir__cstatus_set(
            st, WEIR_GRPC_FAILED_PRECONDITION,
            "CONNECT_GRAPH_DEFAULTS_MISMATCH", "42000",
            "The dataflow graph asks for default catalog '%s' and database "
            "'%s', but the pipeline weir registers into uses '%s' and '%s'.",
            cat ? cat : pcat, db ? db : pdb, pcat, pdb);
    for (size_t i = 0; i < c->n_sql_conf; i++)
        if (weir__creg_kv_put(&reg->graph_conf, c->sql_conf[i]->key, c->sql_conf[i]->value))
            return weir__creg_oom(st);
    weir__uuid(reg->graph_id);
    reg->has_graph = true;
    snprintf(graph_id, 40, "%s", reg->graph_id);
    return 0;
}

/* Fill o from TableDetails / SinkDetails. */
static int output_details(weir__creg *reg, output *o,
                          const Spark__Connect__PipelineCommand__DefineOutput *d,
                          weir__cstatus *st)
{
    if (d->details_case ==
        SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__DETAILS_TABLE_DETAILS) {
        const Spark__Connect__PipelineCommand__DefineOutput__TableDetails *t =
            d->table_details;
        for (size_t i = 0; i < t->n_table_properties; i++)
            if (weir__creg_kv_put(&o->properties, t->table_properties[i]->key,
                                  t->table_properties[i]->value))
                return weir__creg_oom(st);
        for (size_t i = 0; i < t->n_partition_cols; i++)
            if (str_push(&o->partition_cols, t->partition_cols[i]))
                return weir__creg_oom(st);
        for (size_t i = 0; i < t->n_clustering_columns; i++)
            if (str_push(&o->cluster_cols, t->clustering_columns[i]))
                return weir__creg_oom(st);
        if (t->_format_case && t->format && *t->format &&
            !(o->format = strdup(t->format)))
            return weir__creg_oom(st);
        if (t->schema_case ==
                SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__TABLE_DETAILS__SCHEMA_SCHEMA_STRING &&
            t->schema_string && *t->schema_string) {
            if (!(o->schema = strdup(t->schema_string)))
                return weir__creg_oom(st);
        } else if (t->schema_case ==
                   SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__TABLE_DETAILS__SCHEMA_SCHEMA_DATA_TYPE) {
            weir__plan_error pe;
            if (weir__plan_datatype_ddl(t->schema_data_type, 1, &o->schema, &pe))
                return weir__creg_diag(reg, st, WEIR_EINVAL,
                                       pe.error_class[0] ? pe.error_class
                                              : "INVALID_SCHEMA",
                                       "42000", o->file, o->line,
                                       "the schema of '%s' cannot be used: %s", o->name,
                                       pe.message);
        }
    } else if (d->details_case ==
               SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__DETAILS_SINK_DETAILS) {
        const Spark__Connect__PipelineCommand__DefineOutput__SinkDetails *s =
            d->sink_details;
        if (s->_format_case && s->format && *s->format &&
            !(o->format = strdup(s->format)))
            return weir__creg_oom(st);
        for (size_t i = 0; i < s->n_options; i++)
            if (weir__creg_kv_put(&o->options, s->options[i]->key, s->options[i]->value))
                return weir__creg_oom(st);
    } else if (d->details_case ==
               SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_OUTPUT__DETAILS_EXTENSION) {
        return weir__creg_diag(reg, st, WEIR_EINVAL, "UNSUPPORTED_FEATURE.CONNECT_EXTENSION",
                               "0A000", o->file, o->line,
                               "output '%s' uses a details extension weir does not know",
                               o->name);
    }
    if (o->kind == WEIR_SINK && !o->format)
        return weir__creg_diag(reg, st, WEIR_EINVAL, "INVALID_SINK_FORMAT", "42000",
                               o->file, o->line, "sink '%s' needs a format", o->name);
    return 0;
}

static int define_output(weir__creg *reg,
                         const Spark__Connect__PipelineCommand__DefineOutput *d,
                         weir__cstatus *st)
{
    if (weir__creg_check_graph(reg, d->_dataflow_graph_id_case, d->dataflow_graph_id, st))
        return -1;
    const char *file;
    unsigned line;
    weir__creg_location(d->_source_code_location_case ? d->source_code_location : NULL,
                        &file, &line);
    const char *name = weir__creg_opt(d->_output_name_case, d->output_name);
    if (!name || !*name)
        return weir__creg_diag(reg, st, WEIR_EINVAL, "INVALID_PIPELINE_DEFINITION", "42000",
                               file, line, "an output needs a name");
    weir_dataset_kind kind;
    switch (d->_output_type_case ? d->output_type : 0) {
    case SPARK__CONNECT__OUTPUT_TYPE__TABLE: kind = WEIR_STREAMING_TABLE; break;
    case SPARK__CONNECT__OUTPUT_TYPE__MATERIALIZED_VIEW:
        kind = WEIR_MATERIALIZED_VIEW;
        break;
    case SPARK__CONNECT__OUTPUT_TYPE__TEMPORARY_VIEW: kind = WEIR_TEMPORARY_VIEW; break;
    case SPARK__CONNECT__OUTPUT_TYPE__SINK: kind = WEIR_SINK; break;
    default:
        return weir__creg_diag(reg, st, WEIR_EINVAL, "UNSUPPORTED_PIPELINES_DATASET_TYPE",
                               "0A000", file, line, "output '%s' has an unknown type %d",
                               name, d->_output_type_case ? (int)d->output_type : 0);
    }
    if (kind == WEIR_TEMPORARY_VIEW && weir__creg_name_parts(name) > 1)
        return weir__creg_diag(reg, st, WEIR_EINVAL,
                               "MULTIPART_TEMPORARY_VIEW_NAME_NOT_SUPPORTED", "0A000", file,
                               line, "Temporary view name '%s' must be a single part", name);
    if (kind == WEIR_SINK && weir__creg_name_parts(name) > 1)
        return weir__creg_diag(reg, st, WEIR_EINVAL, "MULTIPART_SINK_NAME_NOT_SUPPORTED",
                               "0A000", file, line, "Sink name '%s' must be a single part",
                               name);
    const char *ref;
    weir_error e;
    if (weir_pipeline_read(reg->pipeline, name, false, &ref, &e))
        return weir__creg_diag_weir(reg, st, &e, "invalid output name", file, line);
    output *prev = weir__creg_find_output(reg, name);
    if (prev)
        return weir__creg_diag(reg, st, WEIR_EGRAPH, "PIPELINE_DUPLICATE_IDENTIFIERS.OUTPUT",
                               "42710", file, line,
                               "Output '%s' is defined twice (as %s, first at %s:%u, and as %s)",
                               name, kind_word(prev->kind), prev->file ? prev->file : "?",
                               prev->line, kind_word(kind));
    if (reg->n_definitions >= MAX_DEFINITIONS)
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "too many definitions");
    output *o = calloc(1, sizeof *o);
    if (!o)
        return weir__creg_oom(st);
    o->kind = kind;
    o->name = strdup(name);
    o->file = weir__creg_dup(file);
    o->line = line;
    const char *comment = weir__creg_opt(d->_comment_case, d->comment);
    if (comment)
        o->comment = strdup(comment);
    if (!o->name || (file && !o->file) || (comment && !o->comment)) {
        output_free(o);
        return weir__creg_oom(st);
    }
    int rc = output_details(reg, o, d, st);
    if (!rc && WEIR_VEC_PUSH(&reg->outputs, o))
        rc = weir__creg_oom(st);
    if (rc) {
        output_free(o);
        return rc;
    }
    reg->n_definitions++;
    size_t w = weir__creg_find_waiting(reg, name);
    if (w != (size_t)-1) {
        implicit_flow *f = reg->waiting.items[w];
        reg->waiting.items[w] = reg->waiting.items[--reg->waiting.len];
        rc = weir__creg_register_output(reg, o, f, st);
        weir__creg_implicit_free(f);
    }
    return rc;
}

static int define_sql(weir__creg *reg,
                      const Spark__Connect__PipelineCommand__DefineSqlGraphElements *d,
                      weir__cstatus *st)
{
    if (weir__creg_check_graph(reg, d->_dataflow_graph_id_case, d->dataflow_graph_id, st))
        return -1;
    const char *path = weir__creg_opt(d->_sql_file_path_case, d->sql_file_path);
    const char *text = weir__creg_opt(d->_sql_text_case, d->sql_text);
    if (!text)
        return weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT,
                                 "INVALID_PIPELINE_DEFINITION", "42000",
                                 "SQL file %s comes without its text",
                                 path ? path : "(unnamed)");
    weir_error e;
    int rc = weir_pipeline_define_sql(reg->pipeline, text, path, &e);
    if (rc == WEIR_ENOMEM)
        return weir__creg_oom(st);
    if (!rc)
        return 0;
    /* Keep every problem: the pipeline's own list lasts one call only. */
    const weir_error *list = NULL;
    size_t n = weir_pipeline_diagnostics(reg->pipeline, &list);
    if (!n) {
        list = &e;
        n = 1;
    }
    for (size_t i = 0; i < n; i++)
        weir__diags_add(&reg->diags, &list[i]);
    const weir_error *first = &list[0];
    return weir__cstatus_set(st, WEIR_GRPC_INTERNAL,
                             first->error_class[0] ? first->error_class
                                                   : "PARSE_SYNTAX_ERROR",
                             "42000", "%s:%u:%u: %s", first->path, first->line,
                             first->column, first->message);
}

int weir__creg_unsupported(const Spark__Connect__PipelineCommand *cmd,
                           weir__cstatus *st)
{
    return weir__cstatus_set(st, WEIR_GRPC_UNIMPLEMENTED,
                             "UNSUPPORTED_FEATURE.CONNECT_PIPELINE_COMMAND",
                             "0A000", "Pipeline command %d is not supported by weir.",
                             cmd ? (int)cmd->command_type_case : 0);
}

int weir__creg_command(weir__creg *reg, const Spark__Connect__PipelineCommand *cmd,
                       const weir__cemit *emit, char graph_id[40],
                       weir__cstatus *st)
{
    (void)emit; /* start_run streams events in serving mode (later) */
    graph_id[0] = '\0';
    switch (cmd ? cmd->command_type_case : 0) {
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_CREATE_DATAFLOW_GRAPH:
        return create_graph(reg, cmd->create_dataflow_graph, graph_id, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_OUTPUT:
        return define_output(reg, cmd->define_output, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_FLOW:
        return weir__creg_define_flow(reg, cmd->define_flow, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DEFINE_SQL_GRAPH_ELEMENTS:
        return define_sql(reg, cmd->define_sql_graph_elements, st);
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_START_RUN: {
        const Spark__Connect__PipelineCommand__StartRun *r = cmd->start_run;
        if (weir__creg_check_graph(reg, r->_dataflow_graph_id_case, r->dataflow_graph_id, st))
            return -1;
        weir__creg_flush(reg);
        return weir__cstatus_set(
            st, WEIR_GRPC_FAILED_PRECONDITION,
            "UNSUPPORTED_FEATURE.CONNECT_START_RUN", "0A000",
            "This weir endpoint only registers the pipeline's definitions; "
            "weir itself validates and runs it (weir run / weir dry-run).");
    }
    case SPARK__CONNECT__PIPELINE_COMMAND__COMMAND_TYPE_DROP_DATAFLOW_GRAPH:
        return weir__cstatus_set(
            st, WEIR_GRPC_FAILED_PRECONDITION,
            "UNSUPPORTED_FEATURE.CONNECT_DROP_GRAPH", "0A000",
            "A graph being registered into a weir pipeline cannot be dropped.");
    default:
        return weir__creg_unsupported(cmd, st);
    }
}
