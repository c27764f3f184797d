/*
 * Recursive-descent JSON parser into an arena tree (see json.h).
 */
#include "json.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

#define MAX_DEPTH 256

typedef struct parser {
    const char *s;
    size_t len, pos;
    weir_arena *arena;
    weir_error *err;
    int depth;
} parser;

static int fail(parser *p, const char *what)
{
    return WEIR_ERR(p->err, WEIR_ECORRUPT, NULL,
                    "invalid JSON at byte %zu: %s", p->pos, what);
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int parse_value(parser *p, weir_json **out);

static int hex4(parser *p, unsigned *out)
{
    if (p->len - p->pos < 4)
        return fail(p, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->pos++];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return fail(p, "bad \\u escape");
    }
    *out = v;
    return 0;
}

static void put_utf8(weir_buf *b, unsigned cp)
{
    if (cp < 0x80) {
        weir__buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        weir__buf_putc(b, (char)(0xC0 | (cp >> 6)));
        weir__buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        weir__buf_putc(b, (char)(0xE0 | (cp >> 12)));
        weir__buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        weir__buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else {
        weir__buf_putc(b, (char)(0xF0 | (cp >> 18)));
        weir__buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
        weir__buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        weir__buf_putc(b, (char)(0x80 | (cp & 0x3F)));
    }
}

static int parse_string(parser *p, const char **out, size_t *out_len)
{
    p->pos++; /* opening quote */
    weir_buf b = WEIR_BUF_INIT;
    int rc = 0;
    for (;;) {
        if (p->pos >= p->len) {
            rc = fail(p, "unterminated string");
            break;
        }
        char c = p->s[p->pos++];
        if (c == '"')
            break;
        if ((unsigned char)c < 0x20) {
            rc = fail(p, "control character in string");
            break;
        }
        if (c != '\\') {
            weir__buf_putc(&b, c);
            continue;
        }
        if (p->pos >= p->len) {
            rc = fail(p, "unterminated escape");
            break;
        }
        char e = p->s[p->pos++];
        switch (e) {
        case '"': case '\\': case '/':
            weir__buf_putc(&b, e);
            break;
        case 'b': weir__buf_putc(&b, '\b'); break;
        case 'f': weir__buf_putc(&b, '\f'); break;
        case 'n': weir__buf_putc(&b, '\n'); break;
        case 'r': weir__buf_putc(&b, '\r'); break;
        case 't': weir__buf_putc(&b, '\t'); break;
        case 'u': {
            unsigned cp;
            if ((rc = hex4(p, &cp)))
                break;
            if (cp >= 0xD800 && cp < 0xDC00 && p->len - p->pos >= 6 &&
                p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u') {
                unsigned lo;
                p->pos += 2;
                if ((rc = hex4(p, &lo)))
                    break;
                if (lo >= 0xDC00 && lo < 0xE000)
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            put_utf8(&b, cp);
            break;
        }
        default:
            rc = fail(p, "bad escape");
        }
        if (rc)
            break;
    }
    if (!rc) {
        if (b.failed)
            rc = WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
        else {
            *out = weir__arena_strndup(p->arena, weir__buf_cstr(&b), b.len);
            *out_len = b.len;
            if (!*out)
                rc = WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
        }
    }
    weir__buf_free(&b);
    return rc;
}

static size_t digits(const char *s, size_t i, size_t len)
{
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    return i;
}

/* The length of the JSON number at the start of s (RFC 8259's grammar:
 * -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), or 0 when none is. */
static size_t number_len(const char *s, size_t len)
{
    size_t i = len && s[0] == '-' ? 1 : 0;
    if (i >= len || s[i] < '0' || s[i] > '9')
        return 0;
    i = s[i] == '0' ? i + 1 : digits(s, i, len);
    if (i < len && s[i] == '.') {
        size_t j = digits(s, i + 1, len);
        if (j == i + 1)
            return 0;
        i = j;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1 < len && (s[i + 1] == '+' || s[i + 1] == '-') ? i + 2 : i + 1;
        size_t k = digits(s, j, len);
        if (k == j)
            return 0;
        i = k;
    }
    return i;
}

static int parse_number(parser *p, weir_json *v)
{
    size_t n = number_len(p->s + p->pos, p->len - p->pos);
    if (n == 0 || n > 64)
        return fail(p, "bad number");
    char tmp[72];
    memcpy(tmp, p->s + p->pos, n);
    tmp[n] = '\0';
    p->pos += n;
    v->number = strtod(tmp, NULL);
    v->text = weir__arena_strndup(p->arena, tmp, n);
    v->text_len = n;
    return v->text ? 0 : WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
}

static int parse_container(parser *p, weir_json *v, bool object)
{
    char close = object ? '}' : ']';
    p->pos++;
    if (++p->depth > MAX_DEPTH)
        return fail(p, "nesting too deep");
    size_t cap = 0;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        p->depth--;
        return 0;
    }
    for (;;) {
        const char *key = NULL;
        size_t klen;
        skip_ws(p);
        if (object) {
            if (p->pos >= p->len || p->s[p->pos] != '"')
                return fail(p, "expected a member name");
            int rc = parse_string(p, &key, &klen);
            if (rc)
                return rc;
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':')
                return fail(p, "expected ':'");
            p->pos++;
        }
        weir_json *child;
        int rc = parse_value(p, &child);
        if (rc)
            return rc;
        if (v->len == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            weir_json **items = weir__arena_array(p->arena, ncap, sizeof(*items));
            const char **keys = weir__arena_array(p->arena, ncap, sizeof(*keys));
            if (!items || !keys)
                return WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
            if (v->len) {
                memcpy(items, v->items, v->len * sizeof(*items));
                memcpy(keys, v->keys, v->len * sizeof(*keys));
            }
            v->items = items;
            v->keys = keys;
            cap = ncap;
        }
        v->items[v->len] = child;
        v->keys[v->len] = key;
        v->len++;
        skip_ws(p);
        if (p->pos >= p->len)
            return fail(p, "unterminated container");
        char c = p->s[p->pos++];
        if (c == close)
            break;
        if (c != ',')
            return fail(p, "expected ',' or end of container");
    }
    p->depth--;
    return 0;
}

static int literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return fail(p, "unexpected token");
    p->pos += n;
    return 0;
}

static int parse_value(parser *p, weir_json **out)
{
    skip_ws(p);
    if (p->pos >= p->len)
        return fail(p, "unexpected end");
    weir_json *v = weir__arena_alloc(p->arena, sizeof(*v));
    if (!v)
        return WEIR_ERR(p->err, WEIR_ENOMEM, NULL, "out of memory");
    *out = v;
    char c = p->s[p->pos];
    switch (c) {
    case '{':
        v->type = WEIR_JSON_OBJECT;
        return parse_container(p, v, true);
    case '[':
        v->type = WEIR_JSON_ARRAY;
        return parse_container(p, v, false);
    case '"':
        v->type = WEIR_JSON_STRING;
        return parse_string(p, &v->text, &v->text_len);
    case 't':
        v->type = WEIR_JSON_BOOL;
        v->boolean = true;
        return literal(p, "true");
    case 'f':
        v->type = WEIR_JSON_BOOL;
        return literal(p, "false");
    case 'n':
        v->type = WEIR_JSON_NULL;
        return literal(p, "null");
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            v->type = WEIR_JSON_NUMBER;
            return parse_number(p, v);
        }
        return fail(p, "unexpected character");
    }
}

int weir__json_parse(weir_json **out, weir_arena *arena, const char *text,
                     size_t len, weir_error *err)
{
    parser p = { text, len, 0, arena, err, 0 };
    int rc = parse_value(&p, out);
    if (rc)
        return rc;
    skip_ws(&p);
    if (p.pos != len)
        return fail(&p, "trailing data");
    return 0;
}

const weir_json *weir__json_get(const weir_json *obj, const char *key)
{
    if (!obj || obj->type != WEIR_JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->len; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

const char *weir__json_get_str(const weir_json *obj, const char *key)
{
    const weir_json *v = weir__json_get(obj, key);
    return v && v->type == WEIR_JSON_STRING ? v->text : NULL;
}
