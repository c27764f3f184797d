/*
 * Private to src/state: naming the tables of the _weir schema and small
 * helpers its files share. Nothing outside src/state includes this.
 */
#ifndef WEIR_STATE_INTERNAL_H
#define WEIR_STATE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "state/state.h"
#include "store/db.h"
#include "util/buf.h"

/* Append "alias"._weir.<table> of a catalog (table as given: a plain name,
 * or a quoted identifier). */
void weir__state_table(weir_buf *b, const char *catalog, const char *table);
/* Append "alias"._weir."<name>": a hidden state table made at run time,
 * its name quoted. */
void weir__state_hidden_table(weir_buf *b, const char *catalog,
                              const char *name);
/* Append " WHERE target = '..' AND flow = '..'" of cp's flow. */
void weir__state_where_flow(weir_buf *b, const weir_checkpoint *cp);
/* Append " WHERE flow = '..' AND generation = <gen> AND source = '..'":
 * what one source of cp's flow recorded in a generation, the key of the
 * tables of per-source records. */
void weir__state_where_source(weir_buf *b, const weir_checkpoint *cp,
                              int64_t gen, const char *source);
/* Append "'<flow>', <gen>, '<source>'": that key as a row's first
 * values. */
void weir__state_put_key(weir_buf *b, const weir_checkpoint *cp, int64_t gen,
                         const char *source);
/* Cell (row, col) of r as an integer (NULL: 0). */
int64_t weir__state_cell_i64(const weir_rows *r, size_t row, size_t col);

#endif
