/*
 * Refreshing a materialized view in its flow's open transaction: from the
 * rows appended to its inputs when its query and their history allow it,
 * else by recomputing it (see mv.c and docs/engine.md, "Incremental
 * refresh").
 */
#ifndef WEIR_ENGINE_MV_H
#define WEIR_ENGINE_MV_H

#include "engine/exec.h"

/* The table property and conf key that turn incremental refresh off for
 * a view (property, SET) or the pipeline (configuration). */
#define WEIR_MV_INCREMENTAL_KEY "pipelines.incremental"
/* The conf key (pipeline configuration or SET) of the input size below
 * which a view is recomputed rather than followed. */
#define WEIR_MV_MIN_ROWS_KEY "pipelines.incremental.minInputRows"

/* Refresh t, the target of x->f. Sets x->technique and
 * x->technique_reason, x->rows_written (rows the refresh wrote) and
 * x->no_new_data (nothing to do). Returns 0 or the code in x->err. */
int weir__mv_refresh(weir_flow_exec *x, const weir_gdataset *t);

/* The planning_information event of a refresh of t by x (x->technique
 * set): its details (the shape Databricks gives its planner's choice)
 * appended to details, its message to msg. */
void weir__mv_planning(weir_buf *details, weir_buf *msg,
                       const weir_flow_exec *x, const weir_gdataset *t);

#endif
