/*
 * The Spark SQL front end, as the rest of weir sees it: split a pipeline SQL
 * file into statements, parse the pipeline statements (CREATE MATERIALIZED
 * VIEW / STREAMING TABLE / VIEW / TEMPORARY VIEW / FLOW / SINK, SET, USE)
 * into plain structures, parse queries into an opaque tree, list what a
 * query reads, and translate Spark SQL to DuckDB SQL. Everything a parse
 * returns lives in the caller's arena. Positions are byte offsets into the
 * source text plus 1-based line and column.
 *
 * Translation rules are documented in docs/sql.md.
 */
#ifndef WEIR_SQL_H
#define WEIR_SQL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/kv.h"

/* The text a statement came from, for error locations. line_starts, when
 * set (weir__sql_source_index), holds the offset of each line's first byte
 * so that positions are found without rescanning the text from the start:
 * a file of many statements is then parsed in linear time. */
typedef struct weir_sql_source {
    const char *path; /* file name as given (may be relative), or "" */
    const char *text;
    size_t len;
    /* Text generated from a definition elsewhere (a Python DataFrame):
     * errors anywhere in it are reported at at_path:at_line instead of a
     * position in the text. NULL = not generated. */
    const char *at_path;
    unsigned at_line;
    const size_t *line_starts; /* NULL, or n_lines offsets, ascending */
    size_t n_lines;
    /* Spark's spark.sql.ansi.enforceReservedKeywords: the keywords that
     * ANSI reserves (src/sql/keywords.inc) name nothing. false is Spark's
     * default: every keyword can be an identifier. */
    bool reserved_keywords;
} weir_sql_source;

/* Build src's line index in arena; 0 or WEIR_ENOMEM. */
int weir__sql_source_index(weir_sql_source *src, weir_arena *arena);

typedef struct weir_sql_pos {
    unsigned offset; /* byte offset into source->text */
    unsigned line, column;
} weir_sql_pos;

/* Fill err's location (path, line, column, line_text) from pos. */
void weir__sql_error_at(weir_error *err, const weir_sql_source *src,
                        weir_sql_pos pos);

/* A possibly qualified name; parts are unquoted, case preserved. */
typedef struct weir_sql_name {
    const char **parts;
    size_t n; /* 0 when absent */
    weir_sql_pos pos;
    bool live; /* written with the Databricks prefix LIVE. (dropped) */
} weir_sql_name;

/* ------------------------------------------------------------------------
 * Statement splitting
 * ------------------------------------------------------------------------ */

typedef struct weir_sql_span {
    size_t offset, len; /* statement text without the ';' */
    unsigned line;      /* line of the first non-blank character */
} weir_sql_span;

/*
 * Split text on ';' outside quotes, backticks and comments. Statements that
 * hold only blanks and comments are dropped; the last ';' is optional. An
 * unterminated quote or comment is an error with its position.
 */
int weir__sql_split(weir_sql_span **out, size_t *n_out, weir_arena *arena,
                    const weir_sql_source *src, weir_error *err);

/* ------------------------------------------------------------------------
 * Types
 * ------------------------------------------------------------------------ */

typedef struct weir_sql_type weir_sql_type; /* opaque */

/* Parse a Spark type (e.g. "DECIMAL(10,2)", "ARRAY<STRUCT<a: INT>>"). */
int weir__sql_parse_type(weir_sql_type **out, weir_arena *arena,
                         const char *text, weir_error *err);
/* Append the DuckDB spelling, e.g. DECIMAL(10,2), STRUCT("a" INTEGER)[]. */
void weir__sql_type_to_duckdb(weir_buf *out, const weir_sql_type *type);
/* Append Spark's lower-case spelling, e.g. decimal(10,2), array<struct<a:int>>. */
void weir__sql_type_to_spark(weir_buf *out, const weir_sql_type *type);
/* Spark's name for a DuckDB type as DuckDB prints it (e.g. "BIGINT",
 * "VARCHAR[]", "STRUCT(a INTEGER)"); unknown types are passed through in
 * lower case. */
void weir__sql_duckdb_type_to_spark(weir_buf *out, const char *duckdb_type);

/* ------------------------------------------------------------------------
 * Queries and expressions (opaque trees)
 * ------------------------------------------------------------------------ */

typedef struct weir_sql_query weir_sql_query;
typedef struct weir_sql_expr weir_sql_expr;

/* Parse a query (SELECT, WITH, VALUES, set operations, parenthesised). */
int weir__sql_parse_query(weir_sql_query **out, weir_arena *arena,
                          const weir_sql_source *src, size_t offset,
                          size_t len, weir_error *err);
/* Parse the whole of src as a table name, as a FROM clause reads one: 1
 * to 3 dotted parts (backticks quote a part; a leading LIVE. is dropped),
 * nothing after it. 4+ parts: WEIR_ESQL, REQUIRES_SINGLE_PART_NAMESPACE;
 * anything else: a syntax error. Parts live in arena. */
int weir__sql_parse_table_name(weir_sql_name *out, weir_arena *arena,
                               const weir_sql_source *src, weir_error *err);
/* Parse a single expression (an expectation's condition). */
int weir__sql_parse_expr(weir_sql_expr **out, weir_arena *arena,
                         const weir_sql_source *src, size_t offset,
                         size_t len, weir_error *err);

/* The query's original Spark SQL text (borrowed from the source). */
const char *weir__sql_query_text(const weir_sql_query *q, size_t *len);
const weir_sql_source *weir__sql_query_source(const weir_sql_query *q);
/* The first output column of q that Spark would name itself (a select
 * item that is an expression without an alias, not a column, a star or a
 * generator): true with its Spark name appended to name and its location
 * in pos. A persisted view cannot be created with such a column
 * (CREATE_PERMANENT_VIEW_WITHOUT_ALIAS). */
bool weir__sql_query_unaliased(const weir_sql_query *q, weir_buf *name,
                               weir_sql_pos *pos);
/* The names of q's output columns as Spark names them, one a line: an
 * alias, a column's name, or the name Spark generates for an expression
 * (`*` for a star, `?` for a generator's columns). For tests of the
 * naming rule against Spark's (tests/spark/names.py). */
void weir__sql_query_names(const weir_sql_query *q, weir_buf *out);

/* A table reference found in a query. */
typedef struct weir_sql_relref {
    weir_sql_name name; /* as written: 1 to 3 parts (4+ is a parse error) */
    bool streaming;     /* read with STREAM t / STREAM(t) */
    const void *node;   /* identifies the reference for the resolver */
} weir_sql_relref;

/* An argument of a table-valued function call. */
typedef enum weir_sql_arg_kind {
    WEIR_SQL_ARG_STRING, /* text = the decoded string value */
    WEIR_SQL_ARG_NUMBER, /* text = the literal as written */
    WEIR_SQL_ARG_BOOL,   /* text = "true" / "false" */
    WEIR_SQL_ARG_NULL,
    WEIR_SQL_ARG_MAP,    /* map('k', 'v', ...): keys/values in items */
    WEIR_SQL_ARG_OTHER   /* any other expression: text = its Spark SQL */
} weir_sql_arg_kind;

typedef struct weir_sql_arg {
    const char *name; /* named argument (`name => value`), NULL if positional */
    weir_sql_arg_kind kind;
    const char *text;
    struct weir_sql_arg *items; /* MAP: alternating key, value */
    size_t n_items;
    weir_sql_pos pos;
} weir_sql_arg;

/* A table-valued function call in a FROM clause. */
typedef struct weir_sql_tvf {
    const char *name; /* lower case, e.g. "read_files", "range" */
    bool streaming;   /* STREAM read_files(...) */
    weir_sql_arg *args;
    size_t n_args;
    weir_sql_pos pos;
    const void *node;
} weir_sql_tvf;

/*
 * Everything a query reads: table references (CTE names excluded, and
 * references inside subqueries included) and table-valued function calls,
 * in source order. Arrays live in arena.
 */
typedef struct weir_sql_reads {
    weir_sql_relref *refs;
    size_t n_refs;
    weir_sql_tvf *tvfs;
    size_t n_tvfs;
} weir_sql_reads;

int weir__sql_query_reads(weir_sql_reads *out, weir_arena *arena,
                          const weir_sql_query *q, weir_error *err);

/* Whether an expression holds a subquery (expectation conditions check
 * one row at a time). */
bool weir__sql_expr_has_subquery(const weir_sql_expr *e);

/*
 * The operators of a streaming query that Structured Streaming treats
 * apart (streaming.c, docs/streaming.md): those that keep state across
 * micro-batches and those Spark refuses on a stream. Each is found where a
 * relation it works on is a stream (a STREAM read, a view it names, a CTE
 * or subquery over one).
 */
typedef enum weir_sql_sop_kind {
    WEIR_SQL_SOP_AGGREGATE = 1, /* GROUP BY, an aggregate function, SELECT
                                   DISTINCT or UNION (distinct) */
    WEIR_SQL_SOP_DEDUPLICATE,   /* dropDuplicates(keys), written by the
                                   Connect translator as SELECT * ... QUALIFY
                                   row_number() OVER (PARTITION BY keys
                                   ORDER BY keys) = 1 */
    WEIR_SQL_SOP_JOIN,          /* a join of two streams */
    WEIR_SQL_SOP_LIMIT,         /* LIMIT (Spark counts rows across batches) */
    WEIR_SQL_SOP_EXCEPT,        /* EXCEPT of a stream and a batch relation */
    WEIR_SQL_SOP_WINDOW_FUNCTION, /* Spark: NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING */
    WEIR_SQL_SOP_UNSUPPORTED    /* refused by Spark's unsupported-operation
                                   checks; what is Spark's message */
} weir_sql_sop_kind;

/* The event-time watermark of one input of a stateful operator: a
 * relation with a WATERMARK clause. */
typedef struct weir_sql_watermark {
    const weir_sql_query *max;  /* SELECT max(col) FROM <the relation>: the
                                   latest event time of a batch */
    const void *ctx;            /* the resolver context max is read in */
    const weir_sql_expr *delay; /* DELAY OF: an interval */
    const char *column;         /* the event-time column */
} weir_sql_watermark;

/* How weir runs a stateful operator it keeps state for (the engine's
 * engine/stateful.c; docs/streaming.md). All in the analysis arena. */
typedef struct weir_sql_state_plan {
    weir_sql_sop_kind kind;      /* DEDUPLICATE, AGGREGATE, JOIN or LIMIT */
    const weir_sql_query *node;  /* the operator's query within the flow's:
                                    the engine renders it as the
                                    operator's output (resolver.query) */
    const void *ctx;             /* the resolver context node and input
                                    are read in (the flow, or a view) */
    const weir_sql_query *input; /* the rows it takes: SELECT * FROM its
                                    FROM [WHERE ...] */
    const char **keys;           /* DEDUPLICATE: key columns of input
                                    (none: every column) */
    size_t n_keys;
    const char *event_time;      /* the key column that carries a
                                    watermark (NULL: none); within the
                                    watermark, the input's event time */
    long event_wm;               /* the index in wms of event_time's
                                    watermark, or -1 */
    bool within_watermark;       /* dropDuplicatesWithinWatermark: a key
                                    expires at its first event time plus
                                    the watermark's delay */
    weir_sql_watermark *wms;     /* the watermarks of its inputs */
    size_t n_wms;
    /* AGGREGATE: rows stands for a set of the input's rows (the resolver
     * renders it: weir_sql_resolver.query); closes is SELECT *, <the end
     * of the row's group: its time window's end, or its event time> AS
     * __weir_end FROM rows; emit is the aggregation over rows. */
    const weir_sql_query *rows;
    const weir_sql_query *closes;
    const weir_sql_query *emit;
    bool sessions;               /* grouped by session_window(): closes
                                    gives a row's own end (time + gap),
                                    rows has the state's row ids as
                                    __weir_rid and emit lists those of each
                                    session as __weir_rids */
    /* JOIN of two streams: its kind; per side (0 left, 1 right) the rows
     * it takes, its placeholder, its watermarked event time (NULL: none)
     * and when its buffered rows can no longer match rows to come (the
     * event time before the watermark plus the sum of terms; can_evict
     * false: never); emit is the operator's SELECT over the join of the
     * placeholders as written (SEMI, or INNER for the other kinds: the
     * matched pairs), emit_left_nulls / emit_right_nulls the same over a
     * LEFT / RIGHT join (outer rows with NULLs), pairs the sides' row ids
     * (__weir_id) of the matched pairs. */
    int join;                    /* WEIR_SQL_JOIN_* */
    struct weir_sql_join_side {
        const weir_sql_query *input;
        const weir_sql_query *rows;
        const char *alias;       /* what the query calls the side */
        const char *event_time;
        bool can_evict;
        bool by_key;             /* evicted by an equality of the two
                                    event times (Spark: the watermark in
                                    the join keys), not a range */
        bool strict;             /* by a strict range (< or >): Spark's
                                    state watermark is the bound itself,
                                    else the bound less 1 ms */
        struct {
            const weir_sql_expr *interval;
            bool minus;
        } evict[2];
        size_t n_evict;
    } side[2];
    const weir_sql_query *emit_left_nulls, *emit_right_nulls, *pairs;
    const weir_sql_expr *limit;  /* LIMIT: the number of rows */
    bool natural;                /* a NATURAL join: its queries are
                                    made USING joins on the sides' common
                                    columns (weir__sql_join_using) */
    /* The planned operator whose output this one reads (node inside its
     * input), for a chain of stateful operators; NULL: none. */
    const struct weir_sql_state_plan *below;
} weir_sql_state_plan;

enum { WEIR_SQL_JOIN_INNER = 1, WEIR_SQL_JOIN_LEFT, WEIR_SQL_JOIN_RIGHT,
       WEIR_SQL_JOIN_FULL, WEIR_SQL_JOIN_SEMI };

typedef struct weir_sql_sop {
    weir_sql_sop_kind kind;
    const char *what;           /* the construct ("INNER JOIN", "SELECT
                                   DISTINCT", "dropDuplicates(id)", "row_number()
                                   (as column `rn`)"), or Spark's message */
    const weir_sql_source *src; /* where it is written: pos in src */
    weir_sql_pos pos;
    bool watermarked; /* AGGREGATE: a group key is an event-time column
                         with a watermark, or a time window of one;
                         DEDUPLICATE: a key is */
    const weir_sql_state_plan *plan; /* how weir runs it; NULL when it
                                        keeps no state for it */
} weir_sql_sop;

/* How the analysis looks into the views a query reads with STREAM. */
typedef struct weir_sql_stream_resolver {
    /* The query of the pipeline view ref names, when ref (a reference
     * read in the query of ctx) is one; *view_ctx is the context its own
     * references are read in. NULL: not a view. */
    const weir_sql_query *(*view)(void *payload, const void *ctx,
                                  const weir_sql_relref *ref,
                                  const void **view_ctx);
    void *payload;
    const void *ctx; /* the context of the analysed query */
} weir_sql_stream_resolver;

/* The streaming operators of q, in the order they are found (inner ones
 * first), into *out (arena). res may be NULL (views are not looked
 * into). 0, or WEIR_ENOMEM. */
int weir__sql_stream_ops(weir_sql_sop **out, size_t *n_out, weir_arena *arena,
                         const weir_sql_query *q,
                         const weir_sql_stream_resolver *res);
/* q (a plan's query over a NATURAL join) as a join USING the n columns
 * cols (arena, which also holds cols); q itself when it is not over a
 * join; NULL when out of memory. */
const weir_sql_query *weir__sql_join_using(weir_arena *arena,
                                           const weir_sql_query *q,
                                           const char **cols, size_t n);
/* How a materialized view's query can be brought up to date from the rows
 * appended to its inputs (incremental.c; docs/engine.md). */
typedef enum weir_sql_incr_kind {
    WEIR_SQL_INCR_NONE = 0,  /* recompute it: reason and pos say why */
    WEIR_SQL_INCR_APPEND,    /* the query over the new rows gives the rows
                                to append (projections, filters, UNION ALL) */
    WEIR_SQL_INCR_AGGREGATE  /* one row per group: the query over the new
                                rows gives partial rows, merged by key */
} weir_sql_incr_kind;

/* What an output column of an aggregate query is. */
typedef enum weir_sql_incr_col {
    WEIR_SQL_INCR_KEY = 1, /* a GROUP BY key (all of them with DISTINCT) */
    WEIR_SQL_INCR_SUM,
    WEIR_SQL_INCR_COUNT,
    WEIR_SQL_INCR_MIN,
    WEIR_SQL_INCR_MAX,
    WEIR_SQL_INCR_AVG, /* kept as a sum and a count (see
                          weir__sql_incr_state_query) */
    WEIR_SQL_INCR_COUNT_DISTINCT /* count(DISTINCT x): kept as the (group,
                                    value) pairs seen (see
                                    weir__sql_incr_distinct_query) */
} weir_sql_incr_col;

typedef struct weir_sql_incr {
    weir_sql_incr_kind kind;
    char reason[256];        /* NONE: the construct, e.g. "a join" */
    weir_sql_pos pos;        /* NONE: where it is */
    weir_sql_incr_col *cols; /* AGGREGATE: per output column (arena) */
    size_t n_cols;
    bool join;               /* the rows come from joins: the change is the
                                sum over each input's new rows joined with
                                the other inputs (before it: as they were,
                                after it: as they are) */
    const void **fixed;      /* table references (weir_sql_relref.node) on
                                the outer side of an outer join or the right
                                side of a semi or anti join: maintained
                                only while they have no new rows (arena) */
    size_t n_fixed;
} weir_sql_incr;

/* Analyse q (a pipeline query); 0, or WEIR_ENOMEM. */
int weir__sql_query_incremental(weir_sql_incr *out, weir_arena *arena,
                                const weir_sql_query *q);

/* The query whose partial rows an aggregate with avg() columns merges
 * from: q with each avg(x) item i (shape->cols[i] == WEIR_SQL_INCR_AVG)
 * replaced by sum(x) named "__weir_sum_<i>" and, after the other items, a
 * count(x) named "__weir_count_<i>" (their FILTER kept); the other items
 * are q's. *out shares q's nodes and lives in arena; 0 or WEIR_ENOMEM. */
int weir__sql_incr_state_query(const weir_sql_query **out, weir_arena *arena,
                               const weir_sql_query *q,
                               const weir_sql_incr *shape);

/* The rows of q's groups and values of its count(DISTINCT x) column col:
 * its key items, x named "__weir_value" and, when the call has a FILTER,
 * its condition named "__weir_keep", over q's FROM and WHERE, without
 * grouping (a row per input row). *out lives in arena; 0 or
 * WEIR_ENOMEM. */
int weir__sql_incr_distinct_query(const weir_sql_query **out,
                                  weir_arena *arena, const weir_sql_query *q,
                                  const weir_sql_incr *shape, size_t col);

/* Spark's avg() of a DECIMAL(p,s) from the exact sum (a DECIMAL SQL
 * expression) and the count of the values (a BIGINT one), both used more
 * than once: the sum divided by the count, HALF_UP to scale s+4, as a
 * DECIMAL(p+4,s+4); NULL for no values. The translation of avg() and the
 * incremental refresh of views both compute it so. */
void weir__sql_exact_avg(weir_buf *out, const char *sum, const char *count,
                         int p, int s);

/* Where an expression starts in its source. */
weir_sql_pos weir__sql_expr_pos(const weir_sql_expr *e);
/* Column names an expression references (unqualified last parts). */
int weir__sql_expr_columns(const char ***out, size_t *n_out, weir_arena *arena,
                           const weir_sql_expr *e);

/* ------------------------------------------------------------------------
 * Translation to DuckDB
 * ------------------------------------------------------------------------ */

/*
 * How table references and table-valued functions become DuckDB SQL.
 * relation() appends the DuckDB text that replaces the reference (a quoted
 * qualified table name or a parenthesised subquery); the translator adds the
 * alias (the written alias, else the last name part) itself. tvf() does the
 * same for a table-valued call; it may return WEIR_ENOTFOUND to ask for the
 * translator's default rendering (range, explode, ...). Both return 0 or a
 * WEIR_E* code with err filled.
 */
/* What a statement does to the name it targets (see resolver.target). */
typedef enum weir_sql_action {
    WEIR_SQL_USE,           /* USE [CATALOG|SCHEMA|DATABASE] name */
    WEIR_SQL_CREATE_SCHEMA, /* CREATE SCHEMA|DATABASE [IF NOT EXISTS] */
    WEIR_SQL_DROP_SCHEMA,   /* DROP SCHEMA|DATABASE (maybe CASCADE) */
    WEIR_SQL_CREATE,        /* CREATE [TEMPORARY] TABLE|VIEW [IF NOT EXISTS] */
    WEIR_SQL_REPLACE,       /* CREATE OR REPLACE TABLE|VIEW */
    WEIR_SQL_DROP,          /* DROP TABLE|VIEW */
    WEIR_SQL_INSERT,        /* INSERT INTO */
    WEIR_SQL_OVERWRITE,     /* INSERT OVERWRITE */
    WEIR_SQL_DELETE,        /* DELETE FROM, TRUNCATE TABLE */
    WEIR_SQL_UPDATE,        /* UPDATE */
    WEIR_SQL_ALTER          /* ALTER TABLE ... ADD COLUMNS */
} weir_sql_action;

typedef struct weir_sql_resolver {
    int (*relation)(void *payload, const weir_sql_relref *ref, weir_buf *out,
                    weir_error *err);
    int (*tvf)(void *payload, const weir_sql_tvf *call, weir_buf *out,
               weir_error *err);
    void *payload;
    /* Statements only (optional): a name a statement writes or switches to,
     * as written, with what the statement does to it. Nonzero refuses the
     * statement; the location is added. */
    int (*target)(void *payload, weir_sql_action action,
                  const weir_sql_name *name, weir_error *err);
    /* Optional: the DuckDB types (e.g. "DECIMAL(18,2)") of the columns of
     * query sql (DuckDB SQL, as the translator renders it) into out, one a
     * line; nonzero when it does not bind. The translator asks it for the
     * operands of sum(), avg() and decimal arithmetic, whose result types
     * are Spark's only when the operands' precisions are known. */
    int (*expr_type)(void *payload, const char *sql, weir_buf *out);
    /* Optional: the DuckDB types of the columns of a table reference, one
     * a line, when the resolver knows them without asking DuckDB (a
     * dataset of the graph already resolved); nonzero otherwise. Saves
     * expr_type calls that only look for DECIMAL columns. */
    int (*relation_types)(void *payload, const weir_sql_relref *ref,
                          weir_buf *out);
    /* Optional: the name of a column the relation rendered for call
     * carries that `*` does not expand to (a file source's _metadata, a
     * hidden column in Spark), or NULL. */
    const char *(*tvf_hidden)(void *payload, const weir_sql_tvf *call);
    /* Spark's session time zone (spark.sql.session.timeZone) as
     * configured, NULL for UTC: where Spark reads or writes a timestamp as
     * a wall clock (casts to and from strings and dates, fields,
     * formatting, parsing, day and month arithmetic) the translation does
     * so in this zone (docs/sql.md, "Session time zone"). */
    const char *time_zone;
    /* Statements only (optional): SET key = value (SET TIME ZONE 'z' as
     * key spark.sql.session.timeZone) before the statement answers the
     * pair; nonzero refuses it (the location is added). */
    int (*set)(void *payload, const char *key, const char *value,
               weir_error *err);
    /* Optional: DuckDB text that replaces query q wherever it is
     * translated (a stateful operator, whose output the engine computed:
     * engine/stateful.c): 0 with the text appended to out, WEIR_ENOTFOUND
     * to translate q as usual, or an error. */
    int (*query)(void *payload, const weir_sql_query *q, weir_buf *out,
                 weir_error *err);
    /* Statements only (optional): the pipeline's schema, which weir
     * creates itself where Spark leaves it to the user (SCHEMA_NOT_FOUND
     * until someone does): CREATE SCHEMA of it, by its one-part name, is
     * accepted as if it said IF NOT EXISTS, so setup SQL written for
     * Spark runs. */
    const char *own_schema;
} weir_sql_resolver;

/* The DuckDB form of a Spark zone id (spark.sql.session.timeZone) into
 * out: "" for UTC (and every zone id of offset 0), "+3600"/"-28800" for a
 * fixed offset in seconds (+08:00, UTC+8, GMT-05:30, EST), else a region
 * id (Java's three-letter ids as their regions) for DuckDB's ICU, which
 * checks it. WEIR_EINVAL when id is no zone id. */
int weir__sql_zone_duck(char *out, size_t size, const char *id);

/*
 * Translate a query to DuckDB SQL, appending to out. Unaliased select items
 * get Spark's column names (e.g. count(1), (a + 1), upper(name)). A construct
 * that cannot be translated is an error (class UNSUPPORTED_SPARK_SQL, message
 * naming the construct, location set). resolver may be NULL: references are
 * then rendered as written, quoted.
 */
int weir__sql_translate_query(weir_buf *out, const weir_sql_query *q,
                              const weir_sql_resolver *resolver,
                              weir_error *err);
/* Translate an expression (column references are rendered unqualified)
 * in the session time zone time_zone (NULL: UTC). */
int weir__sql_translate_expr(weir_buf *out, const weir_sql_expr *e,
                             const char *time_zone, weir_error *err);

/*
 * Translate one Spark SQL statement of any kind `weir query` accepts (a
 * query, CREATE/DROP/ALTER TABLE or VIEW, INSERT, DELETE, UPDATE, MERGE,
 * TRUNCATE, SHOW, DESCRIBE, CREATE/DROP SCHEMA|DATABASE, USE, SET) to DuckDB
 * SQL, appending to out. src covers the statement only.
 */
int weir__sql_translate_statement(weir_buf *out, weir_arena *arena,
                                  const weir_sql_source *src, size_t offset,
                                  size_t len, const weir_sql_resolver *resolver,
                                  weir_error *err);

/*
 * Render a read_files(...) / cloud_files(...) call as a DuckDB reader
 * (read_json, read_csv, read_parquet, or a text reader yielding one `value`
 * row per line) with the call's options translated. files (n_files > 0)
 * replaces the call's path with an explicit file list (streaming sources
 * read only their new files); relative paths are resolved against base_dir.
 * Unknown or unsupported options are errors naming the option.
 */
int weir__sql_render_read_files(weir_buf *out, const weir_sql_tvf *call,
                                const char *const *files, size_t n_files,
                                const char *base_dir, weir_error *err);
/* A direct file query such as json.`path` (Spark's runSQLOnFiles) as a
 * DuckDB reader with Spark's column names and types for the format (CSV:
 * strings _c0, _c1, ...; text: one `value` column). A relative path is
 * resolved against base_dir. A format weir cannot read (orc, avro) is
 * UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY at pos; delta is the caller's. */
int weir__sql_render_path_read(weir_buf *out, const char *format,
                               const char *path, weir_sql_pos pos,
                               const char *base_dir, weir_error *err);
/* The path argument of a read_files/cloud_files call, or NULL. */
const char *weir__sql_read_files_path(const weir_sql_tvf *call);
/* Whether DuckDB's DOUBLE parser reads v as the value Spark's CSV option
 * key (nanValue, positiveInf or negativeInf) makes of it: nan, [+]inf,
 * [+]infinity, -inf, -infinity in any case; false for other keys. */
bool weir__sql_csv_float_mark_native(const char *key, const char *v);

/*
 * read_jdbc(...) (read_jdbc.c, docs/databases.md): Spark's JDBC options
 * of a call, checked, with its URL taken apart. Strings point into the
 * call's arguments or arena a. Errors (INVALID_JDBC_OPTION) are at the
 * argument's position and name no secret.
 */
typedef enum weir_jdbc_kind {
    WEIR_JDBC_POSTGRES = 1,
    WEIR_JDBC_MYSQL,  /* jdbc:mysql:// and jdbc:mariadb:// */
    WEIR_JDBC_SQLITE
} weir_jdbc_kind;

typedef struct weir_jdbc_opts {
    weir_jdbc_kind kind;
    const char *host;       /* servers */
    int port;
    const char *database;   /* servers: the URL's (PostgreSQL: else user) */
    const char *sslmode;    /* PostgreSQL: the URL's sslmode, or NULL */
    const char *path;       /* SQLite: the file as written */
    const char *user, *password;        /* NULL when not given */
    const char *schema, *table;         /* dbtable: schema NULL = default */
    const char *query;      /* query (or a parenthesised dbtable), else NULL */
    const char *cursor;     /* cursorColumn, or NULL */
    weir_sql_pos pos, query_pos, cursor_pos;
    weir_sql_pos error_pos;  /* where the error of weir__sql_jdbc_opts is */
} weir_jdbc_opts;

int weir__sql_jdbc_opts(weir_jdbc_opts *o, weir_arena *a,
                        const weir_sql_tvf *call, weir_error *err);
/* A database catalog declared in the configuration (docs/databases.md):
 * weir.catalogs.<name>.url (required), .user, .password and .type
 * (postgres, mysql or sqlite: the URL's kind when given), as the options
 * of a read of it (no table set). WEIR_ENOTFOUND (no error set) when no
 * catalog has that name; INVALID_JDBC_OPTION naming the key otherwise. */
int weir__sql_jdbc_catalog(weir_jdbc_opts *o, weir_arena *a, const char *name,
                           const weir_kv *conf, size_t n_conf, weir_error *err);
/* "PostgreSQL", "MySQL", "SQLite". */
const char *weir__sql_jdbc_kind_name(weir_jdbc_kind k);
/* "PostgreSQL database d at host:port, table s.t" (or ", query"): what
 * messages name; never the user's password. */
void weir__sql_jdbc_describe(const weir_jdbc_opts *o, weir_buf *out);
/* text (a buffer of size bytes: a message, a source line) with every
 * occurrence of password replaced by "***". */
void weir__sql_jdbc_mask(const char *password, char *text, size_t size);

/*
 * DuckDB SQL run once on every connection weir opens: settings (Spark's
 * null ordering, time zone) and the macros that implement Spark functions
 * DuckDB lacks. Static storage.
 */
const char *weir__sql_session_setup(void);

/* ------------------------------------------------------------------------
 * Pipeline statements
 * ------------------------------------------------------------------------ */

typedef enum weir_sql_stmt_kind {
    WEIR_SQL_CREATE_MATERIALIZED_VIEW = 1,
    WEIR_SQL_CREATE_STREAMING_TABLE,
    WEIR_SQL_CREATE_VIEW,           /* persisted view */
    WEIR_SQL_CREATE_TEMPORARY_VIEW,
    WEIR_SQL_CREATE_FLOW,
    WEIR_SQL_CREATE_SINK,
    WEIR_SQL_SET,          /* SET key = value */
    WEIR_SQL_USE_CATALOG,  /* USE CATALOG c / SET CATALOG c */
    WEIR_SQL_USE_SCHEMA    /* USE [SCHEMA|DATABASE|NAMESPACE] [c.]d */
} weir_sql_stmt_kind;

typedef enum weir_sql_violation {
    WEIR_SQL_VIOLATION_WARN = 0, /* no ON VIOLATION clause */
    WEIR_SQL_VIOLATION_DROP,
    WEIR_SQL_VIOLATION_FAIL,
    WEIR_SQL_VIOLATION_QUARANTINE /* weir extension */
} weir_sql_violation;

typedef struct weir_sql_column {
    const char *name;
    const weir_sql_type *type;
    const char *type_text; /* as written */
    bool not_null;
    const char *comment; /* NULL if none */
    weir_sql_pos pos;
} weir_sql_column;

typedef struct weir_sql_constraint {
    const char *name;
    const weir_sql_expr *condition;
    const char *condition_text; /* Spark SQL as written, without parentheses */
    weir_sql_violation action;
    weir_sql_pos pos;
} weir_sql_constraint;

typedef struct weir_sql_property {
    const char *key;
    const char *value; /* normalised to a string: TRUE -> "true" */
    weir_sql_pos pos;
} weir_sql_property;

/* A column list of AUTO CDC: COLUMNS (a, b) / COLUMNS * EXCEPT (a, b), and
 * TRACK HISTORY ON the same shapes. Names keep their parts as written (a
 * qualified name is an error of the graph). */
typedef struct weir_sql_cdc_columns {
    bool set;    /* the clause is present (COLUMNS *: set, n 0, except) */
    bool except; /* * EXCEPT (...) */
    weir_sql_name *cols;
    size_t n;
    weir_sql_pos pos;
} weir_sql_cdc_columns;

/* How an AUTO CDC flow (APPLY CHANGES INTO) applies its source's changes
 * to its target (docs/auto-cdc.md). Front-end neutral: SQL and Python
 * both fill it; the graph validates it. Expressions are NULL when absent. */
typedef struct weir_sql_cdc {
    weir_sql_name *keys;
    size_t n_keys;
    weir_sql_pos keys_pos; /* KEYS, or the statement when absent */
    const weir_sql_expr *sequence_by;
    const weir_sql_expr *delete_when;   /* APPLY AS DELETE WHEN */
    const weir_sql_expr *truncate_when; /* APPLY AS TRUNCATE WHEN */
    bool ignore_null_updates;
    weir_sql_cdc_columns columns;
    weir_sql_cdc_columns track_history;
    int scd_type;          /* 1 or 2 (1 when not stored as) */
    bool scd_set;          /* STORED AS SCD TYPE given */
    weir_sql_pos pos;      /* AUTO CDC / APPLY CHANGES */
} weir_sql_cdc;

typedef struct weir_sql_stmt {
    weir_sql_stmt_kind kind;
    weir_sql_pos pos;     /* first token */
    size_t offset, len;   /* statement text in the source */
    const weir_sql_source *src;

    weir_sql_name name;   /* dataset, view, flow or sink; USE target */
    bool or_refresh;      /* CREATE OR REFRESH (Databricks form) */
    /* A Databricks spelling of the CREATE keywords ("CREATE OR REFRESH
     * LIVE TABLE"), with Spark's own ("CREATE MATERIALIZED VIEW"); NULL
     * when the statement is written as Spark writes it. */
    const char *create_written, *create_spark;
    bool is_private;      /* PRIVATE (Databricks form) */
    bool if_not_exists;

    weir_sql_column *columns;
    size_t n_columns;
    weir_sql_constraint *constraints;
    size_t n_constraints;
    const char *format; /* USING; NULL if absent */
    const char **partition_cols;
    size_t n_partition_cols;
    const char **cluster_cols;
    size_t n_cluster_cols;
    const char *comment;
    weir_sql_property *properties; /* TBLPROPERTIES */
    size_t n_properties;
    weir_sql_property *options;    /* CREATE SINK ... OPTIONS (...) */
    size_t n_options;

    const weir_sql_query *query; /* AS query; NULL if absent */

    /* CREATE FLOW */
    weir_sql_name target;
    bool once;
    /* AUTO CDC (CREATE FLOW ... AS AUTO CDC INTO, CREATE STREAMING TABLE
     * ... FLOW AUTO CDC, APPLY CHANGES INTO): query is SELECT * FROM the
     * source. NULL for other statements. */
    const weir_sql_cdc *cdc;

    /* SET */
    const char *set_key, *set_value;
} weir_sql_stmt;

/*
 * Parse every statement of a pipeline SQL file. The `LIVE.` prefix is
 * dropped from names. Each bad statement adds an error to diags (with its
 * class, e.g. PARSE_SYNTAX_ERROR, PIPELINE_SQL_GRAPH_ELEMENT_REGISTRATION_ERROR,
 * _LEGACY_ERROR_TEMP_0035, and its location) and is skipped; the others are
 * returned in order. Returns 0, or WEIR_ESQL when diags received errors.
 */
/*
 * Parse the clauses of an AUTO CDC flow after `AUTO CDC INTO target`
 * (FROM source KEYS ... SEQUENCE BY ...) from src[offset, offset + len):
 * *cdc and *query (SELECT * FROM source) live in arena. For front ends
 * other than SQL files (the C API, Python).
 */
int weir__sql_parse_cdc(const weir_sql_cdc **cdc, const weir_sql_query **query,
                        weir_arena *arena, const weir_sql_source *src,
                        size_t offset, size_t len, weir_error *err);

int weir__sql_parse_file(weir_sql_stmt **out, size_t *n_out,
                         weir_arena *arena, const weir_sql_source *src,
                         weir__diags *diags);

/* A table's columns as Spark DDL writes them, without the parentheses
 * ("id BIGINT, name STRING NOT NULL COMMENT 'x'"): the whole of src's text,
 * each column as CREATE TABLE reads it, into *out (arena). Errors
 * (WEIR_ESQL) at their place in src; WEIR_ENOMEM. */
int weir__sql_parse_columns(const weir_sql_column **out, size_t *n_out,
                            weir_arena *arena, const weir_sql_source *src,
                            weir_error *err);

#endif
