/*
 * Private to the apply of an AUTO CDC batch (cdc.c, cdc_scd1.c,
 * cdc_scd2.c): the state of one apply, the temporary tables of the flow's
 * connection it works in, and the statement pieces they share. Statements
 * are built in r->q; the hidden tables live in the target's state catalog
 * (state/cdc.h). Errors go to r->err.
 */
#ifndef WEIR_ENGINE_CDC_APPLY_H
#define WEIR_ENGINE_CDC_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/cdc.h"
#include "store/db.h"
#include "util/arena.h"
#include "util/buf.h"

/* Temporary tables: the staged batch, SCD 1's rows to apply, SCD 2's new
 * changes, touched keys and their open versions. */
#define CDC_BATCH "__weir_cdc_batch"
#define CDC_APPLY "__weir_cdc_apply"
#define CDC_NEW "__weir_cdc_new"
#define CDC_WIN "__weir_cdc_win"
#define CDC_OPEN "__weir_cdc_open"

typedef struct cdc_run {
    weir_conn *conn;
    const weir_gflow *f;
    const weir_gdataset *t;
    const weir_sql_cdc *c;
    const weir_schema *schema; /* the target's columns */
    const char *cat; /* the target's state catalog */
    const char **data; /* the target's change columns (no __START_AT..) */
    size_t n_data;
    const char **keys; /* the target's spelling of the keys */
    size_t n_keys;
    const char **values; /* data but the keys */
    size_t n_values;
    weir_error *err;
    weir_buf q;
    weir_arena arena; /* the apply's: state_cols */
    bool state_exists; /* the state table before the batch (not fresh) */
    const weir_db_column *state_cols;
    size_t n_state_cols;
    int64_t n_trunc; /* the batch's truncates (stage) */
    bool truncated;  /* a truncate is recorded: older changes are late */
} cdc_run;

/* Out of memory, in err: WEIR_ENOMEM. */
int weir__cdc_oom(weir_error *err);
/* Whether name is the last part of one of the n names (case-insensitive). */
bool weir__cdc_in_names(const weir_sql_name *names, size_t n,
                        const char *name);

/* Append to r->q: the hidden table what of the target, a quoted name
 * (prefix.name when prefix is set), a list of them, "a.k1 = b.k1 AND ..."
 * over the keys. */
void weir__cdc_hidden(cdc_run *r, const char *what);
void weir__cdc_ident(cdc_run *r, const char *prefix, const char *name);
void weir__cdc_list(cdc_run *r, const char *prefix, const char **names,
                    size_t n);
void weir__cdc_keys_equal(cdc_run *r, const char *a, const char *b);
/* Whether name is one of the target's keys. */
bool weir__cdc_is_key(const cdc_run *r, const char *name);
/* Run r->q and clear it: a statement (*changed: its rows, may be NULL), a
 * query of one integer (NULL: 0), a query of one row of n integers (NULL:
 * 0). */
int weir__cdc_run_q(cdc_run *r, int64_t *changed);
int weir__cdc_scalar_q(cdc_run *r, int64_t *out);
int weir__cdc_scalars_q(cdc_run *r, int64_t *out, size_t n);
/* CREATE TABLE IF NOT EXISTS <hidden what> AS SELECT cols FROM batch
 * LIMIT 0, dropped first when fresh. */
int weir__cdc_hidden_table(cdc_run *r, const char *what, const char *cols,
                           bool fresh);
/* The columns of the hidden table what (*exists false, no columns, when
 * there is none), in a: bound, not looked up in duckdb_columns(). */
int weir__cdc_hidden_columns(cdc_run *r, const char *what, bool *exists,
                             weir_db_column **cols, size_t *n, weir_arena *a);
/* The keys, quoted and comma-separated, appended to out. */
int weir__cdc_key_cols(cdc_run *r, weir_buf *out);
/* Each key's latest change (src: the keys, __weir_seq and __weir_del, one
 * row per key) into the state table, where it is newer. */
int weir__cdc_state_merge(cdc_run *r, const char *src);
/* Append the keys' state (__weir_s, NULL for a new key) joined to the
 * batch (__weir_b). */
void weir__cdc_join_state(cdc_run *r);

/* SCD 1 with IGNORE NULL UPDATES (cdc_scd1_inu.c): the state's
 * per-column sequences. Whether a state column is one of them; append
 * them to a state table's column list (", <expr> AS <name>..." over the
 * batch); make an existing state's columns follow the flow (converted
 * from a state made without them, extended by new target columns,
 * dropped without IGNORE NULL UPDATES); after a truncate, clear the
 * values set at or before it; apply the batch (target and state):
 * *n_applied changes applied, *upserted rows inserted or updated,
 * *changed target rows deleted, updated or inserted. */
bool weir__cdc_inu_column(const char *state_column);
void weir__cdc_inu_state_cols(cdc_run *r, weir_buf *out);
int weir__cdc_inu_layout(cdc_run *r); /* r->state_cols: as it was */
int weir__cdc_inu_truncate(cdc_run *r);
int weir__cdc_inu_apply(cdc_run *r, int64_t *n_applied, int64_t *upserted,
                        int64_t *changed);

/* Apply the staged batch (n_changes changes) by SCD type 1 (cdc_scd1.c)
 * or 2 (cdc_scd2.c), hidden state included; fresh: the state starts
 * empty. Metrics are added to m. */
int weir__cdc_scd1(cdc_run *r, bool fresh, int64_t n_changes,
                   weir_cdc_metrics *m);
int weir__cdc_scd2(cdc_run *r, bool fresh, int64_t n_changes,
                   weir_cdc_metrics *m);

#endif
