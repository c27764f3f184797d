/*
 * The schemas of file sources (_weir.file_schemas): per flow, source and
 * generation, every version of the schema a file source read with (the
 * first, inferred or given, then each evolution), so that later batches
 * read the files the same way (sources/files_schema.c decides them).
 * cp->flow names the flow; errors go to cp->err.
 */
#ifndef WEIR_STATE_FILE_SCHEMAS_H
#define WEIR_STATE_FILE_SCHEMAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/state.h"
#include "util/arena.h"

/* The latest stored schema of source in generation gen (gen < 0: in the
 * latest generation that has one): its columns (names and DuckDB types,
 * in arena a) and version, and *found; 0 and !*found when none is stored.
 * A stored schema that cannot be read is CORRUPT_CHECKPOINT. */
int weir__file_schema_read(const weir_checkpoint *cp, int64_t gen,
                           const char *source, weir_arena *a,
                           weir_db_column **cols, size_t *n,
                           int64_t *version, bool *found);

/* Store version `version` of source's schema in generation gen (in the
 * batch's transaction). */
int weir__file_schema_add(const weir_checkpoint *cp, int64_t gen,
                          const char *source, int64_t version,
                          const weir_db_column *cols, size_t n);

#endif
