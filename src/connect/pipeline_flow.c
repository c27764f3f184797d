/*
 * DefineFlow in registration mode: a flow's query (its relation as Spark
 * SQL, plan.h) or an AUTO CDC flow's details (as the clauses of the SQL
 * form), weir's shim keys taken out of its confs (shim.c), then either a
 * dataset's implicit flow (registered with its output, or waiting for it)
 * or a standalone flow (weir_pipeline_define_flow).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/pipeline_internal.h"
#include "connect/plan.h"
#include "util/buf.h"
#include "util/str.h"

/* The flow's query as Spark SQL, or a diagnostic at the construct that
 * cannot be translated (its own call site when the plan knows it). */
static int flow_query(weir__creg *reg, const char *flow, const char *file,
                      unsigned line,
                      const Spark__Connect__PipelineCommand__DefineFlow *d,
                      char **out, weir__cstatus *st)
{
    *out = NULL;
    if (d->details_case !=
            SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_FLOW__DETAILS_RELATION_FLOW_DETAILS ||
        !d->relation_flow_details->_relation_case ||
        !d->relation_flow_details->relation)
        return weir__creg_diag(reg, st, WEIR_EINVAL, "INVALID_PIPELINE_DEFINITION", "42000",
                               file, line, "Flow '%s' has no query", flow);
    weir__plan_error pe;
    if (weir__plan_relation_sql(d->relation_flow_details->relation, out, &pe)) {
        bool at_origin = pe.origin.file[0] != '\0';
        return weir__creg_diag(reg, st, WEIR_ESQL,
                               pe.error_class[0] ? pe.error_class : "UNSUPPORTED_FEATURE",
                               "0A000", at_origin ? pe.origin.file : file,
                               at_origin ? pe.origin.line : line,
                               "the query of flow '%s' cannot be translated: %s", flow,
                               pe.message);
    }
    return 0;
}

/* Append one expression of an AUTO CDC flow as Spark SQL. */
static int cdc_expr(weir_buf *b, const Spark__Connect__Expression *e,
                    weir__plan_error *pe)
{
    char *sql = NULL;
    if (weir__plan_expression_sql(e, &sql, pe))
        return -1;
    weir__buf_puts(b, sql);
    free(sql);
    return 0;
}

static int cdc_list(weir_buf *b, const char *clause,
                    Spark__Connect__Expression *const *cols, size_t n,
                    weir__plan_error *pe)
{
    weir__buf_printf(b, " %s (", clause);
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        if (cdc_expr(b, cols[i], pe))
            return -1;
    }
    weir__buf_putc(b, ')');
    return 0;
}

/* create_auto_cdc_flow's details as the clauses of an AUTO CDC flow in
 * SQL (docs/auto-cdc.md), which weir_flow_options.auto_cdc takes. The
 * graph checks them like those of a SQL file. */
static int flow_cdc(weir__creg *reg, const char *flow, const char *file,
                    unsigned line,
                    const Spark__Connect__PipelineCommand__DefineFlow__AutoCdcFlowDetails *c,
                    char **out, weir__cstatus *st)
{
    *out = NULL;
    if (!c->_source_case || !c->source || !*c->source)
        return weir__creg_diag(reg, st, WEIR_EINVAL, "AUTOCDC_MISSING_SOURCE", "42000",
                               file, line, "AUTO CDC flow '%s' has no source", flow);
    if (c->n_column_list && c->n_except_column_list)
        return weir__creg_diag(reg, st, WEIR_EINVAL,
                               "AUTOCDC_BOTH_COLUMN_LIST_AND_EXCEPT_COLUMN_LIST", "42000",
                               file, line,
                               "AUTO CDC flow '%s' has both column_list and "
                               "except_column_list; give one of them",
                               flow);
    if (c->n_ignore_null_updates_column_list ||
        c->n_ignore_null_updates_except_column_list)
        return weir__creg_diag(reg, st, WEIR_EINVAL,
                               "UNSUPPORTED_FEATURE.AUTOCDC_IGNORE_NULL_UPDATES_COLUMNS",
                               "0A000", file, line,
                               "AUTO CDC flow '%s': ignore_null_updates column lists are "
                               "not supported",
                               flow);
    weir_buf b = WEIR_BUF_INIT;
    weir__plan_error pe;
    memset(&pe, 0, sizeof pe);
    weir__buf_puts(&b, "FROM STREAM(");
    weir__buf_puts(&b, c->source); /* a table name as Python wrote it */
    weir__buf_putc(&b, ')');
    int rc = cdc_list(&b, "KEYS", c->keys, c->n_keys, &pe);
    if (!rc && c->_apply_as_deletes_case && c->apply_as_deletes) {
        weir__buf_puts(&b, " APPLY AS DELETE WHEN ");
        rc = cdc_expr(&b, c->apply_as_deletes, &pe);
    }
    if (!rc && c->_apply_as_truncates_case && c->apply_as_truncates) {
        weir__buf_puts(&b, " APPLY AS TRUNCATE WHEN ");
        rc = cdc_expr(&b, c->apply_as_truncates, &pe);
    }
    if (!rc && c->_sequence_by_case && c->sequence_by) {
        weir__buf_puts(&b, " SEQUENCE BY ");
        rc = cdc_expr(&b, c->sequence_by, &pe);
    }
    if (!rc && c->n_column_list)
        rc = cdc_list(&b, "COLUMNS", c->column_list, c->n_column_list, &pe);
    if (!rc && c->n_except_column_list)
        rc = cdc_list(&b, "COLUMNS * EXCEPT", c->except_column_list,
                      c->n_except_column_list, &pe);
    if (!rc && (int)c->stored_as_scd_type > 1) /* later clients: SCD_TYPE_2 */
        weir__buf_printf(&b, " STORED AS SCD TYPE %d", (int)c->stored_as_scd_type);
    if (rc) {
        weir__buf_free(&b);
        return weir__creg_diag(reg, st, WEIR_ESQL,
                               pe.error_class[0] ? pe.error_class : "UNSUPPORTED_FEATURE",
                               "0A000", file, line,
                               "AUTO CDC flow '%s' cannot be translated: %s", flow,
                               pe.message);
    }
    *out = weir__buf_detach(&b);
    return *out ? 0 : weir__creg_oom(st);
}

int weir__creg_define_flow(weir__creg *reg,
                           const Spark__Connect__PipelineCommand__DefineFlow *d,
                           weir__cstatus *st)
{
    if (weir__creg_check_graph(reg, d->_dataflow_graph_id_case, d->dataflow_graph_id, st))
        return -1;
    const char *file;
    unsigned line;
    weir__creg_location(d->_source_code_location_case ? d->source_code_location : NULL,
                        &file, &line);
    const char *name = weir__creg_opt(d->_flow_name_case, d->flow_name);
    const char *target = weir__creg_opt(d->_target_dataset_name_case, d->target_dataset_name);
    if (!name || !*name || !target || !*target)
        return weir__creg_diag(reg, st, WEIR_EINVAL, "INVALID_PIPELINE_DEFINITION", "42000",
                               file, line, "a flow needs a name and a target");
    bool cdc = d->details_case ==
               SPARK__CONNECT__PIPELINE_COMMAND__DEFINE_FLOW__DETAILS_AUTO_CDC_FLOW_DETAILS;
    bool named_like_target = weir__str_ieq(name, target);
    /* An AUTO CDC flow named like its target is registered as a flow: the
     * graph makes it the target's own (create_streaming_table made the
     * target, without a query). */
    bool implicit = named_like_target && !cdc;
    if (!named_like_target && weir__creg_name_parts(name) > 1)
        return weir__creg_diag(reg, st, WEIR_EINVAL, "MULTIPART_FLOW_NAME_NOT_SUPPORTED",
                               "0A000", file, line, "Flow name '%s' must be a single part",
                               name);
    /* weir's shim keys come out of the confs (shim.c, docs/python.md). */
    weir__shim_flow sf;
    memset(&sf, 0, sizeof sf);
    kv_list conf = WEIR_VEC_INIT;
    for (size_t i = 0; i < d->n_sql_conf; i++) {
        char why[300];
        bool taken = false;
        if (weir__shim_take(&sf, d->sql_conf[i]->key, d->sql_conf[i]->value,
                            &taken, why, sizeof why)) {
            weir__shim_flow_free(&sf);
            weir__creg_kv_free(&conf);
            return weir__creg_diag(reg, st, WEIR_EINVAL, "INVALID_PIPELINE_DEFINITION",
                                   "42000", file, line, "Flow '%s': %s", name, why);
        }
        if (!taken && weir__creg_kv_put(&conf, d->sql_conf[i]->key, d->sql_conf[i]->value)) {
            weir__shim_flow_free(&sf);
            weir__creg_kv_free(&conf);
            return weir__creg_oom(st);
        }
    }
    bool once = (d->_once_case && d->once) || sf.once;
    int rc = 0;
    char *query = NULL;
    if (sf.import_checkpoint && (once || implicit)) {
        rc = weir__creg_diag(reg, st, WEIR_EINVAL, "IMPORT_CHECKPOINT_NOT_SUPPORTED",
                             "0A000", file, line,
                             "Flow '%s' cannot import a checkpoint: import_checkpoint is "
                             "supported only on streaming append flows (append_flow "
                             "without once=True)",
                             name);
        goto out;
    }
    if (once && implicit) {
        rc = weir__creg_diag(reg, st, WEIR_EINVAL, "DEFINE_FLOW_ONCE_OPTION_NOT_SUPPORTED",
                             "0A000", file, line,
                             "Flow '%s' is a dataset's own flow and cannot be a once flow",
                             name);
        goto out;
    }
    if (reg->n_definitions >= MAX_DEFINITIONS) {
        rc = weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                               "too many definitions");
        goto out;
    }
    char *cdc_text = NULL;
    if (cdc && (once || sf.import_checkpoint || sf.n_exps)) {
        rc = weir__creg_diag(reg, st, WEIR_EINVAL, "INVALID_PIPELINE_DEFINITION", "42000",
                             file, line,
                             "AUTO CDC flow '%s' cannot be a once flow, import a "
                             "checkpoint or carry expectations",
                             name);
        goto out;
    }
    rc = cdc ? flow_cdc(reg, name, file, line, d->auto_cdc_flow_details,
                        &cdc_text, st)
             : flow_query(reg, name, file, line, d, &query, st);
    if (rc)
        goto out;
    if (cdc)
        query = cdc_text;
    reg->n_definitions++;
    if (implicit) {
        output *o = weir__creg_find_output(reg, target);
        if (o && o->registered) {
            rc = weir__creg_diag(reg, st, WEIR_EGRAPH, "PIPELINE_DUPLICATE_IDENTIFIERS.FLOW",
                                 "42710", file, line,
                                 "Flow '%s' is defined twice (the dataset's own flow)", name);
            goto out;
        }
        if (weir__creg_find_waiting(reg, target) != (size_t)-1) {
            rc = weir__creg_diag(reg, st, WEIR_EGRAPH, "PIPELINE_DUPLICATE_IDENTIFIERS.FLOW",
                                 "42710", file, line, "Flow '%s' is defined twice", name);
            goto out;
        }
        implicit_flow *f = calloc(1, sizeof *f);
        if (!f) {
            rc = weir__creg_oom(st);
            goto out;
        }
        f->target = strdup(target);
        f->query = query;
        query = NULL;
        f->conf = conf;
        conf = (kv_list)WEIR_VEC_INIT;
        f->file = weir__creg_dup(file);
        f->line = line;
        f->exps = sf.exps;
        f->n_exps = sf.n_exps;
        sf.exps = NULL;
        sf.n_exps = 0;
        if (!f->target || (file && !f->file)) {
            weir__creg_implicit_free(f);
            rc = weir__creg_oom(st);
        } else if (o) {
            rc = weir__creg_register_output(reg, o, f, st);
            weir__creg_implicit_free(f);
        } else if (WEIR_VEC_PUSH(&reg->waiting, f)) {
            weir__creg_implicit_free(f);
            rc = weir__creg_oom(st);
        }
        goto out;
    }
    if (sf.n_exps) {
        /* weir's expectations belong to datasets: those written on an
         * append flow go to its target, while it waits for registration. */
        output *o = weir__creg_find_output(reg, target);
        if (!o || o->registered) {
            rc = weir__creg_diag(reg, st, WEIR_EINVAL, "EXPECTATIONS_NOT_SUPPORTED",
                                 "0A000", file, line,
                                 "Expectations on flow '%s' need its target '%s' to be a "
                                 "table created with create_streaming_table (weir keeps "
                                 "expectations on datasets); put them on the dataset "
                                 "instead",
                                 name, target);
            goto out;
        }
        if (weir__shim_exps_append(&o->exps, &o->n_exps, sf.exps, sf.n_exps)) {
            rc = weir__creg_oom(st);
            goto out;
        }
    }
    kv_list all = WEIR_VEC_INIT;
    if (weir__creg_merged_conf(reg, &conf, &all)) {
        weir__creg_kv_free(&all);
        rc = weir__creg_oom(st);
        goto out;
    }
    weir_flow_options fo = WEIR_FLOW_OPTIONS_INIT;
    fo.name = name;
    fo.target = target;
    fo.query = cdc ? NULL : query;
    fo.auto_cdc = cdc ? query : NULL;
    fo.once = once;
    fo.conf = all.items;
    fo.n_conf = all.len;
    fo.source_path = weir__creg_display_path(reg, file);
    fo.source_line = line;
    fo.import_checkpoint = sf.import_checkpoint;
    weir_error e;
    int wrc = weir_pipeline_define_flow(reg->pipeline, &fo, &e);
    weir__creg_kv_free(&all);
    if (wrc == WEIR_ENOMEM)
        rc = weir__creg_oom(st);
    else if (wrc) {
        char what[600];
        snprintf(what, sizeof what, "cannot register flow '%s'", name);
        rc = weir__creg_diag_weir(reg, st, &e, what, file, line);
    }
out:
    free(query);
    weir__creg_kv_free(&conf);
    weir__shim_flow_free(&sf);
    return rc;
}
