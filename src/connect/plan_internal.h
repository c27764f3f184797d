/*
 * Shared state of the plan-to-SQL translator (relations: plan_query.h;
 * plan_expr.c expressions, plan_types.c data types, plan_literal.c
 * literals, plan_schema.c JSON schemas, plan_text.c errors, bounds and text
 * helpers).
 * Not for use outside src/connect/plan*.c.
 */
#ifndef WEIR_CONNECT_PLAN_INTERNAL_H
#define WEIR_CONNECT_PLAN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "connect/plan.h"
#include "spark/connect/expressions.pb-c.h"
#include "util/buf.h"

/* Error classes used by the translator. */
#define PLAN_E_UNSUPPORTED "UNSUPPORTED_FEATURE.CONNECT_PLAN"
#define PLAN_E_INVALID "INVALID_PLAN"
#define PLAN_E_UDF "UNSUPPORTED_FEATURE.PYTHON_UDF"
#define PLAN_E_SYNTAX "PARSE_SYNTAX_ERROR"

/* A plan id the client may refer to (df["col"] carries the plan id of
 * df) and the qualifier that names its columns where it is in scope
 * (NULL: unqualified). */
typedef struct plan_scope_entry {
    int64_t plan_id;
    char *qual; /* owned, already rendered as Spark SQL */
    /* The DataFrame is both sides of a join (a self-join): its columns
     * name neither (Spark's AMBIGUOUS_COLUMN_REFERENCE). */
    bool ambiguous;
    /* The DataFrame was one side of a join that a later step made a
     * derived table of: its columns there may be renamed apart (DuckDB's
     * name_1) and qual would name the other side's, so a reference through
     * it is refused rather than read from the wrong side (PLAN_LOST), or,
     * where both inputs of a set operation hold it, cannot be resolved, as
     * in Spark (PLAN_LOST_BOTH). */
    unsigned char lost;
} plan_scope_entry;

enum { PLAN_LOST = 1, PLAN_LOST_BOTH = 2 };

typedef struct plan_scope {
    plan_scope_entry *items;
    size_t len, cap;
} plan_scope;

/* Columns a DataFrame step defined by name (withColumn over a join):
 * names[i] stands for the Spark SQL value sqls[i]. Owns the strings. */
typedef struct plan_defs {
    char **names, **sqls;
    size_t n;
} plan_defs;

typedef struct plan_ctx {
    weir__plan_error *err;
    const Spark__Connect__Origin *origin; /* nearest one seen on the way down */
    unsigned depth;
    unsigned next_alias; /* _pN derived-table names */
    /* Plan ids visible to the expressions being rendered (borrowed). */
    const plan_scope *scope;
    /* Names an unqualified column reference stands for (borrowed; NULL:
     * none): a select over withColumn's values on a join's level. */
    const plan_defs *defs;
} plan_ctx;

/* Fill c->err (class, message, the nearest Python origin); returns -1. */
int weir__plan_fail(plan_ctx *c, const char *error_class, const char *fmt,
                    ...) WEIR_PRINTF(3, 4);

/* Enter one level of nesting (relation or expression) carrying origin o
 * (may be NULL); fails past WEIR_PLAN_MAX_DEPTH or when b has grown past
 * WEIR_PLAN_MAX_SQL. Restore with plan_leave. */
typedef struct plan_mark {
    const Spark__Connect__Origin *origin;
} plan_mark;
int weir__plan_enter(plan_ctx *c, weir_buf *b, const Spark__Connect__Origin *o,
                     plan_mark *m);
void weir__plan_leave(plan_ctx *c, const plan_mark *m);

/* ---- text helpers (plan_text.c) ---- */

/* Append name as a Spark identifier, backquoted when it is not a plain
 * word or is a keyword. */
void weir__plan_put_ident(weir_buf *b, const char *name);
/* Parse a Spark multi-part name (`a`.b.`c``d`) and append it re-quoted
 * part by part. -1 (with error naming what) on a malformed name. */
int weir__plan_put_name(plan_ctx *c, weir_buf *b, const char *text,
                        const char *what);
/* Number of parts and the last part of a multi-part name (into out, which
 * must hold strlen(text)+1 bytes). -1 when malformed. */
int weir__plan_last_part(const char *text, char *out, size_t *n_parts);
/* Append s as a Spark string literal ('...' with backslash escapes). */
void weir__plan_put_string(weir_buf *b, const char *s);
void weir__plan_put_stringn(weir_buf *b, const char *s, size_t n);
/* Check that text is a self-contained piece of Spark SQL: quotes and
 * comments closed, parentheses balanced, no `;` outside quotes. The
 * message names what (e.g. "expression"). */
int weir__plan_check_text(plan_ctx *c, const char *text, const char *what);
/* The length of an expression string without its own alias: "hour(ts) AS
 * h" and "hour(ts) h" are "hour(ts)" (Spark's parser takes a named
 * expression; inside another expression the alias names nothing). */
size_t weir__plan_text_unaliased(const char *text);
/* Append checked text; a line break follows when it has a `--` comment. */
void weir__plan_put_text(weir_buf *b, const char *text);

/* ---- data types (plan_types.c) ---- */
int weir__plan_type(plan_ctx *c, weir_buf *b,
                    const Spark__Connect__DataType *t, bool as_columns);

/* ---- literals (plan_literal.c) ---- */
int weir__plan_literal(plan_ctx *c, weir_buf *b,
                       const Spark__Connect__Expression__Literal *l);

/* ---- schemas (plan_schema.c) ---- */
/* A schema given as DDL ("a INT, b STRING") or as StructType JSON
 * ({"type":"struct","fields":[...]}) as a DDL column list. */
int weir__plan_schema_ddl(plan_ctx *c, weir_buf *b, const char *schema);
/* A data type given as Spark's JSON (DataType.json(): what the client sends
 * for from_json(col, StructType(...))) as DDL: a struct as a column list,
 * other types as ARRAY<..>, MAP<..>, ... Returns 1 when text was JSON (the
 * DDL appended), 0 when it is not JSON (nothing appended), -1 on error. */
int weir__plan_json_type_ddl(plan_ctx *c, weir_buf *b, const char *text);

/* ---- local data (plan_local.c) ---- */
/* spark.createDataFrame(rows): the LocalRelation's Arrow rows as VALUES. */
int weir__plan_local_relation(plan_ctx *c, const Spark__Connect__LocalRelation *lr,
                              weir_buf *out);

/* ---- expressions (plan_expr.c) ---- */
int weir__plan_expr(plan_ctx *c, weir_buf *b,
                    const Spark__Connect__Expression *e);
/* A select-list item: aliases become AS name / AS (a, b), and an
 * ExpressionString is inlined as written (it may carry its own AS). */
int weir__plan_item(plan_ctx *c, weir_buf *b,
                    const Spark__Connect__Expression *e);
int weir__plan_sort_order(plan_ctx *c, weir_buf *b,
                          const Spark__Connect__Expression__SortOrder *s);

#endif
