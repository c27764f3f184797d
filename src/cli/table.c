/*
 * Printing rows of text values (a query result, the event log, expectation
 * counts) in the three output formats of the CLI: a boxed table for people
 * (UTF-8-aware widths, numbers right-aligned, NULL shown as NULL, long cells
 * cut at MAX_CELL columns), RFC 4180 CSV, and JSON objects one per line.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_CELL 100 /* display columns of one table cell */

bool parse_format(const char *s, out_format *out)
{
    if (strcmp(s, "table") == 0)
        *out = FORMAT_TABLE;
    else if (strcmp(s, "csv") == 0)
        *out = FORMAT_CSV;
    else if (strcmp(s, "json") == 0)
        *out = FORMAT_JSON;
    else
        return false;
    return true;
}

/* --- A grid over a weir_result ------------------------------------------- */

static const char *result_name(const void *data, size_t col)
{
    return weir_result_column_name(data, col);
}

static bool result_numeric(const void *data, size_t col)
{
    return weir_result_column_is_numeric(data, col);
}

static const char *result_value(const void *data, size_t col, size_t row)
{
    return weir_result_value(data, col, row);
}

void grid_from_result(grid *g, const weir_result *r)
{
    g->n_cols = weir_result_column_count(r);
    g->n_rows = weir_result_row_count(r);
    g->name = result_name;
    g->numeric = result_numeric;
    g->value = result_value;
    g->data = r;
    g->json_cols = NULL;
}

/* --- Table ----------------------------------------------------------------- */

static const char *cell_text(const grid *g, size_t col, size_t row)
{
    const char *v = g->value(g->data, col, row);
    return v ? v : "NULL";
}

static void rule(FILE *out, const size_t *widths, size_t n, const char *left,
                 const char *mid, const char *right)
{
    fputs(left, out);
    for (size_t c = 0; c < n; c++) {
        for (size_t i = 0; i < widths[c] + 2; i++)
            fputs("\xE2\x94\x80", out); /* ─ */
        fputs(c + 1 < n ? mid : right, out);
    }
    fputc('\n', out);
}

static void cell(FILE *out, const char *s, size_t width, bool right)
{
    size_t used = text_put(NULL, s, width);
    fputc(' ', out);
    if (right)
        for (size_t i = used; i < width; i++)
            fputc(' ', out);
    text_put(out, s, width);
    if (!right)
        for (size_t i = used; i < width; i++)
            fputc(' ', out);
    fputc(' ', out);
}

static const char *const VBAR = "\xE2\x94\x82"; /* │ */

static void table_row(const grid *g, FILE *out, const size_t *widths,
                      size_t row)
{
    fputs(VBAR, out);
    for (size_t c = 0; c < g->n_cols; c++) {
        cell(out, cell_text(g, c, row), widths[c], g->numeric(g->data, c));
        fputs(VBAR, out);
    }
    fputc('\n', out);
}

static void print_table(const grid *g, FILE *out)
{
    size_t *widths = calloc(g->n_cols, sizeof *widths);
    if (!widths) {
        fputs("weir: out of memory\n", stderr);
        return;
    }
    for (size_t c = 0; c < g->n_cols; c++) {
        widths[c] = text_put(NULL, g->name(g->data, c), MAX_CELL);
        for (size_t r = 0; r < g->n_rows; r++) {
            size_t w = text_put(NULL, cell_text(g, c, r), MAX_CELL);
            if (w > widths[c])
                widths[c] = w;
        }
    }
    rule(out, widths, g->n_cols, "\xE2\x94\x8C", "\xE2\x94\xAC",
         "\xE2\x94\x90"); /* ┌ ┬ ┐ */
    fputs(VBAR, out);
    for (size_t c = 0; c < g->n_cols; c++) {
        cell(out, g->name(g->data, c), widths[c], g->numeric(g->data, c));
        fputs(VBAR, out);
    }
    fputc('\n', out);
    rule(out, widths, g->n_cols, "\xE2\x94\x9C", "\xE2\x94\xBC",
         "\xE2\x94\xA4"); /* ├ ┼ ┤ */
    for (size_t r = 0; r < g->n_rows && !ferror(out); r++)
        table_row(g, out, widths, r);
    rule(out, widths, g->n_cols, "\xE2\x94\x94", "\xE2\x94\xB4",
         "\xE2\x94\x98"); /* └ ┴ ┘ */
    fprintf(out, "(%zu %s)\n", g->n_rows, g->n_rows == 1 ? "row" : "rows");
    free(widths);
}

/* --- CSV --------------------------------------------------------------------- */

/* NULL is an empty field; an empty string is "" so the two differ. */
static void csv_field(FILE *out, const char *s)
{
    if (!s)
        return;
    if (s[0] && !strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void print_csv(const grid *g, FILE *out)
{
    for (size_t c = 0; c < g->n_cols; c++) {
        if (c)
            fputc(',', out);
        csv_field(out, g->name(g->data, c));
    }
    fputc('\n', out);
    for (size_t r = 0; r < g->n_rows && !ferror(out); r++) {
        for (size_t c = 0; c < g->n_cols; c++) {
            if (c)
                fputc(',', out);
            csv_field(out, g->value(g->data, c, r));
        }
        fputc('\n', out);
    }
}

/* --- JSON -------------------------------------------------------------------- */

static void json_value(const grid *g, FILE *out, size_t col, const char *v)
{
    if (!v)
        fputs("null", out);
    else if (g->json_cols && g->json_cols[col])
        json_put_raw(out, v);
    else if (g->numeric(g->data, col) &&
             (json_is_number(v) || strcmp(v, "true") == 0 ||
              strcmp(v, "false") == 0))
        fputs(v, out);
    else
        json_put_string(out, v);
}

static void print_json(const grid *g, FILE *out)
{
    for (size_t r = 0; r < g->n_rows && !ferror(out); r++) {
        fputc('{', out);
        for (size_t c = 0; c < g->n_cols; c++) {
            if (c)
                fputc(',', out);
            json_put_string(out, g->name(g->data, c));
            fputc(':', out);
            json_value(g, out, c, g->value(g->data, c, r));
        }
        fputs("}\n", out);
    }
}

void grid_print(const grid *g, out_format fmt, FILE *out)
{
    if (g->n_cols == 0)
        return;
    switch (fmt) {
    case FORMAT_TABLE: print_table(g, out); break;
    case FORMAT_CSV: print_csv(g, out); break;
    case FORMAT_JSON: print_json(g, out); break;
    }
}
