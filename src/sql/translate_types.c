/*
 * The result types of translated expressions and queries, where Spark's
 * rules need them: probes of expressions over the current scope (a
 * SELECT's FROM, a join's two sides: sql_scope, whose text is made here
 * once) through the resolver (which operands are DECIMALs, and of what
 * precision and scale), and Spark's analysis checks of a set operation's
 * inputs (column counts, compatible column types).
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "util/str.h"

/* DuckDB type text -> Spark's decimal view of it (see decimal_of). */
static void decimal_view(const char *ty, size_t len, int *p, int *s,
                         bool *integral)
{
    static const struct {
        const char *name;
        int digits;
    } INTS[] = { { "TINYINT", 3 }, { "SMALLINT", 5 }, { "INTEGER", 10 },
                 { "BIGINT", 20 } };
    *p = *s = -1;
    *integral = false;
    char buf[64];
    if (len >= sizeof(buf))
        return;
    memcpy(buf, ty, len);
    buf[len] = '\0';
    int pp, ss;
    if (sscanf(buf, "DECIMAL(%d,%d)", &pp, &ss) == 2 && pp >= 1 && pp <= 38 &&
        ss >= 0 && ss <= pp) {
        *p = pp;
        *s = ss;
        return;
    }
    for (size_t i = 0; i < sizeof(INTS) / sizeof(INTS[0]); i++)
        if (strcmp(buf, INTS[i].name) == 0) {
            *p = INTS[i].digits;
            *s = 0;
            *integral = true;
        }
}

void weir__sql_scope_init(sql_scope *s, const sql_rel *rel, int depth)
{
    memset(s, 0, sizeof(*s));
    s->rel = rel;
    s->text = (weir_buf)WEIR_BUF_INIT;
    s->rc = -1;
    s->depth = depth;
}

void weir__sql_scope_free(sql_scope *s)
{
    if (s)
        weir__buf_free(&s->text);
}

/* A join's ON scope: its two sides as already translated, joined on
 * nothing (the ON condition's columns are both sides', whatever the join;
 * a SEMI or ANTI JOIN would hide the right side's). */
static void join_text(sql_scope *s)
{
    const char *p = s->sides->ptr;
    weir__buf_put(&s->text, p + s->left[0], s->left[1] - s->left[0]);
    if (s->right[1] > s->right[0]) {
        weir__buf_puts(&s->text, " JOIN ");
        weir__buf_put(&s->text, p + s->right[0], s->right[1] - s->right[0]);
        weir__buf_puts(&s->text, " ON true");
    }
}

int weir__sql_scope_text(sql_tx *t)
{
    sql_scope *s = t->scope;
    if (!s)
        return 0;
    if (s->rc < 0) {
        if (s->sides) {
            join_text(s);
            s->rc = 0;
        } else {
            /* at the depth the SELECT translates it, so that the text
             * (or the failure) is the one it would make itself */
            int depth = t->depth;
            t->depth = s->depth;
            s->rc = weir__sql_tx_rel(t, &s->text, s->rel);
            t->depth = depth;
        }
        if (!s->rc && s->text.failed)
            s->rc = WEIR_ERR(t->err, WEIR_ENOMEM, NULL, "out of memory");
        if (s->rc) {
            s->failure = weir__arena_alloc(t->arena, sizeof(*s->failure));
            if (s->failure)
                *s->failure = *t->err;
        }
        return s->rc;
    }
    if (s->rc && s->failure)
        *t->err = *s->failure;
    else if (s->rc)
        WEIR_ERR(t->err, WEIR_ENOMEM, NULL, "out of memory");
    return s->rc;
}

/* The types of "SELECT <list> FROM <the scope's relation>", one per line. */
static bool probe_types(sql_tx *t, const char *const *x_sql, size_t n,
                        weir_buf *types)
{
    if (!t->resolver || !t->resolver->expr_type || t->lambdas)
        return false;
    /* A FROM that does not translate is the query's error, not a probe's. */
    weir_error saved = *t->err;
    int rc = weir__sql_scope_text(t);
    *t->err = saved;
    if (rc)
        return false;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT ");
    for (size_t i = 0; i < n; i++)
        weir__buf_printf(&q, "%s%s", i ? ", " : "", x_sql[i]);
    if (t->scope) {
        weir__buf_puts(&q, " FROM ");
        weir__buf_put(&q, t->scope->text.ptr, t->scope->text.len);
    }
    bool ok = !q.failed &&
              t->resolver->expr_type(t->resolver->payload, weir__buf_cstr(&q),
                                     types) == 0 && !types->failed;
    weir__buf_free(&q);
    return ok;
}

bool weir__sql_tx_types(sql_tx *t, const char *const *x_sql, size_t n,
                        weir_buf *types)
{
    weir_arena a = WEIR_ARENA_INIT;
    const char **wrapped = weir__arena_array(&a, n ? n : 1, sizeof(*wrapped));
    for (size_t i = 0; wrapped && i < n; i++) {
        wrapped[i] = weir__arena_printf(&a, "(%s)", x_sql[i]);
        if (!wrapped[i])
            wrapped = NULL;
    }
    bool ok = wrapped && probe_types(t, wrapped, n, types);
    weir__arena_free(&a);
    return ok;
}

bool weir__sql_tx_is_struct(sql_tx *t, const weir_sql_expr *e)
{
    if (!t->resolver || !t->resolver->expr_type)
        return false;
    weir_error saved = *t->err;
    weir_buf x = WEIR_BUF_INIT, types = WEIR_BUF_INIT;
    int rc = weir__sql_tx_expr(t, &x, e);
    *t->err = saved;
    const char *xs = weir__buf_cstr(&x);
    bool is = !rc && !x.failed && weir__sql_tx_types(t, &xs, 1, &types) &&
              strncmp(weir__buf_cstr(&types), "STRUCT(", 7) == 0;
    weir__buf_free(&x);
    weir__buf_free(&types);
    return is;
}

static bool has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; *s; s++)
        if (weir__str_ieqn(s, w, n))
            return true;
    return false;
}

/* Whether an operand, as DuckDB SQL, can only be of a DECIMAL type when a
 * column of the FROM is: names (qualified too), integer literals, and
 * + - * % and parentheses over them. A function call, cast, subquery or
 * literal of another kind needs the probe. */
static bool plain_operand(const char *x)
{
    bool after_name = false;
    for (const char *c = x; *c;) {
        unsigned char ch = (unsigned char)*c;
        if (isdigit(ch)) {
            while (isdigit((unsigned char)*c))
                c++;
            if (isalpha((unsigned char)*c) || *c == '.' || *c == '_')
                return false; /* 1.5, 1e3, 10L */
            after_name = false;
        } else if (isalpha(ch) || ch == '_' || ch == '"') {
            const char *w = c;
            while (isalnum((unsigned char)*c) || *c == '_' || *c == '"' || *c == '.')
                c++;
            if (weir__str_ieqn(w, "decimal", 7) || weir__str_ieqn(w, "select", 6))
                return false;
            after_name = true;
        } else if (ch == '(') {
            if (after_name)
                return false; /* a call */
            c++;
        } else if (strchr(" )+-*%", ch)) {
            after_name = after_name && ch == ' ';
            c++;
        } else {
            return false;
        }
    }
    return true;
}

/* Whether relation r has a DECIMAL column, from the types the resolver
 * knows for its tables: 1 no, 2 yes, 0 unknown (a table the resolver
 * cannot type, a CTE, a subquery, a table-valued function). */
static int known_decimals(sql_tx *t, const sql_rel *r)
{
    if (!r || !t->resolver->relation_types)
        return 0;
    if (r->kind == R_JOIN) {
        int a = known_decimals(t, r->left);
        int b = a ? known_decimals(t, r->right) : 0;
        return a && b ? (a == 2 || b == 2 ? 2 : 1) : 0;
    }
    if (r->kind != R_TABLE ||
        (r->name.n == 1 && weir__sql_cte_lookup(t->ctes, r->name.parts[0], NULL)))
        return 0;
    weir_sql_relref ref = { r->name, r->streaming, r };
    weir_buf types = WEIR_BUF_INIT;
    int known = 0;
    if (t->resolver->relation_types(t->resolver->payload, &ref, &types) == 0 &&
        !types.failed)
        known = has_word(weir__buf_cstr(&types), "DECIMAL") ? 2 : 1;
    weir__buf_free(&types);
    return known;
}

/* No operand can be a DECIMAL: they are plain and the scope has no DECIMAL
 * column (known from the resolver's types of its tables, else one probe
 * per scope), so the types DuckDB gives are Spark's and the operator
 * needs no probe of its own. */
static bool no_decimals(sql_tx *t, const char *const *x_sql, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!plain_operand(x_sql[i]))
            return false;
    sql_scope *sc = t->scope;
    if (!sc)
        return true;
    if (!sc->decimals && t->resolver && !t->lambdas)
        sc->decimals = known_decimals(t, sc->rel);
    if (!sc->decimals) {
        weir_buf types = WEIR_BUF_INIT;
        const char *star = "*";
        bool ok = probe_types(t, &star, 1, &types);
        sc->decimals = ok && !types.failed &&
                               !has_word(weir__buf_cstr(&types), "DECIMAL")
                           ? 1
                           : 2;
        weir__buf_free(&types);
    }
    return sc->decimals == 1;
}

bool weir__sql_tx_decimal_of(sql_tx *t, const char *const *x_sql, size_t n,
                             int *p, int *s, bool *integral)
{
    if (no_decimals(t, x_sql, n))
        return false;
    weir_buf type = WEIR_BUF_INIT;
    bool ok = weir__sql_tx_types(t, x_sql, n, &type);
    const char *at = ok ? weir__buf_cstr(&type) : "";
    for (size_t i = 0; ok && i < n; i++) {
        size_t len = strcspn(at, "\n");
        ok = len > 0;
        decimal_view(at, len, &p[i], &s[i], &integral[i]);
        at += len + (at[len] == '\n');
    }
    weir__buf_free(&type);
    return ok;
}

/* Spark's coarse type families for set operations: inputs in different
 * families have no common type (INCOMPATIBLE_COLUMN_TYPE); within one,
 * and for strings and NULLs, Spark finds a wider type. */
static int type_family(const char *ty)
{
    static const char *const NUM[] = { "TINYINT", "SMALLINT", "INTEGER", "BIGINT",
                                       "HUGEINT", "FLOAT", "DOUBLE", "DECIMAL",
                                       "UTINYINT", "USMALLINT", "UINTEGER",
                                       "UBIGINT" };
    size_t n = strlen(ty);
    if (n >= 2 && strcmp(ty + n - 2, "[]") == 0)
        return 1; /* array */
    if (weir__str_istarts(ty, "STRUCT("))
        return 2;
    if (weir__str_istarts(ty, "MAP("))
        return 3;
    if (strcmp(ty, "BOOLEAN") == 0)
        return 4;
    if (strcmp(ty, "DATE") == 0 || weir__str_istarts(ty, "TIMESTAMP"))
        return 5;
    if (strcmp(ty, "BLOB") == 0)
        return 6;
    if (weir__str_istarts(ty, "INTERVAL"))
        return 7;
    for (size_t i = 0; i < sizeof(NUM) / sizeof(NUM[0]); i++)
        if (weir__str_istarts(ty, NUM[i]))
            return 8;
    if (strcmp(ty, "VARCHAR") == 0)
        return 9;
    return 0; /* NULL and anything else: not judged */
}

static bool families_compatible(const char *a, const char *b)
{
    int fa = type_family(a), fb = type_family(b);
    /* a string meets any atomic type (Spark casts it); not a complex one */
    if ((fa == 9 && fb > 3) || (fb == 9 && fa > 3))
        return true;
    if (!fa || !fb || fa == fb) {
        if (fa == 1 && fb == 1) { /* arrays: compare the elements */
            char ea[256], eb[256];
            size_t na = strlen(a) - 2, nb = strlen(b) - 2;
            if (na >= sizeof(ea) || nb >= sizeof(eb))
                return true;
            memcpy(ea, a, na);
            ea[na] = '\0';
            memcpy(eb, b, nb);
            eb[nb] = '\0';
            return families_compatible(ea, eb);
        }
        return true;
    }
    return false;
}

static void put_ordinal(weir_buf *out, size_t n)
{
    static const char *const WORDS[] = { "first", "second", "third", "fourth",
                                         "fifth", "sixth", "seventh", "eighth",
                                         "ninth", "tenth" };
    if (n >= 1 && n <= 10) {
        weir__buf_puts(out, WORDS[n - 1]);
        return;
    }
    const char *suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                         : n % 10 == 1                   ? "st"
                         : n % 10 == 2                   ? "nd"
                         : n % 10 == 3                   ? "rd"
                                                         : "th";
    weir__buf_printf(out, "%zu%s", n, suffix);
}

static void put_spark_type(weir_buf *out, const char *duck, size_t len)
{
    weir_buf d = WEIR_BUF_INIT, s = WEIR_BUF_INIT;
    weir__buf_put(&d, duck, len);
    weir__sql_duckdb_type_to_spark(&s, weir__buf_cstr(&d));
    /* Spark's SQL form: keywords upper case, field names as they are,
     * "MAP<INT, INT>", "STRUCT<x: INT>" */
    for (size_t i = 0; i < s.len; i++) {
        size_t j = i;
        while (j < s.len && (s.ptr[j] == '_' || (s.ptr[j] >= 'a' && s.ptr[j] <= 'z') ||
                             (s.ptr[j] >= 'A' && s.ptr[j] <= 'Z') ||
                             (s.ptr[j] >= '0' && s.ptr[j] <= '9')))
            j++;
        if (j > i) {
            bool field = j < s.len && s.ptr[j] == ':';
            for (size_t k = i; k < j; k++)
                weir__buf_putc(out, (char)(!field && s.ptr[k] >= 'a' && s.ptr[k] <= 'z'
                                               ? s.ptr[k] - 'a' + 'A'
                                               : s.ptr[k]));
            i = j - 1;
            continue;
        }
        weir__buf_putc(out, s.ptr[i]);
        if (s.ptr[i] == ',' || s.ptr[i] == ':')
            weir__buf_putc(out, ' ');
    }
    weir__buf_free(&d);
    weir__buf_free(&s);
}

static bool null_column(const weir_sql_query *q, size_t col);

/* Whether select item col is an untyped NULL: the literal, or a column of
 * (or `*` over) a lone subquery or VALUES in FROM whose column is one
 * (`SELECT d FROM VALUES (NULL) AS t(d)`). */
static bool null_item(const sql_select *sel, size_t col)
{
    const sql_rel *r = sel->from;
    const weir_sql_expr *e = NULL;
    if (sel->n_items == 1 && sel->items[0].e->kind == EX_STAR &&
        !sel->items[0].e->n) {
        e = sel->items[0].e;
    } else {
        if (col >= sel->n_items)
            return false;
        e = sel->items[col].e;
    }
    if (e->kind == EX_LIT)
        return e->lit == LIT_NULL;
    if (!r || r->kind != R_SUBQUERY || !r->query)
        return false;
    if (e->kind == EX_STAR)
        return null_column(r->query, col);
    if (e->kind != EX_COLUMN || !e->n_names || e->n_names > 2)
        return false;
    const char *name = e->names[e->n_names - 1];
    for (size_t i = 0; i < r->n_col_aliases; i++)
        if (weir__str_ieq(r->col_aliases[i], name))
            return null_column(r->query, i);
    return false;
}

/* Whether column col of q is an untyped NULL (weir types it INTEGER,
 * Spark void: it takes the other input's type). */
static bool null_column(const weir_sql_query *q, size_t col)
{
    if (!q)
        return false;
    switch (q->kind) {
    case Q_SELECT:
        return null_item(q->sel, col);
    case Q_VALUES:
        for (size_t i = 0; i < q->n_rows; i++)
            if (col < q->rows[i].n && q->rows[i].v[col]->kind == EX_LIT &&
                q->rows[i].v[col]->lit == LIT_NULL)
                return true;
        return false;
    case Q_SETOP:
        return q->setop ? null_column(q->left, col) && null_column(q->right, col)
                        : null_column(q->left, col);
    }
    return false;
}

/* Spark checks a set operation's inputs at analysis: the same number of
 * columns (NUM_COLUMNS_MISMATCH) and column types with a common type
 * (INCOMPATIBLE_COLUMN_TYPE); DuckDB would cast (an INT and a DATE fail
 * only when rows are cast) or word it its own way. Inputs the resolver
 * cannot type alone (they read CTEs of an outer WITH or outer columns)
 * are left to DuckDB. */
int weir__sql_tx_check_setop(sql_tx *t, const weir_sql_query *q,
                             const char *left, size_t left_len,
                             const char *right, size_t right_len)
{
    if (!t->resolver || !t->resolver->expr_type || t->lambdas)
        return 0;
    weir_buf lq = WEIR_BUF_INIT, rq = WEIR_BUF_INIT;
    weir_buf lt = WEIR_BUF_INIT, rt = WEIR_BUF_INIT;
    weir__buf_put(&lq, left, left_len);
    weir__buf_put(&rq, right, right_len);
    int rc = 0;
    bool typed = !lq.failed && !rq.failed &&
                 t->resolver->expr_type(t->resolver->payload, weir__buf_cstr(&lq),
                                        &lt) == 0 &&
                 t->resolver->expr_type(t->resolver->payload, weir__buf_cstr(&rq),
                                        &rt) == 0 &&
                 !lt.failed && !rt.failed;
    const char *op = weir__str_ieq(q->setop, "MINUS") ? "EXCEPT" : q->setop;
    size_t nl = 0, nr = 0;
    for (size_t i = 0; typed && i < lt.len; i++)
        nl += lt.ptr[i] == '\n';
    for (size_t i = 0; typed && i < rt.len; i++)
        nr += rt.ptr[i] == '\n';
    if (typed && nl != nr) {
        rc = WEIR_ESQL;
        weir__error_set(t->err, WEIR_ESQL, "NUM_COLUMNS_MISMATCH", __FILE__,
                        __LINE__,
                        "%s can only be performed on inputs with the same "
                        "number of columns, but the first input has %zu "
                        "columns and the second input has %zu columns.",
                        op, nl + 1, nr + 1);
        if (q->src)
            weir__sql_error_at(t->err, q->src, q->pos);
    }
    const char *a = lt.ptr, *b = rt.ptr;
    for (size_t col = 1; typed && !rc && *a && *b; col++) {
        size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
        char ta[256], tb[256];
        if (na < sizeof(ta) && nb < sizeof(tb)) {
            memcpy(ta, a, na);
            ta[na] = '\0';
            memcpy(tb, b, nb);
            tb[nb] = '\0';
            if (!null_column(q->left, col - 1) && !null_column(q->right, col - 1) &&
                !families_compatible(ta, tb)) {
                weir_buf m = WEIR_BUF_INIT;
                weir__buf_printf(&m, "%s can only be performed on tables with "
                                     "compatible column types. The ", op);
                put_ordinal(&m, col);
                weir__buf_puts(&m, " column of the second table is \"");
                put_spark_type(&m, tb, nb);
                weir__buf_puts(&m, "\" type which is not compatible with \"");
                put_spark_type(&m, ta, na);
                weir__buf_puts(&m, "\" at the same column of the first table.");
                weir__error_set(t->err, WEIR_ESQL, "INCOMPATIBLE_COLUMN_TYPE",
                                __FILE__, __LINE__, "%s", weir__buf_cstr(&m));
                weir__buf_free(&m);
                if (q->src)
                    weir__sql_error_at(t->err, q->src, q->pos);
                rc = WEIR_ESQL;
            }
        }
        a += na + (a[na] == '\n');
        b += nb + (b[nb] == '\n');
    }
    weir__buf_free(&lq);
    weir__buf_free(&rq);
    weir__buf_free(&lt);
    weir__buf_free(&rt);
    return rc;
}
