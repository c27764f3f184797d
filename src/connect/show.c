/*
 * DataFrame.show() in serving mode: the text table Spark's showString
 * builds (the client prints the one string the server returns), from a
 * query result's text values.
 *
 * Widths count characters (UTF-8 code points); Spark counts East Asian
 * wide characters twice, which weir does not.
 */
#include "connect/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

static size_t width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The byte length of the first `chars` characters of s. */
static size_t prefix_bytes(const char *s, size_t chars)
{
    size_t i = 0;
    while (s[i] && chars) {
        i++;
        while (((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        chars--;
    }
    return i;
}

/* A cell as Spark shows it (malloc'd): NULL, binary as hex bytes, cut to
 * `truncate` characters with "..." when truncate > 0. */
static char *cell(const char *value, bool binary, int truncate)
{
    weir_buf b = WEIR_BUF_INIT;
    if (!value) {
        weir__buf_puts(&b, "NULL");
    } else if (binary) {
        /* weir's text of a binary value escapes bytes as \xHH */
        weir__buf_putc(&b, '[');
        bool first = true;
        for (size_t i = 0; value[i]; i++) {
            unsigned byte = (unsigned char)value[i];
            unsigned hi, lo;
            if (value[i] == '\\' && value[i + 1] == 'x' &&
                sscanf(value + i + 2, "%1x%1x", &hi, &lo) == 2) {
                byte = hi * 16 + lo;
                i += 3;
            }
            weir__buf_printf(&b, "%s%02X", first ? "" : " ", byte);
            first = false;
        }
        weir__buf_putc(&b, ']');
    } else {
        weir__buf_puts(&b, value);
    }
    char *s = weir__buf_detach(&b);
    if (s && truncate > 0 && width(s) > (size_t)truncate) {
        size_t keep = truncate < 4 ? (size_t)truncate : (size_t)truncate - 3;
        size_t at = prefix_bytes(s, keep);
        if (truncate < 4)
            s[at] = '\0';
        else
            memcpy(s + at, "...", 4);
    }
    return s;
}

static void pad(weir_buf *b, const char *s, size_t w, bool left)
{
    size_t have = width(s);
    if (left)
        for (size_t i = have; i < w; i++)
            weir__buf_putc(b, ' ');
    weir__buf_puts(b, s);
    if (!left)
        for (size_t i = have; i < w; i++)
            weir__buf_putc(b, ' ');
}

int weir__show_string(const weir_result *r, size_t num_rows, int truncate,
                      bool vertical, char **out)
{
    *out = NULL;
    size_t cols = weir_result_column_count(r);
    size_t total = weir_result_row_count(r);
    size_t rows = total < num_rows ? total : num_rows;
    bool more = total > num_rows;
    /* cells[0 .. cols) is the header, then row by row */
    size_t n = (rows + 1) * cols;
    char **cells = calloc(n ? n : 1, sizeof *cells);
    size_t *widths = calloc(cols ? cols : 1, sizeof *widths);
    int rc = cells && widths ? 0 : -1;
    for (size_t c = 0; !rc && c < cols; c++) {
        const char *type = weir_result_column_type(r, c);
        bool binary = type && strcmp(type, "binary") == 0;
        /* Spark cuts the values to `truncate`, never the header */
        cells[c] = cell(weir_result_column_name(r, c), false, 0);
        rc = cells[c] ? 0 : -1;
        for (size_t i = 0; !rc && i < rows; i++) {
            char *v = cell(weir_result_value(r, c, i), binary, truncate);
            cells[(i + 1) * cols + c] = v;
            rc = v ? 0 : -1;
        }
    }
    weir_buf b = WEIR_BUF_INIT;
    if (!rc && !vertical) {
        for (size_t c = 0; c < cols; c++) {
            widths[c] = 3;
            for (size_t i = 0; i <= rows; i++) {
                size_t w = width(cells[i * cols + c]);
                if (w > widths[c])
                    widths[c] = w;
            }
        }
        weir_buf sep = WEIR_BUF_INIT;
        weir__buf_putc(&sep, '+');
        for (size_t c = 0; c < cols; c++) {
            for (size_t k = 0; k < widths[c]; k++)
                weir__buf_putc(&sep, '-');
            weir__buf_putc(&sep, '+');
        }
        weir__buf_putc(&sep, '\n');
        weir__buf_puts(&b, weir__buf_cstr(&sep));
        for (size_t i = 0; i <= rows; i++) {
            weir__buf_putc(&b, '|');
            for (size_t c = 0; c < cols; c++) {
                pad(&b, cells[i * cols + c], widths[c], truncate > 0);
                weir__buf_putc(&b, '|');
            }
            weir__buf_putc(&b, '\n');
            if (i == 0)
                weir__buf_puts(&b, weir__buf_cstr(&sep));
        }
        weir__buf_puts(&b, weir__buf_cstr(&sep));
        weir__buf_free(&sep);
    } else if (!rc) {
        size_t name_w = 3, data_w = 3;
        for (size_t c = 0; c < cols; c++) {
            size_t w = width(cells[c]);
            if (w > name_w)
                name_w = w;
            for (size_t i = 1; i <= rows; i++) {
                w = width(cells[i * cols + c]);
                if (w > data_w)
                    data_w = w;
            }
        }
        for (size_t i = 1; i <= rows; i++) {
            char head[48];
            snprintf(head, sizeof head, "-RECORD %zu", i - 1);
            weir__buf_puts(&b, head);
            for (size_t k = strlen(head); k < name_w + data_w + 5; k++)
                weir__buf_putc(&b, '-');
            weir__buf_putc(&b, '\n');
            for (size_t c = 0; c < cols; c++) {
                weir__buf_putc(&b, ' ');
                pad(&b, cells[c], name_w, false);
                weir__buf_puts(&b, " | ");
                pad(&b, cells[i * cols + c], data_w, false);
                weir__buf_puts(&b, " \n");
            }
        }
    }
    if (!rc) {
        if (vertical && rows == 0)
            weir__buf_puts(&b, "(0 rows)\n");
        else if (more)
            weir__buf_printf(&b, "only showing top %zu %s\n", num_rows,
                             num_rows == 1 ? "row" : "rows");
        *out = weir__buf_detach(&b);
        if (!*out)
            rc = -1;
    }
    weir__buf_free(&b);
    for (size_t i = 0; cells && i < n; i++)
        free(cells[i]);
    free(cells);
    free(widths);
    return rc;
}
