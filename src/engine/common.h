/*
 * Helpers shared by the engine's files (see common.c).
 */
#ifndef WEIR_ENGINE_COMMON_H
#define WEIR_ENGINE_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "state/checkpoint.h"
#include "store/storage.h"
#include "util/buf.h"

/* "alias"."db"."name" of a dataset. */
void weir__phys(weir_buf *b, const weir_gdataset *d);
/* A column's DuckDB type as the tables weir creates store it: the type,
 * and for BLOB its compression (zstd). */
void weir__column_type(weir_buf *b, const char *duck_type);
/* (col type [NOT NULL], ...), each type by weir__column_type. */
void weir__column_defs(weir_buf *b, const weir_schema *s);
/* "; COMMENT ON ..." statements for the table and its columns. */
void weir__comments(weir_buf *b, const weir_gdataset *d);

/* "; CREATE OR REPLACE VIEW" of a dataset stored as Delta (docs/delta.md):
 * its resolved columns, cast to their DuckDB types, read from the table's
 * latest version by DuckDB's delta extension. */
void weir__delta_view(weir_buf *b, weir_storage *st, const weir_gdataset *d);

/* The dataset's name as `weir run --full-refresh` takes it in a shell:
 * without the pipeline's default catalog (and database) where it is in
 * them; parts that are not plain identifiers in backticks, and then
 * the whole in single quotes. */
void weir__cli_name(weir_buf *b, const weir_graph *g, const weir_gdataset *d);

/* Does the flow stream from files, itself or through the views it reads?
 * (depth: 0; bounds the recursion through views) */
bool weir__flow_reads_files(const weir_graph *g, const weir_gflow *f, int depth);

#endif
