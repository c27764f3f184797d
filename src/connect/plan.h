/*
 * Spark Connect plans to Spark SQL text.
 *
 * The PySpark client describes each DataFrame as an unresolved plan: a tree
 * of Relation messages whose leaves read tables, files or ranges, with
 * Expression trees inside. weir does not interpret DataFrames; it turns the
 * plan into the Spark SQL text the same query would have been written as,
 * and hands that to the pipeline like the text of a SQL file. Everything
 * after that (analysis, translation to DuckDB, validations) is shared with
 * SQL pipelines.
 *
 * Owns: nothing beyond the strings it returns.
 */
#ifndef WEIR_CONNECT_PLAN_H
#define WEIR_CONNECT_PLAN_H

#include <stddef.h>

#include "spark/connect/relations.pb-c.h"
#include "spark/connect/types.pb-c.h"

/* Where a construct came from in the user's Python code (the client sends
 * the call site of every expression in its origin). file is NULL when
 * unknown. */
typedef struct weir__plan_origin {
    char file[1024];
    unsigned line;
} weir__plan_origin;

/* Why a plan could not be turned into SQL. error_class is a Spark error
 * class such as "UNSUPPORTED_FEATURE.PYTHON_UDF"; message is one line
 * naming the construct. */
typedef struct weir__plan_error {
    char error_class[96];
    char message[1024];
    weir__plan_origin origin;
} weir__plan_error;

/* Limits on what a client can make the translator do. */
#define WEIR_PLAN_MAX_DEPTH 512       /* nesting of relations + expressions */
#define WEIR_PLAN_MAX_SQL (64u << 20) /* bytes of generated SQL */

/* Render a relation as one Spark SQL query (a SELECT, or a parenthesised
 * query expression). Streaming reads (`spark.readStream...`) are rendered
 * with STREAM, file sources as read_files(...).
 * Ownership: *out is malloc'ed, the caller frees it; NULL on failure.
 * Returns 0, or -1 with *err filled (err must not be NULL). */
int weir__plan_relation_sql(const Spark__Connect__Relation *rel, char **out,
                            weir__plan_error *err);
/* The same with at most limit rows (limit >= 0; -1: all), in the query's
 * own SELECT when it has room for a LIMIT: a derived table around it would
 * rename duplicate column names (DuckDB's a, a_1), which Spark keeps. */
int weir__plan_relation_sql_limit(const Spark__Connect__Relation *rel,
                                  long long limit, char **out,
                                  weir__plan_error *err);

/* Render an expression (a Column) as Spark SQL; ownership and errors as
 * weir__plan_relation_sql. */
int weir__plan_expression_sql(const Spark__Connect__Expression *e, char **out,
                              weir__plan_error *err);

/* Render a Spark Connect DataType as Spark DDL ("BIGINT",
 * "STRUCT<a: INT>", ...). For a struct at the top level with as_columns
 * set, renders a column list ("a INT, b STRING") as TableDetails schemas
 * need. Ownership and errors: as weir__plan_relation_sql. */
int weir__plan_datatype_ddl(const Spark__Connect__DataType *type,
                            int as_columns, char **out,
                            weir__plan_error *err);

#endif
