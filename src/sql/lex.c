/*
 * The Spark SQL lexer: turns a span of source text into tokens with their
 * positions. It follows Spark's default lexing: '..' and ".." are both
 * string literals with backslash escapes (and '' / "" doubling), R'..' raw
 * strings, `..` identifiers with `` doubling, nested bracketed comments, --
 * comments, numbers with Spark's type suffixes (L S Y D F BD), X'..'
 * binary literals and the operator set of SqlBaseLexer.
 */
#include "internal.h"

#include <string.h>

#include "util/str.h"

static bool is_ident_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c >= 0x80;
}

static bool is_ident_char(unsigned char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

int weir__sql_source_index(weir_sql_source *src, weir_arena *arena)
{
    size_t n = 1;
    for (const char *p = src->text, *end = src->text + src->len;
         (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        n++;
    size_t *starts = weir__arena_array(arena, n, sizeof(*starts));
    if (!starts)
        return WEIR_ENOMEM;
    size_t k = 0;
    starts[k++] = 0;
    for (size_t i = 0; i < src->len; i++)
        if (src->text[i] == '\n')
            starts[k++] = i + 1;
    src->line_starts = starts;
    src->n_lines = n;
    return 0;
}

/* The start of the line holding offset, and that line's number. */
static size_t line_of(const weir_sql_source *src, size_t offset,
                      unsigned *line)
{
    if (src->line_starts && src->n_lines) {
        size_t lo = 0, hi = src->n_lines; /* starts[lo] <= offset */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (src->line_starts[mid] <= offset)
                lo = mid;
            else
                hi = mid;
        }
        *line = (unsigned)lo + 1;
        return src->line_starts[lo];
    }
    size_t line_start = 0;
    *line = 1;
    for (size_t i = 0; i < offset; i++) {
        if (src->text[i] == '\n') {
            (*line)++;
            line_start = i + 1;
        }
    }
    return line_start;
}

weir_sql_pos weir__sql_pos_of(const weir_sql_source *src, size_t offset)
{
    weir_sql_pos pos = { (unsigned)offset, 1, 1 };
    if (offset > src->len)
        offset = src->len;
    size_t line_start = line_of(src, offset, &pos.line);
    for (size_t i = line_start; i < offset; i++)
        if (((unsigned char)src->text[i] & 0xC0) != 0x80)
            pos.column++;
    return pos;
}

void weir__sql_error_at(weir_error *err, const weir_sql_source *src,
                        weir_sql_pos pos)
{
    if (!err || !src)
        return;
    if (src->at_path) {
        weir__error_at(err, src->at_path, src->at_line, 0);
        err->line_text[0] = '\0';
        return;
    }
    if (!src->line_starts) {
        weir__error_at_offset(err, src->path, src->text, src->len,
                              pos.offset);
        return;
    }
    size_t offset = pos.offset > src->len ? src->len : pos.offset;
    weir_sql_pos at = weir__sql_pos_of(src, offset);
    size_t start = line_of(src, offset, &at.line), end = offset;
    while (end < src->len && src->text[end] != '\n')
        end++;
    weir__error_at(err, src->path, at.line, at.column);
    weir__error_set_line_text(err, src->text + start, end - start);
}

static void put_utf8(char **o, unsigned long cp)
{
    char *p = *o;
    if (cp < 0x80) {
        *p++ = (char)cp;
    } else if (cp < 0x800) {
        *p++ = (char)(0xC0 | (cp >> 6));
        *p++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *p++ = (char)(0xE0 | (cp >> 12));
        *p++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *p++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x110000) {
        *p++ = (char)(0xF0 | (cp >> 18));
        *p++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *p++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *p++ = (char)(0x80 | (cp & 0x3F));
    }
    *o = p;
}

/* Spark's unescapeSQLString on the body of a literal. */
char *weir__sql_unescape(weir_arena *arena, const char *s, size_t n)
{
    char *out = weir__arena_alloc(arena, n + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c != '\\' || i + 1 >= n) {
            *o++ = c;
            continue;
        }
        char d = s[++i];
        if (d == 'u' && i + 4 < n) {
            unsigned long cp = 0;
            int ok = 1;
            for (int k = 1; k <= 4; k++) {
                int h = weir__str_hex_value(s[i + (size_t)k]);
                if (h < 0) {
                    ok = 0;
                    break;
                }
                cp = cp * 16 + (unsigned long)h;
            }
            if (ok) {
                i += 4;
                /* A surrogate pair written as two escapes. */
                if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < n &&
                    s[i + 1] == '\\' && s[i + 2] == 'u') {
                    unsigned long lo = 0;
                    int ok2 = 1;
                    for (int k = 3; k <= 6; k++) {
                        int h = weir__str_hex_value(s[i + (size_t)k]);
                        if (h < 0) {
                            ok2 = 0;
                            break;
                        }
                        lo = lo * 16 + (unsigned long)h;
                    }
                    if (ok2 && lo >= 0xDC00 && lo < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        i += 6;
                    }
                }
                if (cp == 0)
                    cp = ' '; /* NUL cannot live in a C string */
                put_utf8(&o, cp);
                continue;
            }
            *o++ = 'u';
            continue;
        }
        if (d >= '0' && d <= '7' && i + 2 < n && s[i + 1] >= '0' &&
            s[i + 1] <= '7' && s[i + 2] >= '0' && s[i + 2] <= '7' && d <= '3') {
            unsigned v = (unsigned)((d - '0') * 64 + (s[i + 1] - '0') * 8 +
                                    (s[i + 2] - '0'));
            i += 2;
            put_utf8(&o, v ? v : ' ');
            continue;
        }
        switch (d) {
        case '0': *o++ = ' '; break; /* \0 is NUL in Spark */
        case 'b': *o++ = '\b'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'Z': *o++ = '\032'; break;
        case '%': *o++ = '\\'; *o++ = '%'; break;
        case '_': *o++ = '\\'; *o++ = '_'; break;
        default: *o++ = d; break;
        }
    }
    *o = '\0';
    return out;
}

typedef struct lexer {
    const weir_sql_source *src;
    const char *s;
    size_t i, end;
    unsigned line, col;
    weir_arena *arena;
    weir_error *err;
} lexer;

static void advance(lexer *L, size_t k)
{
    while (k-- && L->i < L->end) {
        unsigned char c = (unsigned char)L->s[L->i++];
        if (c == '\n') {
            L->line++;
            L->col = 1;
        } else if ((c & 0xC0) != 0x80) {
            L->col++;
        }
    }
}

static int lex_error(lexer *L, size_t at, const char *cls, const char *msg,
                     const char *arg)
{
    WEIR_ERR(L->err, WEIR_ESQL, cls, "%s%s%s", msg, arg, *arg ? "'" : "");
    weir__error_at_offset(L->err, L->src->path, L->src->text, L->src->len, at);
    return WEIR_ESQL;
}

/* Skip blanks and comments. */
static int skip_space(lexer *L)
{
    while (L->i < L->end) {
        char c = L->s[L->i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
            c == '\v') {
            advance(L, 1);
        } else if (c == '-' && L->i + 1 < L->end && L->s[L->i + 1] == '-') {
            while (L->i < L->end && L->s[L->i] != '\n')
                advance(L, 1);
        } else if (c == '/' && L->i + 1 < L->end && L->s[L->i + 1] == '*') {
            size_t start = L->i;
            int depth = 0;
            while (L->i < L->end) {
                if (L->s[L->i] == '/' && L->i + 1 < L->end &&
                    L->s[L->i + 1] == '*') {
                    depth++;
                    advance(L, 2);
                } else if (L->s[L->i] == '*' && L->i + 1 < L->end &&
                           L->s[L->i + 1] == '/') {
                    depth--;
                    advance(L, 2);
                    if (depth == 0)
                        break;
                } else {
                    advance(L, 1);
                }
            }
            if (depth != 0)
                return lex_error(L, start, "UNCLOSED_BRACKETED_COMMENT",
                                 "Found an unclosed bracketed comment. "
                                 "Please, append */ at the end of the comment.",
                                 "");
        } else {
            break;
        }
    }
    return 0;
}

static const char *const OPS[] = {
    "<=>", "<>", "!=", "<=", ">=", "==", "||", "::", "->", "=>", "<<", ">>>",
    ">>", "|>", "(", ")", "[", "]", "{", "}", ",", ".", ";", "=", "<", ">",
    "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", ":", "?", NULL
};

/* Length of a quoted run starting at L->i (quote char q), 0 if unclosed.
 * Doubled quotes and backslash escapes (unless raw) stay inside. */
static size_t quoted_len(const lexer *L, size_t at, char q, bool raw)
{
    size_t i = at + 1;
    while (i < L->end) {
        char c = L->s[i];
        if (c == '\\' && !raw && q != '`') {
            i += 2;
            continue;
        }
        if (c == q) {
            if (i + 1 < L->end && L->s[i + 1] == q && !raw) {
                i += 2;
                continue;
            }
            return i + 1 - at;
        }
        i++;
    }
    return 0;
}

static char *undouble(weir_arena *a, const char *s, size_t n, char q)
{
    char *out = weir__arena_alloc(a, n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        out[o++] = s[i];
        if (s[i] == q && i + 1 < n && s[i + 1] == q)
            i++;
    }
    out[o] = '\0';
    return out;
}

/* Decode a string body: '' doubling and backslash escapes. */
static char *decode_string(weir_arena *a, const char *s, size_t n, char q)
{
    /* First undo doubling outside escapes, then unescape. */
    char *tmp = weir__arena_alloc(a, n + 1);
    if (!tmp)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            tmp[o++] = s[i++];
            tmp[o++] = s[i];
            continue;
        }
        tmp[o++] = s[i];
        if (s[i] == q && i + 1 < n && s[i + 1] == q)
            i++;
    }
    tmp[o] = '\0';
    return weir__sql_unescape(a, tmp, o);
}

static size_t number_len(const char *s, size_t i, size_t end)
{
    size_t st = i;
    while (i < end && is_digit((unsigned char)s[i]))
        i++;
    if (i < end && s[i] == '.') {
        i++;
        while (i < end && is_digit((unsigned char)s[i]))
            i++;
    }
    if (i < end && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < end && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < end && is_digit((unsigned char)s[j])) {
            while (j < end && is_digit((unsigned char)s[j]))
                j++;
            i = j;
        }
    }
    /* Suffixes. */
    if (i + 1 < end && (s[i] == 'B' || s[i] == 'b') &&
        (s[i + 1] == 'D' || s[i + 1] == 'd'))
        i += 2;
    else if (i < end && strchr("LlSsYyDdFf", s[i]) && s[i] != '\0')
        i++;
    return i - st;
}

static int push(lexer *L, sql_token **items, size_t *n, size_t *cap,
                sql_token t)
{
    if (*n + 1 >= *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        sql_token *ni = weir__arena_array(L->arena, nc, sizeof(*ni));
        if (!ni)
            return WEIR_ENOMEM;
        if (*n)
            memcpy(ni, *items, *n * sizeof(*ni));
        *items = ni;
        *cap = nc;
    }
    (*items)[(*n)++] = t;
    return 0;
}

int weir__sql_lex(sql_tokens *out, weir_arena *arena, const weir_sql_source *src,
                  size_t offset, size_t len, weir_error *err)
{
    if (offset > src->len)
        offset = src->len;
    if (len > src->len - offset)
        len = src->len - offset;
    weir_sql_pos p0 = weir__sql_pos_of(src, offset);
    lexer L = { src, src->text, offset, offset + len, p0.line, p0.column,
                arena, err };
    sql_token *items = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        int rc = skip_space(&L);
        if (rc)
            return rc;
        sql_token t;
        memset(&t, 0, sizeof(t));
        t.off = (unsigned)L.i;
        t.line = L.line;
        t.col = L.col;
        if (L.i >= L.end) {
            t.kind = TK_EOF;
            t.text = "";
            if (push(&L, &items, &n, &cap, t))
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            n--; /* items[n] is EOF */
            break;
        }
        const char *s = L.s;
        size_t i = L.i;
        unsigned char c = (unsigned char)s[i];
        size_t tl = 0;
        if ((c == 'X' || c == 'x') && i + 1 < L.end && s[i + 1] == '\'') {
            size_t q = quoted_len(&L, i + 1, '\'', true);
            if (!q)
                return lex_error(&L, i, "PARSE_SYNTAX_ERROR",
                                 "Unterminated binary literal: syntax error at or near '",
                                 "X'");
            t.kind = TK_BINARY;
            t.text = weir__arena_strndup(arena, s + i + 2, q - 2);
            tl = q + 1;
        } else if ((c == 'R' || c == 'r') && i + 1 < L.end &&
                   (s[i + 1] == '\'' || s[i + 1] == '"')) {
            char qc = s[i + 1];
            size_t q = quoted_len(&L, i + 1, qc, true);
            if (!q)
                return lex_error(&L, i, "PARSE_SYNTAX_ERROR",
                                 "Unterminated string literal: syntax error at or near '",
                                 "R'");
            t.kind = TK_STRING;
            t.text = weir__arena_strndup(arena, s + i + 2, q - 2);
            tl = q + 1;
        } else if (is_ident_start(c)) {
            size_t j = i;
            while (j < L.end && is_ident_char((unsigned char)s[j]))
                j++;
            t.kind = TK_IDENT;
            t.text = weir__arena_strndup(arena, s + i, j - i);
            tl = j - i;
        } else if (is_digit(c) ||
                   (c == '.' && i + 1 < L.end &&
                    is_digit((unsigned char)s[i + 1]) &&
                    !(n > 0 && (items[n - 1].kind == TK_IDENT ||
                                items[n - 1].kind == TK_QIDENT) &&
                      items[n - 1].off + items[n - 1].len == i))) {
            size_t nl = number_len(s, i, L.end);
            size_t j = i + nl;
            if (j < L.end && is_ident_char((unsigned char)s[j]) && c != '.') {
                /* 1abc is an identifier in Spark. */
                while (j < L.end && is_ident_char((unsigned char)s[j]))
                    j++;
                t.kind = TK_IDENT;
            } else {
                t.kind = TK_NUMBER;
            }
            t.text = weir__arena_strndup(arena, s + i, j - i);
            tl = j - i;
        } else if (c == '\'' || c == '"') {
            size_t q = quoted_len(&L, i, (char)c, false);
            if (!q)
                return lex_error(&L, i, "PARSE_SYNTAX_ERROR",
                                 "Syntax error at or near '",
                                 c == '"' ? "\"" : "'");
            t.kind = TK_STRING;
            t.text = decode_string(arena, s + i + 1, q - 2, (char)c);
            tl = q;
        } else if (c == '`') {
            size_t q = quoted_len(&L, i, '`', false);
            if (!q)
                return lex_error(&L, i, "PARSE_SYNTAX_ERROR",
                                 "Syntax error at or near '",
                                 "`");
            t.kind = TK_QIDENT;
            t.text = undouble(arena, s + i + 1, q - 2, '`');
            tl = q;
        } else {
            for (int k = 0; OPS[k]; k++) {
                size_t ol = strlen(OPS[k]);
                if (i + ol <= L.end && memcmp(s + i, OPS[k], ol) == 0) {
                    tl = ol;
                    break;
                }
            }
            if (!tl) {
                char bad[8] = { 0 };
                size_t bl = 1;
                while (bl < 4 && i + bl < L.end &&
                       ((unsigned char)s[i + bl] & 0xC0) == 0x80)
                    bl++;
                memcpy(bad, s + i, bl);
                return lex_error(&L, i, "PARSE_SYNTAX_ERROR",
                                 "Syntax error at or near '", bad);
            }
            t.kind = TK_OP;
            t.text = weir__arena_strndup(arena, s + i, tl);
        }
        if (!t.text)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        t.len = (unsigned)tl;
        advance(&L, tl);
        if (push(&L, &items, &n, &cap, t))
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    out->items = items;
    out->n = n;
    return 0;
}
