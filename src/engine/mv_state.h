/*
 * The hidden state of a materialized view refreshed by GROUP_AGGREGATE
 * whose avg() and count(DISTINCT x) columns cannot be merged from their
 * own values: the exact sum and the count of each average per group, and
 * the (group, value) pairs of each count(DISTINCT x) column, in tables
 * state/mv.h names and drops, written in the refresh's transaction with
 * the view and its checkpoint. The view keeps exactly its own columns;
 * only mv.c reads and writes the state (docs/engine.md, "Incremental
 * refresh").
 */
#ifndef WEIR_ENGINE_MV_STATE_H
#define WEIR_ENGINE_MV_STATE_H

#include "engine/exec.h"
#include "sql/sql.h"
#include "state/mv.h"

typedef struct weir_mv_state {
    const weir_gdataset *t;
    const weir_sql_incr *shape;
    bool any;                    /* the view keeps state */
    const weir_sql_query *query; /* the query of partial rows (see
                                    weir__sql_incr_state_query); NULL
                                    without averages */
    int *p, *s;                  /* per column: an average's argument is a
                                    DECIMAL(p,s) */
    const weir_sql_query **distinct; /* per column: the rows of a
                                        count(DISTINCT x)'s groups and
                                        values, else NULL */
    bool *keep;                  /* per column: that query has a FILTER's
                                    condition, "__weir_keep" */
} weir_mv_state;

/* Plan the state of t (its query's shape: shape, an AGGREGATE). *why_not
 * gets why t cannot be kept up to date (an average that is not of a
 * DECIMAL Spark averages exactly, distinct floating-point values), else
 * NULL. out and what it points to
 * live in arena. Returns 0 or the code in x->err. */
int weir__mv_state_plan(weir_mv_state *out, const char **why_not,
                        weir_arena *arena, weir_flow_exec *x,
                        const weir_gdataset *t, const weir_sql_incr *shape);

/* Query q of the view's flow (the query of partial rows, or a query of
 * distinct values), each table input reading its batch (none: the inputs
 * whole), into sql. */
int weir__mv_state_sql(const weir_sql_query *q, weir_flow_exec *x,
                       const weir_source_batch *batches, size_t n_batches,
                       weir_buf *sql);

/* After a recomputation of the view: the state from its inputs whole. */
int weir__mv_state_rebuild(const weir_mv_state *st, weir_flow_exec *x);

/* Does the state match the view (a row of sums and counts per row of the
 * view, view_rows; as many pairs as each count(DISTINCT x) counts)? */
int weir__mv_state_check(const weir_mv_state *st, weir_flow_exec *x,
                         int64_t view_rows, bool *ok);

/* Statements that put the (group, value) pairs of count(DISTINCT x)
 * column i that the rows of batches (a term of the change) add into the
 * temporary table "__weir_new_<i>" and into the state. */
int weir__mv_state_put_distinct(weir_buf *q, const weir_mv_state *st,
                                weir_flow_exec *x, size_t i,
                                const weir_source_batch *batches,
                                size_t n_batches);

/* The rows of table alias tab that a row of alias other matches: every
 * key of the shape equal, NULL matching NULL ("true" without keys). */
void weir__mv_state_put_match(weir_buf *q, const weir_mv_state *st,
                              const char *tab, const char *other);

/* Average column i merged, as columns of a SELECT over "__weir_delta"
 * (partial rows) LEFT JOIN the state AS "__weir_state": its sum and count
 * ("__weir_sum_<i>", "__weir_count_<i>"). */
void weir__mv_state_put_merged(weir_buf *q, const weir_mv_state *st, size_t i);

/* Average column i from the merged sum and count, AS its name. */
void weir__mv_state_put_avg(weir_buf *q, const weir_mv_state *st, size_t i);

#endif
