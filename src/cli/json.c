/*
 * Writing JSON for the CLI: strings, and JSON text the library hands over
 * (event details and errors) embedded as it is when it is valid. Reading
 * is util/json.h's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/json.h"

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

static bool valid(const char *s)
{
    weir_arena arena;
    weir_json *j;
    weir__arena_init(&arena);
    bool ok = weir__json_parse(&j, &arena, s, strlen(s), NULL) == 0;
    weir__arena_free(&arena);
    return ok;
}

void json_put_raw(FILE *out, const char *s)
{
    if (s && valid(s)) {
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
