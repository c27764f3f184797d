/*
 * weir's state in a pipeline's storage: the `_weir` schema of every
 * catalog file (docs/storage.md, "weir's own tables"). This module is its
 * one owner: the schema's DDL, every read and write of its tables, which
 * catalog holds the state of a flow, and how its tables are named. No
 * other module names a `_weir` table in SQL; the rest of weir speaks the
 * domain through one header per concern:
 *
 *   state/checkpoint.h    a flow's progress: checkpoint rows, flow_state,
 *                         the file manifest, Kafka offsets, what streaming
 *                         reads of tables consumed; full refresh,
 *                         relocation, integrity checks
 *   state/tables.h        what weir recorded of the pipeline's tables
 *   state/sink.h          sinks' batch logs and the catalog's state id
 *   state/file_schemas.h  the schemas of file sources
 *   state/mv.h            materialized views' hidden aggregate state
 *   state/cdc.h           AUTO CDC's hidden state tables
 *   state/operator.h      stateful streaming operators: watermarks, and
 *                         the hidden tables of their keys, groups and
 *                         join sides
 *
 * Conventions every header follows:
 * - A flow's state is addressed by a weir_checkpoint (below): the
 *   connection of the transaction the calls belong to, the state catalog
 *   of the flow's target, the flow and target names. A write runs on that
 *   connection inside the caller's open transaction, so a batch's rows,
 *   its source positions and its state commit together (one DuckDB
 *   transaction on the target's catalog file); the caller begins and
 *   commits (weir__storage_commit).
 * - A flow's rows carry its generation: a full refresh opens a new one
 *   (weir__checkpoint_put_reset, which also clears its flow_state row)
 *   and readers ask for the current generation's rows, so nothing else
 *   needs resetting; earlier generations' rows stay behind. Hidden state
 *   tables (mv.h, cdc.h) are made again by a generation's first batch.
 * - Functions that take a weir_buf to append to (weir__*_put*) build SQL
 *   for a caller that runs several statements as one script; the others
 *   run their statements and return 0 or a WEIR_E* code, the error set.
 *
 * New state (stateful operators, watermarks, Delta tables, database
 * cursors) is one more file here with its header: reads and writes over
 * a weir_checkpoint and a generation, in the batch's transaction, and
 * either fixed tables keyed by (flow, generation, ...) added to the DDL
 * in catalog.c, or tables made at run time with the columns of their
 * keys, named by weir__state_hidden_table (state/internal.h) as cdc.c
 * names AUTO CDC's.
 */
#ifndef WEIR_STATE_STATE_H
#define WEIR_STATE_STATE_H

#include "graph/graph.h"
#include "store/storage.h"
#include "util/error.h"

/* The catalog whose _weir schema keeps the state of flows into t: t's own
 * (sinks: the pipeline's default catalog). Borrowed from g. */
const char *weir__state_catalog(const weir_graph *g, const weir_gdataset *t);

/* The _weir schema, for weir__storage_open: what every catalog file gets
 * when attached read-write. Static. */
const weir_catalog_schema *weir__state_schema(void);

/* One flow's state in its target's state catalog (all borrowed). */
typedef struct weir_checkpoint {
    weir_conn *conn;      /* the transaction's connection */
    const char *catalog;  /* weir__state_catalog() of the target */
    const char *flow;     /* the flow's display name */
    const char *target;   /* the target's display name */
    const char *update_id;
    weir_error *err;      /* receives errors of every call taking it */
} weir_checkpoint;

/* A query of one text value that changes when anything in the _weir
 * schemas of the catalogs attached to c changes (a table created, dropped
 * or altered, a row added, removed or changed), malloc'd in *out: what
 * `weir query` compares before and after a statement that writes. The
 * tables are listed now; one made later changes the listing part. */
int weir__state_print_sql(weir_conn *c, char **out, weir_error *err);

#endif
