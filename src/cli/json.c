/*
 * Just enough JSON for the CLI, with no tree and no allocation: write strings
 * and embed JSON text the library hands over (event details and errors), and
 * walk JSON text in place to pick out members, array elements, strings and
 * integers (an event's error class, the expectation counts of flow_progress
 * events). Every reader returns NULL/false on malformed input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_DEPTH 64

/* --- Writing ----------------------------------------------------------------- */

void json_put_string(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        uint32_t cp;
        size_t n = utf8_decode(p, &cp);
        if (n == 0) {
            fputs("\\ufffd", out);
            p++;
            continue;
        }
        switch (cp) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        default:
            if (cp < 0x20)
                fprintf(out, "\\u%04x", (unsigned)cp);
            else
                fwrite(p, 1, n, out);
        }
        p += n;
    }
    fputc('"', out);
}

void json_put_raw(FILE *out, const char *s)
{
    if (s && json_is_valid(s)) {
        const char *a = s, *b = s + strlen(s);
        while (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r')
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n' ||
                         b[-1] == '\r'))
            b--;
        fwrite(a, 1, (size_t)(b - a), out);
    } else {
        json_put_string(out, s);
    }
}

/* --- Scanning ------------------------------------------------------------- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* End of the number at p, or NULL. */
static const char *scan_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (is_digit(*p))
        while (is_digit(*p))
            p++;
    else
        return NULL;
    if (*p == '.') {
        if (!is_digit(*++p))
            return NULL;
        while (is_digit(*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!is_digit(*p))
            return NULL;
        while (is_digit(*p))
            p++;
    }
    return p;
}

static bool is_hex(char ch)
{
    return is_digit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* End of the string at p (just past the closing quote), or NULL. */
static const char *scan_string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p != '"') {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!is_hex(p[i]))
                        return NULL;
                p += 4;
            } else if (!strchr("\"\\/bfnrt", *p) || *p == '\0') {
                return NULL;
            }
        }
        p++;
    }
    return p + 1;
}

static const char *scan_value(const char *p, int depth);

/* End of the object or array at p, or NULL. */
static const char *scan_container(const char *p, int depth)
{
    char close = *p == '{' ? '}' : ']';
    bool object = *p == '{';

    if (depth > MAX_DEPTH)
        return NULL;
    p = skip_ws(p + 1);
    if (*p == close)
        return p + 1;
    for (;;) {
        if (object) {
            p = scan_string(p);
            if (!p)
                return NULL;
            p = skip_ws(p);
            if (*p++ != ':')
                return NULL;
            p = skip_ws(p);
        }
        p = scan_value(p, depth + 1);
        if (!p)
            return NULL;
        p = skip_ws(p);
        if (*p == close)
            return p + 1;
        if (*p++ != ',')
            return NULL;
        p = skip_ws(p);
    }
}

static const char *scan_value(const char *p, int depth)
{
    switch (*p) {
    case '{':
    case '[':
        return scan_container(p, depth);
    case '"':
        return scan_string(p);
    case 't':
        return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
    case 'f':
        return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
    case 'n':
        return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
    default:
        return scan_number(p);
    }
}

bool json_is_valid(const char *s)
{
    const char *end = scan_value(skip_ws(s), 0);
    return end && *skip_ws(end) == '\0';
}

bool json_is_number(const char *s)
{
    const char *end = scan_number(s);
    return end && *end == '\0';
}

/* --- Reading ----------------------------------------------------------------- */

const char *json_member(const char *p, const char *key)
{
    if (!p)
        return NULL;
    p = skip_ws(p);
    if (*p != '{')
        return NULL;
    p = skip_ws(p + 1);
    size_t key_len = strlen(key);
    while (*p == '"') {
        const char *end = scan_string(p);
        if (!end)
            return NULL;
        /* Keys with escapes never match: ours are plain words. */
        bool match = (size_t)(end - p - 2) == key_len &&
                     memcmp(p + 1, key, key_len) == 0;
        p = skip_ws(end);
        if (*p++ != ':')
            return NULL;
        p = skip_ws(p);
        if (match)
            return p;
        p = scan_value(p, 1);
        if (!p)
            return NULL;
        p = skip_ws(p);
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1);
    }
    return NULL;
}

const char *json_first(const char *p)
{
    if (!p)
        return NULL;
    p = skip_ws(p);
    if (*p != '[')
        return NULL;
    p = skip_ws(p + 1);
    return *p == ']' || *p == '\0' ? NULL : p;
}

const char *json_next(const char *p)
{
    if (!p)
        return NULL;
    p = scan_value(skip_ws(p), 1);
    if (!p)
        return NULL;
    p = skip_ws(p);
    if (*p != ',')
        return NULL;
    return skip_ws(p + 1);
}

static unsigned hex4(const char *p)
{
    char buf[5];
    memcpy(buf, p, 4);
    buf[4] = '\0';
    return (unsigned)strtoul(buf, NULL, 16);
}

/* Append code point cp as UTF-8 to buf[*len] within size (NUL kept). */
static void put_utf8(char *buf, size_t size, size_t *len, uint32_t cp)
{
    char tmp[4];
    size_t n;
    if (cp < 0x80) {
        tmp[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        tmp[0] = (char)(0xC0 | (cp >> 6));
        tmp[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        tmp[0] = (char)(0xE0 | (cp >> 12));
        tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        tmp[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        tmp[0] = (char)(0xF0 | (cp >> 18));
        tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        tmp[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    if (*len + n < size) {
        memcpy(buf + *len, tmp, n);
        *len += n;
    }
}

/* Decode the \u escape at p (pointing at 'u'); advances *p past it. */
static uint32_t unicode_escape(const char **p)
{
    const char *s = *p;
    uint32_t cp = hex4(s + 1);
    s += 5;
    if (cp >= 0xD800 && cp < 0xDC00 && s[0] == '\\' && s[1] == 'u') {
        uint32_t lo = hex4(s + 2);
        if (lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            s += 6;
        }
    }
    if (cp >= 0xD800 && cp < 0xE000)
        cp = 0xFFFD;
    *p = s;
    return cp;
}

bool json_get_string(const char *p, char *buf, size_t size)
{
    if (!p || size == 0 || !scan_string(skip_ws(p)))
        return false;
    p = skip_ws(p) + 1;
    size_t len = 0;
    while (*p != '"') {
        if (*p != '\\') {
            if (len + 1 < size)
                buf[len++] = *p;
            p++;
            continue;
        }
        p++;
        if (*p == 'u') {
            put_utf8(buf, size, &len, unicode_escape(&p));
            continue;
        }
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        if (len + 1 < size)
            buf[len++] = to[strchr(from, *p) - from];
        p++;
    }
    buf[len] = '\0';
    return true;
}

bool json_get_int(const char *p, int64_t *out)
{
    if (!p)
        return false;
    p = skip_ws(p);
    const char *end = scan_number(p);
    if (!end || end == p)
        return false;
    for (const char *q = p; q < end; q++)
        if (*q == '.' || *q == 'e' || *q == 'E')
            return false;
    errno = 0;
    char *stop;
    long long v = strtoll(p, &stop, 10);
    if (errno || stop != end)
        return false;
    *out = (int64_t)v;
    return true;
}
