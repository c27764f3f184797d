/*
 * Private to functions.c and fn_custom.c: the function-table row and the
 * custom handlers for Spark functions a template cannot express.
 */
#ifndef WEIR_SQL_FUNCTIONS_H
#define WEIR_SQL_FUNCTIONS_H

#include "internal.h"

enum { F_AGG = 1, F_WIN = 2 };

typedef int (*fn_handler)(sql_tx *t, weir_buf *out, const weir_sql_expr *e);

typedef struct fn_def {
    const char *name; /* Spark name, lower case */
    int min, max;     /* argument count range; max -1 = unbounded */
    unsigned flags;
    const char *tmpl; /* DuckDB template, or NULL with a handler */
    fn_handler handler;
} fn_def;

/* Translate argument i of e into out. */
int weir__fn_arg(sql_tx *t, weir_buf *out, const weir_sql_expr *e, size_t i);
/* The text of a string literal argument, else NULL. */
const char *weir__fn_string_literal(const weir_sql_expr *a);
/* The error for argument i of e that must be a literal `what`. */
int weir__fn_need_literal(sql_tx *t, const weir_sql_expr *e, size_t i,
                          const char *what);
/* Translate every argument into a calloc'd array of e->n buffers. */
int weir__fn_args(sql_tx *t, weir_buf **out, const weir_sql_expr *e);
void weir__fn_args_free(weir_buf *args, size_t n);
/* " FILTER (WHERE extra AND filter)" when either is present. */
int weir__fn_filter_clause(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                           const char *extra);
int weir__fn_over_clause(sql_tx *t, weir_buf *out, const weir_sql_expr *e);

int weir__fn_decode(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_concat(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_split(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_regexp_replace(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_sha2(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_array(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_map(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_named_struct(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_struct(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_sort_array(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_transform(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_filter(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_exists(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_forall(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_aggregate(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_timestampadd(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_timestampdiff(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_date_trunc(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_trunc(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_to_date(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_to_timestamp(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_date_format(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_from_unixtime(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_unix_timestamp(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_window(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
/* timezone.c */
int weir__fn_convert_timezone(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_session_window(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_from_json(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_count(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_first_last(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_size(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_sum(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_collect(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_regexp_extract(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_concat_ws(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_months_between(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_format_number(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_elt(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_date_part(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_next_day(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_string_agg(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_map_filter(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_transform_values(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_transform_keys(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_zip_with(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_collate(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_mask(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_regexp_instr(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_arrays_zip(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__fn_array_insert(sql_tx *t, weir_buf *out, const weir_sql_expr *e);

#endif
