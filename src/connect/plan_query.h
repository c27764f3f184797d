/*
 * The relation half of the plan translator: a query under construction
 * (plan.c), and the relation kinds that fill it in: leaves (plan_read.c),
 * single-input operators (plan_ops.c), joins and set operations
 * (plan_join.c). plan.c dispatches on the relation kind.
 * Not for use outside src/connect/plan*.c.
 */
#ifndef WEIR_CONNECT_PLAN_QUERY_H
#define WEIR_CONNECT_PLAN_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "connect/plan_internal.h"

/* The clauses of a SELECT in SQL's logical order; a query's stage is the
 * last one filled in. */
enum {
    PLAN_ST_FROM,
    PLAN_ST_WHERE,
    PLAN_ST_GROUP,
    PLAN_ST_SELECT,
    PLAN_ST_DISTINCT,
    PLAN_ST_ORDER,
    PLAN_ST_LIMIT
};

/* A query under construction. Owns its buffers, qual and scope. */
typedef struct plan_query {
    weir_buf from;   /* FROM clause (one item, or a join) */
    weir_buf select; /* select list; empty = * */
    weir_buf where, group, order;
    weir_buf qualify; /* dropDuplicates(cols) on a join's own level */
    weir_buf closed; /* a finished query (set operations); from is unused */
    bool is_closed, distinct, is_join;
    /* from is a join whose sides' plan ids name their own columns; with
     * join_star, select is `* EXCEPT (excepts)` and then defs over it
     * (drop and withColumn on the join's level, plan_ops.c), which a later
     * select or aggregation replaces rather than wraps: a derived table
     * would rename the sides' same-named columns (DuckDB's a_1) and lose
     * which side each came from. */
    bool join_sides, join_star;
    /* the defs were made with nothing dropped: join_select's replace form */
    bool defs_replace;
    weir_buf excepts;
    weir_buf renamed; /* "\nnew\n..." names withColumnRenamed gave on the join */
    plan_defs defs;
    bool bare_table; /* from is a table name without alias: may take one */
    bool has_limit, has_offset;
    int32_t limit, offset;
    int stage;
    char *qual; /* the name of the single FROM item, if known (owned) */
    plan_scope scope;
} plan_query;

/* ---- the query under construction (plan.c) ---- */
void weir__plan_query_init(plan_query *x);
void weir__plan_query_free(plan_query *x);
/* x is a single FROM item and nothing else yet. */
bool weir__plan_query_is_item(const plan_query *x);
/* Make x a single FROM item named alias (NULL: a fresh _pN unless x is
 * already a plain item). */
int weir__plan_query_wrap(plan_ctx *c, plan_query *x, const char *alias);
/* Make x a single FROM item for a select list without a star: a join's
 * sides stay apart, each side's row carried as a struct column the sides'
 * plan ids then name (a derived table would rename the sides' same-named
 * columns and lose which side each came from). probes (may be empty): a
 * list of `name AS __weir_qN` items read on the join's level, so that a
 * name both sides have is ambiguous there, as in Spark, rather than the
 * left side's in the derived table. Other queries: plain wrap. */
int weir__plan_query_wrap_sides(plan_ctx *c, plan_query *x, const char *probes);
/* Make x a single FROM item with a fresh _pN name, clause (Spark SQL text,
 * e.g. a WATERMARK clause) between the item and its name. */
int weir__plan_query_wrap_clause(plan_ctx *c, plan_query *x, const char *clause);
/* x as one SELECT (or its closed query), appended to b. */
void weir__plan_query_text(const plan_query *x, weir_buf *b);
/* Append to dst the entries of x's scope that name no column of a
 * relation over x: the sides of a join x (and entries already lost), as
 * lost (plan_scope_entry.lost). */
int weir__plan_scope_append_lost(plan_ctx *c, plan_scope *dst, const plan_query *x);
void weir__plan_scope_free(plan_scope *s);
void weir__plan_defs_free(plan_defs *d);
int weir__plan_scope_append(plan_ctx *c, plan_scope *dst, const plan_scope *src);
/* A fresh derived-table name _pN into out. */
void weir__plan_next_alias(plan_ctx *c, char *out, size_t n);
/* Fail with OUT_OF_MEMORY; returns -1. */
int weir__plan_oom(plan_ctx *c);
/* Render relation r into out (an initialised, empty query). */
int weir__plan_rel(plan_ctx *c, const Spark__Connect__Relation *r,
                   plan_query *out);

/* ---- leaves: where rows come from (plan_read.c) ---- */
/* Tables, files (read_files) and Kafka (read_kafka), STREAM when streaming. */
int weir__plan_read(plan_ctx *c, const Spark__Connect__Read *rd, plan_query *out);
/* spark.sql(query, args): the query as a derived table, parameters bound. */
int weir__plan_sql(plan_ctx *c, const Spark__Connect__SQL *s, plan_query *out);
int weir__plan_range(plan_ctx *c, const Spark__Connect__Range *r, plan_query *out);
/* spark.createDataFrame(local rows) (plan_local.c). */
int weir__plan_local_rel(plan_ctx *c, const Spark__Connect__LocalRelation *lr,
                         plan_query *out);

/* ---- operators on one DataFrame (plan_ops.c) ---- */
int weir__plan_filter(plan_ctx *c, const Spark__Connect__Filter *f, plan_query *out);
int weir__plan_project(plan_ctx *c, const Spark__Connect__Project *p, plan_query *out);
int weir__plan_aggregate(plan_ctx *c, const Spark__Connect__Aggregate *a,
                         plan_query *out);
int weir__plan_sort(plan_ctx *c, const Spark__Connect__Sort *s, plan_query *out);
/* limit(n), or offset(n) when is_offset. */
int weir__plan_limit(plan_ctx *c, const Spark__Connect__Relation *input, int32_t n,
                     bool is_offset, plan_query *out);
int weir__plan_dedup(plan_ctx *c, const Spark__Connect__Deduplicate *d, plan_query *out);
int weir__plan_watermark(plan_ctx *c, const Spark__Connect__WithWatermark *w,
                         plan_query *out);
int weir__plan_with_columns(plan_ctx *c, const Spark__Connect__WithColumns *w,
                            plan_query *out);
int weir__plan_drop(plan_ctx *c, const Spark__Connect__Drop *d, plan_query *out);
int weir__plan_rename(plan_ctx *c, const Spark__Connect__WithColumnsRenamed *w,
                      plan_query *out);
int weir__plan_to_df(plan_ctx *c, const Spark__Connect__ToDF *t, plan_query *out);
/* df.alias(name) */
int weir__plan_alias(plan_ctx *c, const Spark__Connect__SubqueryAlias *s,
                     plan_query *out);

/* ---- two DataFrames (plan_join.c) ---- */
int weir__plan_join(plan_ctx *c, const Spark__Connect__Join *j, plan_query *out);
/* union, intersect, except (ALL, BY NAME) */
int weir__plan_set_op(plan_ctx *c, const Spark__Connect__SetOperation *s,
                      plan_query *out);

#endif
