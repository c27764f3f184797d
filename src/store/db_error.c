/*
 * DuckDB's errors as weir errors (see db.h): the one place where a DuckDB
 * message ("Binder Error: ...", "Catalog Error: ...") becomes a Spark error
 * class and a message in weir's words. DuckDB's own wording (its error
 * types, "Did you mean", lists of candidate functions, tuning advice about
 * SET statements the user cannot run) never reaches the user for the error
 * types in RULES; other types (I/O errors naming files and the operating
 * system's message, transaction conflicts) keep DuckDB's text. httpfs's
 * errors are http_error.c's.
 */
#include "db.h"

#include <stdio.h>
#include <string.h>

#include "sql/sql.h"
#include "store/http_error.h"
#include "util/str.h"

typedef struct rule {
    const char *type;     /* DuckDB's error type, as its messages start */
    const char *contains; /* in the text after it, or NULL for any */
    bool (*also)(const char *detail); /* a further condition, or NULL */
    const char *cls;      /* Spark error class */
    bool in_sql;          /* an error in the user's SQL (not the engine's) */
    /* weir's message from DuckDB's (detail: after the type, first line
     * or all lines); NULL: the detail without DuckDB's suggestions */
    void (*say)(weir_buf *out, const char *detail, const char *memory_limit);
} rule;

/* ---- helpers ------------------------------------------------------------ */

/* The text between the first open and the next close after from, or "". */
static void between(char *out, size_t size, const char *from, char open,
                    char close)
{
    out[0] = '\0';
    const char *a = from ? strchr(from, open) : NULL;
    const char *b = a ? strchr(a + 1, close) : NULL;
    if (!b)
        return;
    size_t n = (size_t)(b - a - 1);
    if (n >= size)
        n = size - 1;
    memcpy(out, a + 1, n);
    out[n] = '\0';
}

/* The word after marker (up to a blank or '!'), or "". */
static void word_after(char *out, size_t size, const char *detail,
                       const char *marker)
{
    out[0] = '\0';
    const char *p = strstr(detail, marker);
    if (!p)
        return;
    p += strlen(marker);
    size_t n = strcspn(p, " !\n\t");
    if (n >= size)
        n = size - 1;
    memcpy(out, p, n);
    out[n] = '\0';
    if (n >= 2 && out[0] == '"' && out[n - 1] == '"') {
        memmove(out, out + 1, n - 2);
        out[n - 2] = '\0';
    }
}

static void first_line(weir_buf *out, const char *detail)
{
    weir__buf_put(out, detail, strcspn(detail, "\n"));
}

/* All of detail but DuckDB's suggestions and tuning advice. */
static void put_detail(weir_buf *out, const char *detail)
{
    static const char *const noise[] = { "Did you mean", "Candidate",
                                         "Possible solutions", "See also",
                                         "* ", "\t" };
    bool first = true;
    for (const char *p = detail; *p;) {
        size_t n = strcspn(p, "\n");
        bool skip = n == 0;
        for (size_t i = 0; !skip && i < sizeof(noise) / sizeof(noise[0]); i++)
            skip = strncmp(p, noise[i], strlen(noise[i])) == 0;
        if (!skip) {
            if (!first)
                weir__buf_putc(out, ' ');
            weir__buf_put(out, p, n);
            first = false;
        }
        p += n;
        if (*p == '\n')
            p++;
    }
}

/* "name(T1, T2)" of DuckDB's "No function matches ... 'name(T1, T2)'". */
typedef struct call_sig {
    char name[128];
    char args[8][160];
    size_t n;
} call_sig;

static bool parse_sig(call_sig *s, const char *detail)
{
    memset(s, 0, sizeof(*s));
    const char *q = strstr(detail, "argument types '");
    if (!q)
        return false;
    q += strlen("argument types '");
    const char *open = strchr(q, '(');
    if (!open || (size_t)(open - q) >= sizeof(s->name))
        return false;
    memcpy(s->name, q, (size_t)(open - q));
    int depth = 0;
    size_t len = 0;
    for (const char *p = open + 1; *p && *p != '\''; p++) {
        if (depth == 0 && (*p == ',' || *p == ')')) {
            if (len && s->n < 8)
                s->n++;
            len = 0;
            if (*p == ')')
                break;
            continue;
        }
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        if (s->n < 8 && (len || *p != ' ') && len + 1 < sizeof(s->args[0])) {
            s->args[s->n][len++] = *p;
            s->args[s->n][len] = '\0';
        }
    }
    return s->name[0] != '\0';
}

static bool is_operator(const char *name)
{
    for (const char *p = name; *p; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9') || *p == '_')
            return false;
    return true;
}

/* A DuckDB argument type in Spark's words ("INTEGER_LITERAL" is a literal
 * of type INTEGER). */
static void put_type(weir_buf *out, const char *duck)
{
    char t[160];
    weir__str_copy(t, sizeof(t), duck);
    size_t n = strlen(t);
    if (n > 8 && strcmp(t + n - 8, "_LITERAL") == 0)
        t[n - 8] = '\0';
    if (strcmp(t, "STRING") == 0)
        weir__str_copy(t, sizeof(t), "VARCHAR");
    weir__buf_putc(out, '"');
    weir__sql_duckdb_type_to_spark(out, t);
    weir__buf_putc(out, '"');
}

static bool binary_operator_call(const char *detail)
{
    call_sig s;
    return parse_sig(&s, detail) && is_operator(s.name) && s.n == 2;
}

/* "Table with name t already exists!", "View with name v ..." */
static bool table_or_view(const char *detail)
{
    return weir__str_starts(detail, "Table with name") ||
           weir__str_starts(detail, "View with name");
}

/* "Schema with name s already exists!" */
static bool schema_named(const char *detail)
{
    return weir__str_starts(detail, "Schema with name");
}

/* ---- messages ----------------------------------------------------------- */

static void say_column(weir_buf *out, const char *detail, const char *unused)
{
    (void)unused;
    char name[256];
    between(name, sizeof(name), detail, '"', '"');
    weir__buf_printf(out,
                     "A column, variable, or function parameter with name "
                     "`%s` cannot be resolved.",
                     name);
    const char *c = strstr(detail, "Candidate bindings: ");
    if (c) {
        c += strlen("Candidate bindings: ");
        weir__buf_puts(out, " Columns in scope: ");
        for (; *c && *c != '\n'; c++)
            weir__buf_putc(out, *c == '"' ? '`' : *c);
        weir__buf_putc(out, '.');
    }
}

/* Does the name part at c (up to end) stand for a relation weir made up,
 * a DataFrame's derived table _pN or a join side's row __weir_sN, followed
 * by a further part? Spark's candidates never show those. */
static bool internal_qualifier(const char *c, const char *end)
{
    const char *dot = memchr(c, '.', (size_t)(end - c));
    if (!dot)
        return false;
    const char *d = c;
    if (dot - c > 2 && c[0] == '_' && c[1] == 'p')
        d = c + 2;
    else if (dot - c > 8 && strncmp(c, "__weir_s", 8) == 0)
        d = c + 8;
    else
        return false;
    while (d < dot && *d >= '0' && *d <= '9')
        d++;
    return d == dot;
}

/* 'Ambiguous reference to column name "c" (use: "a.c" or "b.c")': Spark's
 * AMBIGUOUS_REFERENCE, the candidates as `a`.`c` (weir's own derived
 * tables left out: `_p1`.`c` is `c`). */
static void say_ambiguous(weir_buf *out, const char *detail, const char *unused)
{
    (void)unused;
    char name[256];
    between(name, sizeof(name), detail, '"', '"');
    weir__buf_printf(out, "Reference `%s` is ambiguous, could be: [", name);
    const char *p = strstr(detail, "(use: ");
    const char *end = p ? strchr(p, ')') : NULL;
    for (int n = 0; p && end && (p = strchr(p, '"')) && p < end; n++) {
        const char *q = strchr(p + 1, '"');
        if (!q || q > end)
            break;
        weir__buf_puts(out, n ? ", `" : "`");
        const char *c = p + 1;
        while (internal_qualifier(c, q))
            c = strchr(c, '.') + 1;
        for (; c < q; c++) {
            if (*c == '.')
                weir__buf_puts(out, "`.`");
            else if (*c == '`')
                weir__buf_puts(out, "``");
            else
                weir__buf_putc(out, *c);
        }
        weir__buf_putc(out, '`');
        p = q + 1;
    }
    weir__buf_puts(out, "].");
}

/* '... "t" does not have a column named "c"' */
static void say_no_column(weir_buf *out, const char *detail,
                          const char *unused)
{
    (void)unused;
    char rel[256], col[256];
    between(rel, sizeof(rel), detail, '"', '"');
    const char *named = strstr(detail, "column named ");
    between(col, sizeof(col), named, '"', '"');
    weir__buf_printf(out,
                     "A column, variable, or function parameter with name "
                     "`%s`.`%s` cannot be resolved.",
                     rel, col);
}

/* 'Column "y" does not exist on left side of join!' */
static void say_using(weir_buf *out, const char *detail, const char *unused)
{
    (void)unused;
    char col[256];
    between(col, sizeof(col), detail, '"', '"');
    weir__buf_printf(out,
                     "USING column `%s` cannot be resolved on the %s side of "
                     "the join.",
                     col, strstr(detail, "right side") ? "right" : "left");
}

/* 'Could not find key "b" in struct' */
static void say_field(weir_buf *out, const char *detail, const char *unused)
{
    (void)unused;
    char key[256];
    between(key, sizeof(key), detail, '"', '"');
    weir__buf_printf(out, "No such struct field `%s`.", key);
}

static void say_table(weir_buf *out, const char *detail, const char *unused)
{
    (void)unused;
    char name[256];
    word_after(name, sizeof(name), detail, "with name ");
    weir__buf_printf(out,
                     "The table or view `%s` cannot be found. Verify the "
                     "spelling and correctness of the schema and catalog.",
                     name);
}

static void say_exists(weir_buf *out, const char *detail, const char *unused)
{
    (void)unused;
    char name[256];
    word_after(name, sizeof(name), detail, "with name ");
    weir__buf_printf(out,
                     "Cannot create table or view `%s` because it already "
                     "exists. Choose a different name, drop or replace the "
                     "existing object, or add the IF NOT EXISTS clause to "
                     "tolerate pre-existing objects.",
                     name);
}

static void say_schema_exists(weir_buf *out, const char *detail,
                              const char *unused)
{
    (void)unused;
    char name[256];
    word_after(name, sizeof(name), detail, "with name ");
    weir__buf_printf(out,
                     "Cannot create schema `%s` because it already exists. "
                     "Choose a different name, drop the existing schema, or "
                     "add the IF NOT EXISTS clause to tolerate pre-existing "
                     "schema.",
                     name);
}

static void say_tvf(weir_buf *out, const char *detail, const char *unused)
{
    (void)unused;
    char name[256];
    word_after(name, sizeof(name), detail, "with name ");
    weir__buf_printf(out, "Could not resolve `%s` to a table-valued function.",
                     name);
}

static void say_routine(weir_buf *out, const char *detail, const char *unused)
{
    (void)unused;
    char name[256];
    word_after(name, sizeof(name), detail, "with name ");
    weir__buf_printf(out,
                     "Cannot resolve routine `%s`: no function of that name "
                     "exists.",
                     name);
}

static void say_binary_op(weir_buf *out, const char *detail,
                          const char *unused)
{
    (void)unused;
    call_sig s;
    parse_sig(&s, detail);
    weir__buf_printf(out,
                     "Cannot resolve the binary operator %s due to data type "
                     "mismatch: its left and right operands have incompatible "
                     "types (",
                     s.name);
    put_type(out, s.args[0]);
    weir__buf_puts(out, " and ");
    put_type(out, s.args[1]);
    weir__buf_puts(out, ").");
}

static void say_call_types(weir_buf *out, const char *detail,
                           const char *unused)
{
    (void)unused;
    call_sig s;
    if (!parse_sig(&s, detail)) {
        weir__buf_puts(out, "No function matches the given argument types.");
        return;
    }
    weir__buf_printf(out, "%s `%s` cannot take arguments of types (",
                     is_operator(s.name) ? "Operator" : "Function", s.name);
    for (size_t i = 0; i < s.n; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        put_type(out, s.args[i]);
    }
    weir__buf_puts(out, "); cast them to the types it expects.");
}

static void say_depth(weir_buf *out, const char *detail, const char *unused)
{
    (void)detail;
    (void)unused;
    weir__buf_puts(out, "Query nested too deeply.");
}

static void say_memory(weir_buf *out, const char *detail,
                       const char *memory_limit)
{
    size_t n = strcspn(detail, "\n");
    const char *advice = strstr(detail, "Possible solutions");
    if (advice && (size_t)(advice - detail) < n)
        n = (size_t)(advice - detail);
    while (n && (detail[n - 1] == ' ' || detail[n - 1] == '.'))
        n--;
    weir__buf_puts(out, "DuckDB ran out of memory: ");
    weir__buf_put(out, detail, n);
    if (memory_limit)
        weir__buf_printf(out,
                         ". The memory limit is %s, set by "
                         "weir.duckdb.memory_limit in the spec's "
                         "configuration: raise it (or lower "
                         "weir.duckdb.threads).",
                         memory_limit);
    else
        weir__buf_puts(out, ". Set weir.duckdb.memory_limit in the spec's "
                            "configuration to give it more (or lower "
                            "weir.duckdb.threads).");
}

static void say_internal(weir_buf *out, const char *detail, const char *unused)
{
    (void)unused;
    weir__buf_puts(out, "The SQL engine failed internally: ");
    first_line(out, detail);
}

/* Most specific first: the first rule whose type and conditions match. */
static const rule RULES[] = {
    { "Binder Error: ", "Referenced column", NULL,
      "UNRESOLVED_COLUMN.WITH_SUGGESTION", true, say_column },
    { "Binder Error: ", "does not have a column named", NULL,
      "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", true, say_no_column },
    { "Binder Error: ", "No function matches the given name and argument types",
      binary_operator_call, "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES", true,
      say_binary_op },
    { "Binder Error: ", "No function matches the given name and argument types",
      NULL, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", true, say_call_types },
    { "Binder Error: ", "Ambiguous reference to column name", NULL,
      "AMBIGUOUS_REFERENCE", true, say_ambiguous },
    { "Binder Error: ", "side of join", NULL, "UNRESOLVED_USING_COLUMN_FOR_JOIN",
      true, say_using },
    { "Binder Error: ", "Could not find key", NULL, "FIELD_NOT_FOUND", true,
      say_field },
    { "Binder Error: ", NULL, NULL, "ANALYSIS_ERROR", true, NULL },
    { "Catalog Error: ", "already exists", table_or_view,
      "TABLE_OR_VIEW_ALREADY_EXISTS", true, say_exists },
    { "Catalog Error: ", "already exists", schema_named,
      "SCHEMA_ALREADY_EXISTS", true, say_schema_exists },
    { "Catalog Error: ", "Table with name", NULL, "TABLE_OR_VIEW_NOT_FOUND",
      true, say_table },
    { "Catalog Error: ", "Table Function with name", NULL,
      "UNRESOLVABLE_TABLE_VALUED_FUNCTION", true, say_tvf },
    { "Catalog Error: ", "Function with name", NULL, "UNRESOLVED_ROUTINE", true,
      say_routine },
    { "Catalog Error: ", NULL, NULL, "ANALYSIS_ERROR", true, NULL },
    { "Parser Error: ", "expression depth", NULL, "PARSE_SYNTAX_ERROR", true,
      say_depth },
    { "Parser Error: ", NULL, NULL, "PARSE_SYNTAX_ERROR", true, NULL },
    { "Conversion Error: ", NULL, NULL, "CAST_INVALID_INPUT", false, NULL },
    { "Invalid Input Error: ", "Invalid unicode", NULL, "INVALID_UTF8_STRING",
      false, NULL },
    { "Invalid Input Error: ", NULL, NULL, "INVALID_INPUT", false, NULL },
    { "Out of Memory Error: ", NULL, NULL, "UNABLE_TO_ACQUIRE_MEMORY", false,
      say_memory },
    { "INTERNAL Error: ", NULL, NULL, "INTERNAL_ERROR", false, say_internal },
    { "IO Error: ", "No files found", NULL, "PATH_NOT_FOUND", false, NULL },
};

static const rule *find_rule(const char *msg, const char **detail)
{
    for (size_t i = 0; i < sizeof(RULES) / sizeof(RULES[0]); i++) {
        const rule *r = &RULES[i];
        const char *at = strstr(msg, r->type);
        if (!at)
            continue;
        const char *d = at + strlen(r->type);
        if (r->contains && !strstr(d, r->contains))
            continue;
        if (r->also && !r->also(d))
            continue;
        *detail = d;
        return r;
    }
    return NULL;
}

/* DuckDB's message without the excerpt of the (translated) SQL it points
 * into: "LINE 1: ..." and the caret line mean nothing to the user, whose
 * SQL weir rewrote. A line quoted from data (a huge CSV or JSON line) is
 * cut, so the rest of the message (which names the file) survives. */
static void without_excerpt(char *clean, size_t size, const char *msg)
{
    size_t o = 0;
    size_t line_len = 0;
    for (const char *p = msg; *p && o + 1 < size; p++) {
        line_len = *p == '\n' ? 0 : line_len + 1;
        if (line_len == 240) {
            const char *eol = strchr(p, '\n');
            size_t rest = eol ? (size_t)(eol - p) : strlen(p);
            if (rest > 40) {
                int n = snprintf(clean + o, size - o, "... (%zu more bytes)",
                                 rest);
                o += n > 0 && (size_t)n < size - o ? (size_t)n : 0;
                p += rest - 1;
                continue;
            }
        }
        if (*p == '\n' && strncmp(p + 1, "LINE ", 5) == 0) {
            const char *q = strchr(p + 1, '\n');
            q = q ? strchr(q + 1, '\n') : NULL;
            if (!q)
                break;
            p = q - 1;
            continue;
        }
        clean[o++] = *p;
    }
    while (o && (clean[o - 1] == '\n' || clean[o - 1] == ' '))
        o--;
    clean[o] = '\0';
}

int weir__db_error(weir_error *err, const char *what, const char *msg,
                   const char *memory_limit)
{
    if (!msg)
        msg = "unknown DuckDB error";
    char clean[1536];
    without_excerpt(clean, sizeof(clean), msg);
    int http = weir__http_error(err, what, clean);
    if (http)
        return http;
    const char *detail = NULL;
    const rule *r = find_rule(clean, &detail);
    if (!r)
        return WEIR_ERR(err, WEIR_EENGINE, NULL, "%s%s", what, clean);
    const char *cls = r->cls;
    char own[96] = "";
    /* weir's Spark-function macros raise "[CLASS] message" */
    if (detail[0] == '[') {
        size_t n = strcspn(detail + 1, "] \n");
        if (detail[1 + n] == ']' && n < sizeof(own)) {
            memcpy(own, detail + 1, n);
            own[n] = '\0';
            cls = own;
            detail += n + 2;
            while (*detail == ' ')
                detail++;
        }
    }
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_puts(&b, what);
    /* text before DuckDB's type (weir's context, e.g. "cannot open X: ") */
    const char *type_at = strstr(clean, r->type);
    weir__buf_put(&b, clean, (size_t)(type_at - clean));
    if (r->say && !own[0])
        r->say(&b, detail, memory_limit);
    else
        put_detail(&b, detail);
    int rc = WEIR_ERR(err, WEIR_EENGINE, cls, "%s",
                      b.failed ? "out of memory" : weir__buf_cstr(&b));
    weir__buf_free(&b);
    return rc;
}

bool weir__db_error_in_sql(const weir_error *err)
{
    if (!err || err->code != WEIR_EENGINE || !err->error_class[0])
        return false;
    for (size_t i = 0; i < sizeof(RULES) / sizeof(RULES[0]); i++)
        if (RULES[i].in_sql && strcmp(RULES[i].cls, err->error_class) == 0)
            return true;
    return false;
}
