/*
 * AUTO CDC flows (docs/auto-cdc.md): the target schema an AUTO CDC flow
 * gives its streaming table, and applying one batch of changes to it, SCD
 * type 1 (the latest row per key) or type 2 (each key's history), in the
 * batch's transaction. The state that orders changes (each key's latest
 * sequence and tombstones for SCD 1, the change log for SCD 2) lives in
 * the catalog's _weir schema, so the target holds only its own columns.
 */
#ifndef WEIR_ENGINE_CDC_H
#define WEIR_ENGINE_CDC_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/error.h"

/* The SCD 2 validity columns a target gets, typed like SEQUENCE BY. */
#define WEIR_CDC_START_AT "__START_AT"
#define WEIR_CDC_END_AT "__END_AT"

/*
 * The schema f's target gets from the schema of f's source (src; src_sql
 * the source query as DuckDB SQL, used to type the expressions on conn):
 * the chosen columns (keys always kept), then __START_AT / __END_AT for
 * SCD 2. Column errors (AUTOCDC_COLUMNS_NOT_FOUND_IN_SCHEMA,
 * AUTOCDC_RESERVED_COLUMN_NAME_PREFIX_CONFLICT, expressions that do not
 * bind) are returned in err at their location. out lives in a.
 */
int weir__cdc_target_schema(weir_schema *out, weir_arena *a, weir_conn *conn,
                            const weir_gflow *f, const weir_schema *src,
                            const char *src_sql, weir_error *err);

typedef struct weir_cdc_metrics {
    int64_t upserted; /* changes applied as inserts or updates */
    int64_t deleted;  /* SCD 1: rows deleted (deletes, truncates); SCD 2:
                         deletes applied */
    int64_t ignored;  /* changes older than what was applied for the key
                         (SCD 1) or repeated (same key and sequence) */
} weir_cdc_metrics;

/*
 * Apply the changes src_sql (DuckDB SQL: the batch of f's source) yields
 * to t, whose columns are schema (weir__cdc_target_schema of the batch),
 * inside the transaction open on conn. fresh: the first batch of a
 * checkpoint generation (the target was just created or reset): the
 * hidden state starts empty. Metrics are added to m. A NULL sequence or
 * key fails the batch (AUTOCDC_MICROBATCH_VALIDATION.*).
 */
int weir__cdc_apply(weir_conn *conn, const weir_graph *g, const weir_gflow *f,
                    const weir_gdataset *t, const weir_schema *schema,
                    const char *src_sql, bool fresh, weir_cdc_metrics *m,
                    weir_error *err);

#endif
