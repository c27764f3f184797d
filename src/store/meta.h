/*
 * Naming weir's metadata tables ("alias"._weir.<table> of a catalog) and
 * running statements built in a weir_buf (an out-of-memory buffer is an
 * error, not a statement). Shared by the engine and the sources.
 */
#ifndef WEIR_STORE_META_H
#define WEIR_STORE_META_H

#include <stdbool.h>
#include <stdint.h>

#include "store/db.h"
#include "util/buf.h"
#include "util/error.h"

/* "alias"._weir.<table> of a catalog. */
void weir__meta_table(weir_buf *b, const char *catalog, const char *table);

int weir__exec_buf(weir_conn *c, weir_buf *sql, weir_error *err);
int weir__query_buf(weir_conn *c, weir_buf *sql, weir_rows **out,
                    weir_error *err);
int weir__scalar_buf(weir_conn *c, weir_buf *sql, int64_t *out, bool *null,
                     weir_error *err);

#endif
