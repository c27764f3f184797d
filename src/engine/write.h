/*
 * Writing a batch into a table with the table's expectations enforced
 * (see write.c).
 */
#ifndef WEIR_ENGINE_WRITE_H
#define WEIR_ENGINE_WRITE_H

#include "engine/exec.h"

/* Write the rows of `sql` into t: append (INSERT BY NAME) or, with
 * replace, CREATE OR REPLACE t as them (materialized views). Expectations
 * of t are enforced; metrics are added to x->details; x->rows_written gets
 * the appended rows (the caller counts replaced tables). */
int weir__write_batch(weir_flow_exec *x, const weir_gdataset *t,
                      const char *sql, bool replace);

/* The quarantine companion table of t: <name>_quarantine. */
void weir__quarantine_ref(weir_buf *b, const weir_gdataset *d);
bool weir__has_quarantine(const weir_gdataset *d);

#endif
