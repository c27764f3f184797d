/*
 * The hidden state of materialized views refreshed by GROUP_AGGREGATE
 * (docs/engine.md, "Incremental refresh"): per view, in the view's
 * catalog, a table of the exact sum and count of each average per group
 * (`_weir."mv_state <view>"`), and one table per count(DISTINCT x) column
 * i of the (group, value) pairs seen (`_weir."mv_state <view> #i"`).
 * Their rows are computed by relational statements over the view's query
 * (engine/mv_state.c, engine/mv.c), run in the refresh's transaction with
 * the view and its checkpoint; this header names the tables and owns
 * their lifecycle.
 */
#ifndef WEIR_STATE_MV_H
#define WEIR_STATE_MV_H

#include <stdbool.h>

#include "graph/graph.h"
#include "store/db.h"
#include "util/buf.h"

/* Append the state table of view v's averages (col < 0) or of its
 * count(DISTINCT x) column col, qualified. */
void weir__mv_state_table(weir_buf *q, const weir_gdataset *v, long col);

/* Does that table exist? */
int weir__mv_state_exists(weir_conn *c, const weir_gdataset *v, long col,
                          bool *out, weir_error *err);

/* Drop every state table of v, whatever its shape was. */
int weir__mv_state_drop_tables(weir_conn *c, const weir_gdataset *v,
                               weir_error *err);

#endif
