/*
 * Spark datetime patterns (DateTimeFormatter letters: yyyy-MM-dd HH:mm:ss.SSS,
 * EEE, MMM, a, 'quoted text', ...) converted to DuckDB strftime/strptime
 * formats. Letters without a faithful DuckDB equivalent are refused so a
 * pattern never formats differently than Spark would.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

typedef struct letter_map {
    char letter;
    int min, max;        /* run lengths this entry covers */
    const char *format;  /* strftime */
    const char *parse;   /* strptime (NULL = same as format) */
} letter_map;

static const letter_map LETTERS[] = {
    { 'y', 1, 1, "%Y", NULL },     { 'y', 2, 2, "%y", NULL },
    { 'y', 3, 4, "%Y", NULL },     { 'u', 4, 4, "%Y", NULL },
    { 'M', 1, 1, "%-m", "%m" },    { 'M', 2, 2, "%m", NULL },
    { 'M', 3, 3, "%b", NULL },     { 'M', 4, 4, "%B", NULL },
    { 'L', 1, 1, "%-m", "%m" },    { 'L', 2, 2, "%m", NULL },
    { 'L', 3, 3, "%b", NULL },     { 'L', 4, 4, "%B", NULL },
    { 'd', 1, 1, "%-d", "%d" },    { 'd', 2, 2, "%d", NULL },
    { 'D', 1, 1, "%-j", "%j" },    { 'D', 3, 3, "%j", NULL },
    { 'H', 1, 1, "%-H", "%H" },    { 'H', 2, 2, "%H", NULL },
    { 'h', 1, 1, "%-I", "%I" },    { 'h', 2, 2, "%I", NULL },
    { 'm', 1, 1, "%-M", "%M" },    { 'm', 2, 2, "%M", NULL },
    { 's', 1, 1, "%-S", "%S" },    { 's', 2, 2, "%S", NULL },
    { 'S', 3, 3, "%g", NULL },     { 'S', 6, 6, "%f", NULL },
    { 'S', 9, 9, "%n", NULL },     { 'a', 1, 1, "%p", NULL },
    { 'E', 1, 3, "%a", NULL },     { 'E', 4, 4, "%A", NULL },
    /* Zones: weir's timestamps are UTC wall-clock values, so formatting
     * writes UTC as Spark does with session time zone UTC. */
    { 'z', 1, 3, "UTC", "%Z" },    { 'Z', 1, 3, "+0000", "%z" },
    { 'X', 1, 3, "Z", "%z" },      { 'x', 1, 1, "+00", "%z" },
    { 'x', 2, 2, "+0000", "%z" },  { 'x', 3, 3, "+00:00", "%z" },
    /* Quarters have no strftime letter: a marker (\x01 and the run
     * length) that date_format replaces with the quarter; parsing has no
     * equivalent (empty parse format). */
    { 'Q', 1, 1, "\x01" "1", "" }, { 'Q', 2, 2, "\x01" "2", "" },
    { 'Q', 3, 3, "\x01" "3", "" }, { 'Q', 4, 4, "\x01" "4", "" },
    { 'q', 1, 1, "\x01" "1", "" }, { 'q', 2, 2, "\x01" "2", "" },
    { 'q', 3, 3, "\x01" "3", "" }, { 'q', 4, 4, "\x01" "4", "" },
    { 0, 0, 0, NULL, NULL }
};

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void put_literal(weir_buf *out, char c)
{
    if (c == '%')
        weir__buf_puts(out, "%%");
    else
        weir__buf_putc(out, c);
}

static bool convert(weir_buf *out, const char *pattern, bool parse, char *bad,
                    size_t bad_size)
{
    const char *s = pattern;
    if (strchr(pattern, '\x01')) { /* the quarter marker: never text */
        snprintf(bad, bad_size, "\\x01");
        return false;
    }
    while (*s) {
        char c = *s;
        if (c == '\'') {
            s++;
            if (*s == '\'') { /* '' is a quote */
                weir__buf_putc(out, '\'');
                s++;
                continue;
            }
            while (*s) {
                if (*s == '\'') {
                    if (s[1] == '\'') {
                        weir__buf_putc(out, '\'');
                        s += 2;
                        continue;
                    }
                    break;
                }
                put_literal(out, *s++);
            }
            if (*s != '\'') {
                snprintf(bad, bad_size, "unterminated quote");
                return false;
            }
            s++;
            continue;
        }
        if (!is_letter(c)) {
            if (c == '[' || c == ']' || c == '{' || c == '}' || c == '#') {
                snprintf(bad, bad_size, "%c", c);
                return false;
            }
            put_literal(out, c);
            s++;
            continue;
        }
        int run = 1;
        while (s[run] == c)
            run++;
        const letter_map *m = NULL;
        for (int i = 0; LETTERS[i].letter; i++)
            if (LETTERS[i].letter == c && run >= LETTERS[i].min &&
                run <= LETTERS[i].max)
                m = &LETTERS[i];
        if (!m || (parse && m->parse && !*m->parse)) {
            snprintf(bad, bad_size, "%.*s", run < 16 ? run : 16, s);
            return false;
        }
        weir__buf_puts(out, parse && m->parse ? m->parse : m->format);
        s += run;
    }
    return true;
}

bool weir__sql_datetime_format(weir_buf *out, const char *pattern, bool parse,
                               char *bad, size_t bad_size)
{
    size_t start = out->len;
    if (!convert(out, pattern, parse, bad, bad_size)) {
        weir__buf_truncate(out, start);
        return false;
    }
    return true;
}
