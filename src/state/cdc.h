/*
 * AUTO CDC's hidden state (docs/auto-cdc.md): per target, tables in its
 * state catalog named `_weir."autocdc_<what>:<target>"` (what: "state",
 * each key's latest sequence and tombstone; "truncate", truncate
 * sequences; "log", SCD 2's change log). Their rows are computed by the
 * SCD statements (engine/cdc*.c) in the batch's transaction, and made
 * again by the first batch of a generation; this header names the tables
 * and reads their columns.
 */
#ifndef WEIR_STATE_CDC_H
#define WEIR_STATE_CDC_H

#include <stdbool.h>
#include <stddef.h>

#include "store/db.h"
#include "util/arena.h"
#include "util/buf.h"

/* Append the hidden table `what` of target (display name) in catalog,
 * qualified. */
void weir__autocdc_table(weir_buf *q, const char *catalog, const char *target,
                         const char *what);

/* Its columns (in arena a), and whether it exists. */
int weir__autocdc_table_columns(weir_conn *c, const char *catalog,
                                const char *target, const char *what,
                                bool *exists, weir_db_column **cols,
                                size_t *n, weir_arena *a, weir_error *err);

#endif
