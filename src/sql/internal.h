/*
 * Private to src/sql: tokens, the arena AST of Spark queries and
 * expressions, the parser state shared by the parse_*.c files, and the
 * internal entry points of the translator. Nothing outside src/sql includes
 * this header; the rest of weir sees only sql.h.
 */
#ifndef WEIR_SQL_INTERNAL_H
#define WEIR_SQL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sql.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

/* Deeper nesting than this is an error, so hostile input cannot exhaust the
 * stack. */
#define SQL_MAX_DEPTH 500

/* ------------------------------------------------------------------------
 * Tokens
 * ------------------------------------------------------------------------ */

typedef enum sql_tok_kind {
    TK_EOF = 0,
    TK_IDENT,  /* word; text = as written */
    TK_QIDENT, /* `backticked`; text = decoded */
    TK_STRING, /* '..' or "..": text = decoded (escapes processed) */
    TK_NUMBER, /* text = as written, suffix included */
    TK_BINARY, /* X'..': text = the hex digits */
    TK_OP      /* punctuation/operator; text = as written */
} sql_tok_kind;

typedef struct sql_token {
    sql_tok_kind kind;
    unsigned off, len; /* raw span in the source text */
    unsigned line, col;
    const char *text; /* NUL-terminated, arena */
} sql_token;

typedef struct sql_tokens {
    sql_token *items; /* items[n] is TK_EOF */
    size_t n;
} sql_tokens;

/* Lex src->text[offset, offset+len) into tokens (in arena). The first byte
 * is at line/col start_line/start_col (pass 0 to compute them). Comments
 * (including hints) are skipped. */
int weir__sql_lex(sql_tokens *out, weir_arena *arena, const weir_sql_source *src,
                  size_t offset, size_t len, weir_error *err);
/* Position (line, column) of offset in src. */
weir_sql_pos weir__sql_pos_of(const weir_sql_source *src, size_t offset);
/* Decode a Spark string literal body (between the quotes) into arena. */
char *weir__sql_unescape(weir_arena *arena, const char *s, size_t n);

/* ------------------------------------------------------------------------
 * Types
 * ------------------------------------------------------------------------ */

typedef enum sql_type_kind {
    TY_STRING = 1, TY_BIGINT, TY_INT, TY_SMALLINT, TY_TINYINT, TY_DOUBLE,
    TY_FLOAT, TY_DECIMAL, TY_BOOLEAN, TY_DATE, TY_TIMESTAMP, TY_TIMESTAMP_NTZ,
    TY_BINARY, TY_ARRAY, TY_MAP, TY_STRUCT, TY_INTERVAL, TY_VOID, TY_VARIANT
} sql_type_kind;

typedef struct sql_field {
    const char *name;
    const weir_sql_type *type;
    bool not_null;
    const char *comment;
} sql_field;

struct weir_sql_type {
    sql_type_kind kind;
    int precision, scale;          /* DECIMAL */
    int length;                    /* VARCHAR(n)/CHAR(n), informational */
    const weir_sql_type *elem;     /* ARRAY element, MAP key */
    const weir_sql_type *value;    /* MAP value */
    sql_field *fields;             /* STRUCT */
    size_t n_fields;
};

/* ------------------------------------------------------------------------
 * AST
 * ------------------------------------------------------------------------ */

typedef struct sql_rel sql_rel;
typedef struct sql_window sql_window;

typedef enum sql_expr_kind {
    EX_COLUMN = 1, /* names: parts (a.b.c) */
    EX_STAR,       /* names: qualifier; list: EXCEPT columns (EX_COLUMN);
                      op: "REPLACE"/"RENAME" when the select's later items
                      are its pairs (parse_query.c star_form) */
    EX_LIT,
    EX_UNARY,      /* op: "-" "+" "NOT" "~" ; a */
    EX_BINARY,     /* op normalised: + - * / % div || = <> < <= > >= <=> AND
                      OR & | ^ ; a, b */
    EX_FUNC,       /* name; list: args; names: arg names (NULL = positional) */
    EX_CASE,       /* a: operand or NULL; list: when,then,... ; b: else */
    EX_CAST,       /* a; type; flag: TRY_CAST */
    EX_IN,         /* a; list or query; negated */
    EX_EXISTS,     /* query; negated */
    EX_SUBQUERY,   /* scalar subquery */
    EX_BETWEEN,    /* a BETWEEN b AND c; negated */
    EX_LIKE,       /* op: LIKE ILIKE RLIKE; a, b; c = ESCAPE; negated;
                      quant: ANY/ALL with list */
    EX_IS,         /* op: NULL TRUE FALSE UNKNOWN DISTINCT; a (b); negated */
    EX_LAMBDA,     /* names: params; a: body */
    EX_SUBSCRIPT,  /* a[b] */
    EX_FIELD,      /* a.name (after a non-column expression) */
    EX_INTERVAL,   /* list: values; names: units (NULL for a plain string) */
    EX_TUPLE,      /* (a, b, ...) */
    EX_EXTRACT,    /* EXTRACT(field FROM a): name = field */
    EX_TRIM,       /* op: BOTH LEADING TRAILING; a: string; b: chars or NULL */
    EX_POSITION    /* POSITION(a IN b) */
} sql_expr_kind;

typedef enum sql_lit_kind {
    LIT_NULL = 1, LIT_BOOL, LIT_INT, LIT_BIGINT, LIT_SMALLINT, LIT_TINYINT,
    LIT_DECIMAL, LIT_DOUBLE, LIT_FLOAT, LIT_BIGDECIMAL, LIT_STRING, LIT_BINARY,
    LIT_DATE, LIT_TIMESTAMP, LIT_TIMESTAMP_NTZ
} sql_lit_kind;

typedef struct sql_order {
    weir_sql_expr *e;
    int dir;   /* 0 unspecified, 1 ASC, 2 DESC */
    int nulls; /* 0 unspecified, 1 FIRST, 2 LAST */
} sql_order;

typedef struct sql_bound {
    int kind; /* 1 UNBOUNDED PRECEDING, 2 n PRECEDING, 3 CURRENT ROW,
                 4 n FOLLOWING, 5 UNBOUNDED FOLLOWING */
    weir_sql_expr *n;
} sql_bound;

struct sql_window {
    const char *ref;          /* named window this one builds on, or NULL */
    weir_sql_expr **partition;
    size_t n_partition;
    sql_order *order;
    size_t n_order;
    int frame;                /* 0 none, 1 ROWS, 2 RANGE */
    sql_bound start, end;     /* end.kind == 0: single bound */
    weir_sql_pos pos;
};

struct weir_sql_expr {
    sql_expr_kind kind;
    weir_sql_pos pos;
    unsigned end; /* byte offset just past the expression */
    const weir_sql_source *src;
    const char *op;
    const char *name;
    bool negated, distinct, flag;
    int ignore_nulls; /* 0 unspecified, 1 IGNORE NULLS, 2 RESPECT NULLS */
    sql_lit_kind lit;
    const char *text; /* literal text (decoded string / number as written) */
    weir_sql_expr *a, *b, *c;
    weir_sql_expr **list;
    size_t n;
    const char **names;
    size_t n_names;
    weir_sql_query *query;
    const weir_sql_type *type;
    const char *type_text;
    sql_window *over;         /* OVER (...) or OVER w */
    weir_sql_expr *filter;    /* aggregate FILTER (WHERE ...) */
    sql_order *within;        /* WITHIN GROUP (ORDER BY ...) */
    size_t n_within;
    const char *quant;        /* LIKE ANY / ALL / SOME */
    int height;               /* levels of expressions below (fin sets it) */
};

typedef struct sql_item {
    weir_sql_expr *e;
    const char *alias;    /* NULL if none */
    const char **aliases; /* AS (a, b) for generators */
    size_t n_aliases;
    weir_sql_pos pos;
} sql_item;

typedef struct sql_named_window {
    const char *name;
    sql_window *w;
} sql_named_window;

typedef enum sql_group_kind {
    GB_NONE = 0, GB_EXPRS, GB_ALL, GB_ROLLUP, GB_CUBE, GB_SETS
} sql_group_kind;

typedef struct sql_group_set {
    weir_sql_expr **e;
    size_t n;
} sql_group_set;

typedef struct sql_select {
    bool distinct;
    sql_item *items;
    size_t n_items;
    sql_rel *from; /* NULL if no FROM */
    weir_sql_expr *where;
    sql_group_kind group;
    weir_sql_expr **group_by; /* EXPRS/ROLLUP/CUBE; also plain exprs before */
    size_t n_group_by;
    sql_group_set *sets; /* GROUPING SETS */
    size_t n_sets;
    weir_sql_expr *having;
    sql_named_window *windows;
    size_t n_windows;
    weir_sql_expr *qualify;
    weir_sql_pos pos;
} sql_select;

typedef struct sql_cte {
    const char *name;
    const char **cols;
    size_t n_cols;
    weir_sql_query *q;
    weir_sql_pos pos;
} sql_cte;

typedef struct sql_row {
    weir_sql_expr **v;
    size_t n;
} sql_row;

typedef enum sql_query_kind { Q_SELECT = 1, Q_SETOP, Q_VALUES } sql_query_kind;

struct weir_sql_query {
    sql_query_kind kind;
    weir_sql_pos pos;
    unsigned end;
    const weir_sql_source *src;
    sql_cte *ctes;
    size_t n_ctes;
    bool recursive;
    sql_select *sel;                 /* Q_SELECT */
    const char *setop;               /* Q_SETOP: UNION INTERSECT EXCEPT */
    bool all;                        /* UNION ALL ... */
    bool by_name;                    /* UNION [ALL] BY NAME */
    weir_sql_query *left, *right;
    sql_row *rows;                   /* Q_VALUES */
    size_t n_rows;
    sql_order *order;                /* ORDER BY / SORT BY */
    size_t n_order;
    weir_sql_expr **distribute;      /* DISTRIBUTE BY / CLUSTER BY */
    size_t n_distribute;
    weir_sql_expr *limit, *offset;
    weir_sql_pos limit_pos;
};

typedef enum sql_rel_kind {
    R_TABLE = 1, R_TVF, R_SUBQUERY, R_JOIN, R_LATERAL_VIEW
} sql_rel_kind;

typedef enum sql_join_kind {
    J_INNER = 1, J_LEFT, J_RIGHT, J_FULL, J_CROSS, J_SEMI, J_ANTI, J_COMMA
} sql_join_kind;

struct sql_rel {
    sql_rel_kind kind;
    weir_sql_pos pos;
    const char *alias;
    const char **col_aliases;
    size_t n_col_aliases;
    /* R_TABLE */
    weir_sql_name name;
    bool streaming;
    weir_sql_expr *wm_col, *wm_delay; /* WATERMARK col DELAY OF interval */
    /* R_TVF: call holds name, args (for resolvers); exprs for translation */
    weir_sql_tvf *call;
    weir_sql_expr **args;
    const char **arg_names;
    size_t n_args;
    /* R_SUBQUERY */
    weir_sql_query *query;
    bool lateral;
    /* R_JOIN */
    sql_join_kind join;
    bool natural;
    sql_rel *left, *right;
    weir_sql_expr *on;
    const char **using_cols;
    size_t n_using;
    /* R_LATERAL_VIEW: left is the relation; gen the generator call */
    weir_sql_expr *gen;
    bool outer;
};

/* ------------------------------------------------------------------------
 * Parser
 * ------------------------------------------------------------------------ */

typedef struct sql_parser {
    weir_arena *arena;
    const weir_sql_source *src;
    sql_token *t;
    size_t n, i;
    weir_error *err;
    int depth;
    /* An error Spark raises after the statement parsed (its AST builder:
     * INVALID_IDENTIFIER, DUPLICATE_KEY, a property without a value): the
     * first one, reported once the statement is known to be well formed,
     * so that a syntax error later in it wins as in Spark. */
    bool has_deferred;
    weir_error deferred;
    /* Tokens where a keyword-led form failed to parse once (NULL until
     * then): the word is then read as a name without parsing the form
     * again, so that the retries stay linear (CASE WHEN CASE WHEN ..). */
    unsigned char *special_failed;
} sql_parser;

int weir__sql_parser_init(sql_parser *p, weir_arena *arena,
                          const weir_sql_source *src, size_t offset, size_t len,
                          weir_error *err);

/* Grow an arena array of elem-sized items to hold n + 1 (copying). Returns
 * the (possibly new) array or NULL on OOM. */
void *weir__sql_grow(weir_arena *a, void *items, size_t *cap, size_t n,
                     size_t elem);
/* Accept '>' where a type closes (splitting '>>'). */
bool weir__sql_accept_close_angle(sql_parser *p);

/* Token helpers (parse_util.c). */
const sql_token *weir__sql_peek(const sql_parser *p, size_t k);
bool weir__sql_is_kw(const sql_parser *p, size_t k, const char *kw);
bool weir__sql_is_op(const sql_parser *p, size_t k, const char *op);
bool weir__sql_accept_kw(sql_parser *p, const char *kw);
bool weir__sql_accept_op(sql_parser *p, const char *op);
int weir__sql_expect_kw(sql_parser *p, const char *kw);
int weir__sql_expect_op(sql_parser *p, const char *op);
int weir__sql_syntax_error(sql_parser *p); /* at the current token */
int weir__sql_error_tok(sql_parser *p, const sql_token *t, int code,
                        const char *cls, const char *fmt, ...) WEIR_PRINTF(5, 6);
weir_sql_pos weir__sql_tok_pos(const sql_token *t);
/*
 * Identifiers. Spark's own keyword classes (keywords.inc, generated from
 * the pinned pyspark) decide what a word may name: in Spark's default mode
 * every keyword, except that the strict-non-reserved ones (JOIN, LEFT, ..)
 * are no table alias; with reserved_keywords (ANSI) the reserved ones
 * nothing. On top of that a recursive-descent parser must not read a word
 * that starts the next clause (FROM, WHERE, JOIN ..) as an implicit alias
 * or a bare column: weir__sql_clause_word.
 *
 * weir__sql_at_name: a name where the grammar wants one (after AS, a
 * dataset, CTE, flow, column or field name, after a dot).
 * weir__sql_at_ident: a name in an ambiguous position (implicit alias, the
 * start of an expression): also not a clause word.
 * weir__sql_at_table_alias: a table alias (Spark's strictIdentifier).
 * weir__sql_at_end_of_item: the token ends an item (EOF, ',', ')', ';',
 * FROM): a keyword before it is a name (SELECT from FROM t, FROM values).
 */
bool weir__sql_at_name(const sql_parser *p, size_t k);
const char *weir__sql_name_part(sql_parser *p); /* NULL + syntax error */
const char *weir__sql_ident(sql_parser *p);     /* NULL + syntax error */
bool weir__sql_at_ident(const sql_parser *p, size_t k);
bool weir__sql_at_table_alias(const sql_parser *p, size_t k);
bool weir__sql_at_end_of_item(const sql_parser *p, size_t k);
bool weir__sql_clause_word(const char *word);
/* word is one of Spark's keywords that the current mode reserves. */
bool weir__sql_word_reserved(const sql_parser *p, const char *word);
/* Record an error Spark raises after parsing (the first one wins), and
 * raise the recorded one: 0 when none. */
void weir__sql_defer_error(sql_parser *p, const sql_token *t, const char *cls,
                           const char *fmt, ...) WEIR_PRINTF(4, 5);
int weir__sql_raise_deferred(sql_parser *p);
/* A dotted name (1+ parts). */
int weir__sql_parse_name(weir_sql_name *out, sql_parser *p);
/* Drop a leading LIVE part of a 2+ part name. */
void weir__sql_strip_live(weir_sql_name *name);
/* Offset just past the previous token. */
unsigned weir__sql_prev_end(const sql_parser *p);
/* A string literal (with adjacent ones concatenated), or NULL + error. */
const char *weir__sql_string(sql_parser *p);

/* Expression-parser pieces shared by parse_expr.c, parse_primary.c and
 * parse_special.c. */
void *weir__sql_oom(sql_parser *p);
weir_sql_expr *weir__sql_new_expr(sql_parser *p, sql_expr_kind k,
                                  const sql_token *at);
weir_sql_expr *weir__sql_fin(sql_parser *p, weir_sql_expr *e);
bool weir__sql_push_expr(sql_parser *p, weir_sql_expr ***list, size_t *n,
                         size_t *cap, weir_sql_expr *e);
bool weir__sql_push_name(sql_parser *p, const char ***list, size_t *n,
                         size_t *cap, const char *s);
bool weir__sql_paren_query(const sql_parser *p, size_t k);
weir_sql_expr *weir__sql_string_lit(sql_parser *p, const sql_token *t,
                                    sql_lit_kind kind);
weir_sql_expr *weir__sql_postfix(sql_parser *p, weir_sql_expr *e);
weir_sql_expr *weir__sql_value(sql_parser *p); /* below the predicates */
/* An operand with its postfix chain (parse_primary.c). */
weir_sql_expr *weir__sql_primary(sql_parser *p);
/* A binary operator at k: a keyword before one is a column (limit + 1). */
bool weir__sql_at_binary_op(const sql_parser *p, size_t k);
/* A keyword-led primary at t; *handled false if t is a plain identifier. */
weir_sql_expr *weir__sql_parse_special(sql_parser *p, const sql_token *t,
                                       bool *handled);

/* Expressions and queries (parse_expr.c, parse_query.c). */
weir_sql_expr *weir__sql_expr(sql_parser *p);
weir_sql_query *weir__sql_query(sql_parser *p);
/* SELECT * FROM <one relation> (TABLE t, AUTO CDC ... FROM source); the
 * query starts at token at (NULL: the relation). */
weir_sql_query *weir__sql_relation_query(sql_parser *p, const sql_token *at);
/* A comma-separated list of expressions (1+). */
int weir__sql_expr_list(weir_sql_expr ***out, size_t *n, sql_parser *p);
int weir__sql_window_spec(sql_window **out, sql_parser *p);
int weir__sql_order_list(sql_order **out, size_t *n, sql_parser *p);
/* A Spark type at the current token. */
int weir__sql_type(const weir_sql_type **out, sql_parser *p);
/* A parenthesised or bare identifier list: (a, b). */
int weir__sql_ident_list(const char ***out, size_t *n, sql_parser *p);
/* Struct fields "a INT, b STRING" up to the end of the tokens or ')' / '>'. */
int weir__sql_field_list(sql_field **out, size_t *n, sql_parser *p, bool colon);

/* ------------------------------------------------------------------------
 * Translation
 * ------------------------------------------------------------------------ */

typedef struct sql_lambda_scope {
    const char **params;
    size_t n;
    bool indexed; /* (x, i) -> : i is 0-based in Spark, 1-based in DuckDB */
    struct sql_lambda_scope *up;
    const char *const *subst; /* DuckDB text per parameter, or NULL */
} sql_lambda_scope;

/* A CTE name in scope, one frame per CTE of a WITH, linked to the frames
 * before it: a one-part table reference to a name in scope reads that CTE,
 * not a table. Each CTE sees the ones before it (and itself when the WITH
 * is RECURSIVE). reads.c and the translator share these rules through
 * weir__sql_cte_enter and weir__sql_cte_lookup; the remaining fields serve the translator, which
 * inlines a CTE read once as a subquery (DuckDB binds a long WITH list in
 * quadratic time and memory, and nested subqueries in linear). */
typedef struct sql_cte_scope {
    const char *name;
    const struct sql_cte_scope *up;
    const weir_sql_query *with; /* the query whose WITH defines it */
    const sql_cte *cte;
    bool inlined;               /* references paste text */
    weir_buf text;              /* the CTE's query in DuckDB SQL */
    unsigned depth;             /* bracket depth of text */
} sql_cte_scope;

/* The innermost frame named name, or NULL. *crossed (may be NULL) tells
 * whether the search passed frames of another WITH first. */
/* Frame f for CTE i of q's WITH, below up (the frames of the CTEs before
 * it, then the outer scope); f is cleared first. Returns the scope CTE i's
 * own query is read in: f when the WITH is RECURSIVE, else up. */
const sql_cte_scope *weir__sql_cte_enter(sql_cte_scope *f, const weir_sql_query *q,
                                         size_t i, const sql_cte_scope *up);
const sql_cte_scope *weir__sql_cte_lookup(const sql_cte_scope *s,
                                          const char *name, bool *crossed);

/* For each CTE of q (not RECURSIVE): how often q reads it (later CTEs,
 * the body and subqueries, shadowing respected) into refs[i], and whether
 * it must stay a CTE for DuckDB (read from inside a nested WITH, whose
 * names could capture its own; or read with column aliases while it has
 * its own) into keep[i]. Returns 0 or WEIR_ENOMEM. */
int weir__sql_cte_refs(const weir_sql_query *q, unsigned *refs, bool *keep);

/* What the expressions being translated are evaluated over, for the
 * probes of their types (translate_types.c): the FROM of a SELECT (its
 * clauses, ORDER BY and LIMIT), or the two sides of a join (its ON
 * condition), or the relation a LATERAL VIEW extends (its generator). Its
 * DuckDB text is made once, on the first probe, and every later probe and
 * the SELECT itself reuse it (or its error): a probe never translates a
 * FROM again, so translation stays linear in the query. Parts of a FROM
 * (table function arguments, VALUES rows), a set operation's ORDER BY and
 * a query's CTEs have no scope (sql_tx.scope NULL). */
typedef struct sql_scope {
    const sql_rel *rel;   /* whose columns are in reach */
    weir_buf text;        /* rel's DuckDB text, once made */
    int rc;               /* -1 not made yet, 0 made, else the failure's code */
    weir_error *failure;  /* that failure (arena), replayed, not made again */
    int depth;            /* sql_tx.depth rel is translated at */
    /* A join's ON: text is left JOIN right ON true, from the two sides'
     * translations already in *sides (its byte ranges); NULL: rel is
     * translated. */
    const weir_buf *sides;
    size_t left[2], right[2]; /* right[0] == right[1]: no right side */
    int decimals;         /* whether a column of rel is a DECIMAL: 0 not
                             known yet, 1 no, 2 yes or unknown */
} sql_scope;

typedef struct sql_tx {
    const weir_sql_resolver *resolver;
    weir_error *err;
    weir_arena *arena;
    int depth;
    bool unqualify;                  /* translate_expr: drop qualifiers */
    const sql_select *sel;           /* for named windows */
    sql_scope *scope;                /* probes' relation; NULL: none */
    /* A function's argument translated already (to learn its type) and
     * its text: weir__sql_tx_expr pastes the text instead of translating
     * the argument again, so that nested calls stay linear. */
    const weir_sql_expr *done;
    const char *done_text;
    const weir_sql_expr *time_window;/* window(...) of the GROUP BY */
    bool sliding;                    /* ... and it slides: each row is in
                                        several windows, which the FROM
                                        yields as __weir_sw.__weir_window */
    const weir_sql_expr *session;    /* session_window(...) of the GROUP BY:
                                        the FROM yields each row's session
                                        (session_window.c) */
    sql_lambda_scope *lambdas;
    const sql_cte_scope *ctes;
    int open; /* inside a subquery expression, a join's right side or a
                 LATERAL subquery: outer columns are in reach */
    /* Hidden columns of the table functions of the innermost SELECT's
     * FROM (resolver->tvf_hidden), by the alias they are read under: a
     * `*` over them leaves them out. */
    struct {
        const char *alias, *column;
    } hidden[8];
    size_t n_hidden;
    size_t hidden_base; /* the innermost SELECT's entries start here */
    /* Spark's session time zone (timezone.c): zone_id as configured (NULL:
     * UTC), zone its DuckDB form, NULL when it is UTC or an offset of 0. */
    const char *zone_id, *zone;
} sql_tx;

/* The relation of t's scope (the FROM of the innermost SELECT when its
 * clauses are translated), or NULL. */
static inline const sql_rel *weir__sql_tx_from(const sql_tx *t)
{
    return t->scope ? t->scope->rel : NULL;
}
/* A scope over rel, its text made when first needed. */
void weir__sql_scope_init(sql_scope *s, const sql_rel *rel, int depth);
void weir__sql_scope_free(sql_scope *s);
/* The text of t's scope, made on first use: 0, or the code of the failure
 * to translate it, with *t->err set to that failure (every time). */
int weir__sql_scope_text(sql_tx *t);

int weir__sql_tx_query(sql_tx *t, weir_buf *out, const weir_sql_query *q);
int weir__sql_tx_expr(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
int weir__sql_tx_error(sql_tx *t, weir_sql_pos pos, const weir_sql_source *src,
                       const char *fmt, ...) WEIR_PRINTF(4, 5);
/* The body of lambda e with its parameters replaced by DuckDB texts. */
int weir__sql_tx_lambda_body(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                             const char *const *subst, size_t n_subst);
int weir__sql_tx_window(sql_tx *t, weir_buf *out, const sql_window *w,
                        const weir_sql_expr *at);
int weir__sql_tx_order(sql_tx *t, weir_buf *out, const sql_order *o, size_t n);
/* A lambda argument; indexed: its 2nd parameter is Spark's 0-based index. */
int weir__sql_tx_lambda(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                        bool indexed);
/* The DuckDB types (translate_types.c) of the n translated expressions
 * x_sql evaluated over the current scope (sql_scope), when the resolver can
 * tell: each one's precision and scale into p[i], s[i] (a DECIMAL, or an
 * integral type as the DECIMAL(n,0) Spark widens it to, integral[i] set),
 * or -1 for another type. False when the expressions cannot be typed. */
bool weir__sql_tx_decimal_of(sql_tx *t, const char *const *x_sql, size_t n,
                             int *p, int *s, bool *integral);
/* The DuckDB types of the n translated expressions over the current
 * scope, one a line, appended to types; false when the resolver
 * cannot tell (no probe, or they do not bind). */
bool weir__sql_tx_types(sql_tx *t, const char *const *x_sql, size_t n,
                        weir_buf *types);
/* Whether e, over the current scope, is of a STRUCT type (false when the
 * resolver cannot tell). */
bool weir__sql_tx_is_struct(sql_tx *t, const weir_sql_expr *e);
/* The name r's rows are read under: its alias, else a table's last name
 * part, else fallback (translate_from.c). */
const char *weir__sql_rel_name(const sql_rel *r, const char *fallback);
/* Whether name is the alias (or the unaliased name) of a relation in r. */
bool weir__sql_tx_is_relation(const sql_rel *r, const char *name);
/* A FROM relation (translate_from.c): a table, table-valued function,
 * subquery, join or LATERAL VIEW with its alias. */
int weir__sql_tx_rel(sql_tx *t, weir_buf *out, const sql_rel *r);
/* An inline table q as (VALUES ...) AS alias(cols), Spark's col1..n when
 * there are no column aliases (n == 0); alias NULL: a generated one. */
int weir__sql_tx_values_rel(sql_tx *t, weir_buf *out, const weir_sql_query *q,
                            const char *alias, const char *const *cols,
                            size_t n);
/* Spark's analysis checks of set operation q (translate_types.c): the
 * translated inputs left and right have as many columns, of compatible
 * types (NUM_COLUMNS_MISMATCH, INCOMPATIBLE_COLUMN_TYPE); 0 when they do
 * or cannot be typed, else WEIR_ESQL with the error set. */
int weir__sql_tx_check_setop(sql_tx *t, const weir_sql_query *q,
                             const char *left, size_t left_len,
                             const char *right, size_t right_len);
/* A Java regular expression as RE2 into out (regex.c); nonzero with the
 * construct RE2 lacks in *bad (text in bad_buf) when it cannot be. */
int weir__sql_java_regex(weir_buf *out, const char *pattern, const char **bad,
                         char *bad_buf, size_t bad_size);
/* e with its regex argument (index arg) converted from Java's syntax when
 * it is a string literal: e itself, a copy in t's arena, or NULL with the
 * error set (the construct and the location). */
const weir_sql_expr *weir__sql_tx_regex_arg(sql_tx *t, const weir_sql_expr *e,
                                            size_t arg);
/* A function call (functions.c). */
int weir__sql_tx_func(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
/* Whether window call e slides (a slide other than its duration). */
bool weir__sql_window_slides(const weir_sql_expr *e);
/* The windows of a sliding window() call e over its row, for the FROM:
 * ", LATERAL (SELECT unnest(...) AS __weir_window) AS __weir_sw"
 * (fn_custom.c). */
int weir__fn_sliding_windows(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
/* Session windows (session_window.c): the session_window() call s is
 * grouped by (NULL: none); the first call of function name (e.g.
 * "session_window", "window") in s's select items; the FROM of
 * a SELECT grouped by one, over from (the FROM's text), read under the
 * relation's name with each row's session as __weir_session; Spark's
 * filter of the rows a session_window() call e keeps. */
const weir_sql_expr *weir__sql_grouped_session(const sql_select *s);
const weir_sql_expr *weir__sql_row_call(const sql_select *s, const char *name);
int weir__sql_session_from(sql_tx *t, weir_buf *out, const sql_select *s,
                           const weir_buf *from);
int weir__sql_session_filter(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
/* Is name an aggregate function Spark knows (for shape facts)? */
bool weir__sql_is_aggregate(const char *name);
bool weir__sql_is_generator(const char *name);
/* A generator in a select list or LATERAL VIEW: appends the DuckDB select
 * items (e.g. unnest(x) AS "col") using aliases (may be NULL). */
int weir__sql_tx_generator(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                           const char *const *aliases, size_t n_aliases);
/* Spark's auto-generated column name for e (toPrettySQL). */
/* Spark's generated name of e, an expression of a SELECT over from (NULL:
 * none): src/sql/pretty.c, the one rule. */
void weir__sql_pretty(weir_buf *out, const weir_sql_expr *e, const sql_rel *from);
/* The same in the translator: types it can probe name a struct's fields. */
void weir__sql_tx_pretty(sql_tx *t, weir_buf *out, const weir_sql_expr *e);
/* What pretty.c knows while naming an expression: the FROM whose relations
 * qualify columns, and the parameters of the lambdas it is inside. */
typedef struct sql_pretty {
    const sql_rel *from;
    const char *const *lambda;
    size_t n_lambda;
    const struct sql_pretty *up;
    /* Whether e is of a STRUCT type, when the translator can tell (NULL:
     * never known): Spark names s['x'] of a struct s.x. */
    bool (*is_struct)(void *ctx, const weir_sql_expr *e);
    void *ctx;
} sql_pretty;
void weir__sql_pretty_expr(weir_buf *out, const weir_sql_expr *e, int depth,
                           const sql_pretty *c);
/* ... OVER (...) of a window call e, with Spark's default frame. */
void weir__sql_pretty_window(weir_buf *out, const weir_sql_expr *e, int depth,
                             const sql_pretty *c);
/* A function call (pretty_fn.c). */
void weir__sql_pretty_call(weir_buf *out, const weir_sql_expr *e, int depth,
                           const sql_pretty *c);
/* A literal; an interval literal (pretty_lit.c). */
void weir__sql_pretty_lit(weir_buf *out, const weir_sql_expr *e);
void weir__sql_pretty_interval(weir_buf *out, const weir_sql_expr *e);
/* Spark datetime pattern -> strftime (parse: strptime) format; false and
 * the offending letters in bad if not convertible. */
bool weir__sql_datetime_format(weir_buf *out, const char *pattern, bool parse,
                               char *bad, size_t bad_size);
/* Spark DDL schema text ("a INT, b STRING" or a type) -> DuckDB JSON
 * structure for from_json. */
int weir__sql_json_structure(weir_buf *out, const weir_sql_type *t);
int weir__sql_parse_schema(const weir_sql_type **out, weir_arena *arena,
                           const char *text, weir_error *err);
/* The session time zone (timezone.c). Set t's zone from a Spark zone id
 * (NULL: UTC); INVALID_CONF_VALUE.TIME_ZONE when it is no zone id. */
int weir__sql_tx_set_zone(sql_tx *t, const char *id, weir_error *err);
/* The zone as a SQL string literal ('UTC' when there is none). */
void weir__sql_tz_put_zone(const sql_tx *t, weir_buf *out);
/* SQL of a date, timestamp or string as the wall clock of the session
 * zone (a TIMESTAMP: its fields, its date); sql itself in UTC. */
void weir__sql_tz_wall(const sql_tx *t, weir_buf *out, const char *sql);
/* A TIMESTAMP instant as the zone's wall clock, and back (an instant from
 * a wall clock, Java's rules in gaps and overlaps); as is in UTC. */
void weir__sql_tz_local(const sql_tx *t, weir_buf *out, const char *ts);
void weir__sql_tz_utc(const sql_tx *t, weir_buf *out, const char *wall);
/* CAST(sql AS TIMESTAMP) with Spark's rules: strings without an offset
 * and dates are read in the zone. */
void weir__sql_tz_instant(const sql_tx *t, weir_buf *out, const char *sql,
                          bool try_cast);
/* Refuse what makes a TIMESTAMP_NTZ outside UTC (0 in UTC). */
int weir__sql_tz_refuse_ntz(sql_tx *t, weir_sql_pos pos,
                            const weir_sql_source *src, const char *what);
/* What e (translated: sql) is, for the wrappers: 'T' a timestamp, 'D' a
 * date, 'S' a string, 'O' something else, '?' unknown (not a literal or a
 * cast, and the resolver cannot type it). */
char weir__sql_tz_kind(sql_tx *t, const weir_sql_expr *e, const char *sql);
/* An operand that Spark casts to a string (||, concat): a timestamp as
 * the zone's wall clock. */
void weir__sql_tz_text(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                       const char *sql);
/* A string or date literal compared with other: a timestamp in the zone
 * when other is a timestamp. */
void weir__sql_tz_compared(sql_tx *t, weir_buf *out, const weir_sql_expr *other,
                           const char *other_sql, const weir_sql_expr *lit,
                           const char *lit_sql);
/* Statement-level parse for weir query (stmt.c). */
void weir__sql_put_name(weir_buf *out, const weir_sql_name *n);

#endif
