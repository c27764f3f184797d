/*
 * Comparing a dataset's rows with a test's expected rows. Values match
 * when both are NULL, the expected value is a YAML number and both read
 * as the same number (24.5 and 24.50), or their texts are equal (YAML
 * booleans are read as true/false). Rows match when every expected column does.
 * Without order, equal rows are paired first, then each remaining
 * expected row with a remaining actual row that has the same first column
 * (often a key) or more than half of its values, sharing most values (a
 * "changed" row, shown column by column); the rest are missing or
 * unexpected. With order, row i is compared with row i.
 */
#include "testing/testing.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lines of each kind shown before "... and N more". */
#define MAX_SHOWN 20

static bool as_number(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    char *end = NULL;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || isnan(d))
        return false;
    *out = d;
    return true;
}

bool weir__tvalue_matches(const weir_tvalue *e, const char *actual)
{
    if (e->kind == WEIR_TV_NULL || !e->text)
        return actual == NULL;
    if (!actual)
        return false;
    if (strcmp(e->text, actual) == 0)
        return true;
    double x, y;
    if ((e->kind == WEIR_TV_INT || e->kind == WEIR_TV_FLOAT) &&
        as_number(e->text, &x) && as_number(actual, &y))
        return x == y || fabs(x - y) <= 1e-12 * fmax(fabs(x), fabs(y));
    return false;
}

static const char *cell(const char *const *actual, size_t n_cols, size_t row,
                        size_t col)
{
    return actual[row * n_cols + col];
}

/* How many columns of expected row er match actual row ar. */
static size_t score(const weir_trows *x, size_t er, const char *const *act,
                    size_t ar)
{
    size_t n = 0;
    for (size_t c = 0; c < x->n_cols; c++)
        n += weir__tvalue_matches(&x->cells[er * x->n_cols + c],
                                  cell(act, x->n_cols, ar, c));
    return n;
}

static void put_value(weir_buf *b, const char *s)
{
    weir__buf_puts(b, s ? s : "null");
}

static void put_expected_row(weir_buf *b, const weir_trows *x, size_t r)
{
    weir__buf_putc(b, '{');
    for (size_t c = 0; c < x->n_cols; c++) {
        weir__buf_printf(b, "%s%s: ", c ? ", " : "", x->cols[c]);
        put_value(b, x->cells[r * x->n_cols + c].text);
    }
    weir__buf_putc(b, '}');
}

static void put_actual_row(weir_buf *b, const weir_trows *x,
                           const char *const *act, size_t r)
{
    weir__buf_putc(b, '{');
    for (size_t c = 0; c < x->n_cols; c++) {
        weir__buf_printf(b, "%s%s: ", c ? ", " : "", x->cols[c]);
        put_value(b, cell(act, x->n_cols, r, c));
    }
    weir__buf_putc(b, '}');
}

/* "{key columns} col: expected X, got Y; ..." for a changed pair. */
static void put_changed(weir_buf *b, const weir_trows *x, size_t er,
                        const char *const *act, size_t ar)
{
    bool any = false;
    for (size_t c = 0; c < x->n_cols; c++) {
        const weir_tvalue *e = &x->cells[er * x->n_cols + c];
        if (!weir__tvalue_matches(e, cell(act, x->n_cols, ar, c)))
            continue;
        weir__buf_printf(b, "%s%s: ", any ? ", " : "{", x->cols[c]);
        put_value(b, e->text);
        any = true;
    }
    if (any)
        weir__buf_puts(b, "}");
    for (size_t c = 0, k = 0; c < x->n_cols; c++) {
        const weir_tvalue *e = &x->cells[er * x->n_cols + c];
        const char *a = cell(act, x->n_cols, ar, c);
        if (weir__tvalue_matches(e, a))
            continue;
        weir__buf_printf(b, "%s%s: expected ", k++ ? "; " : any ? " " : "",
                         x->cols[c]);
        put_value(b, e->text);
        weir__buf_puts(b, ", got ");
        put_value(b, a);
    }
}

typedef struct shown {
    size_t missing, unexpected, changed;
} shown;

static bool show(size_t *count)
{
    return (*count)++ < MAX_SHOWN;
}

static void put_more(weir_buf *b, const char *what, size_t count)
{
    if (count > MAX_SHOWN)
        weir__buf_printf(b, "  ... and %zu more %s rows\n", count - MAX_SHOWN,
                         what);
}

static size_t diff_ordered(weir_buf *out, const weir_trows *x,
                           const char *const *act, size_t n_act)
{
    size_t diffs = 0;
    shown s = { 0, 0, 0 };
    size_t n = x->n_rows > n_act ? x->n_rows : n_act;
    for (size_t r = 0; r < n; r++) {
        if (r >= n_act) {
            diffs++;
            if (show(&s.missing)) {
                weir__buf_printf(out, "  - missing row %zu:    ", r + 1);
                put_expected_row(out, x, r);
                weir__buf_putc(out, '\n');
            }
        } else if (r >= x->n_rows) {
            diffs++;
            if (show(&s.unexpected)) {
                weir__buf_printf(out, "  + unexpected row %zu: ", r + 1);
                put_actual_row(out, x, act, r);
                weir__buf_putc(out, '\n');
            }
        } else if (score(x, r, act, r) < x->n_cols) {
            diffs++;
            if (show(&s.changed)) {
                weir__buf_printf(out, "  ~ changed row %zu:    ", r + 1);
                put_changed(out, x, r, act, r);
                weir__buf_putc(out, '\n');
            }
        }
    }
    put_more(out, "missing", s.missing);
    put_more(out, "unexpected", s.unexpected);
    put_more(out, "changed", s.changed);
    return diffs;
}

static size_t diff_unordered(weir_buf *out, const weir_trows *x,
                             const char *const *act, size_t n_act)
{
    size_t n_exp = x->n_rows;
    /* pair[e] = the actual row paired with expected row e, or SIZE_MAX;
     * exact[e] tells an equal pair from a changed one. */
    size_t *pair = malloc((n_exp + 1) * sizeof(*pair));
    bool *exact = calloc(n_exp + 1, sizeof(*exact));
    bool *taken = calloc(n_act + 1, sizeof(*taken));
    if (!pair || !exact || !taken) {
        free(pair);
        free(exact);
        free(taken);
        weir__buf_puts(out, "  (out of memory while comparing rows)\n");
        return 1;
    }
    for (size_t e = 0; e < n_exp; e++) {
        pair[e] = SIZE_MAX;
        for (size_t a = 0; a < n_act; a++) {
            if (!taken[a] && score(x, e, act, a) == x->n_cols) {
                pair[e] = a;
                exact[e] = taken[a] = true;
                break;
            }
        }
    }
    for (size_t e = 0; x->n_cols > 1 && e < n_exp; e++) {
        if (pair[e] != SIZE_MAX)
            continue;
        size_t best = SIZE_MAX, best_score = 0;
        for (size_t a = 0; a < n_act; a++) {
            if (taken[a])
                continue;
            /* The first column is often a key: rows sharing it pair
             * first; others only when most of their columns agree. */
            size_t sc = score(x, e, act, a);
            if (weir__tvalue_matches(&x->cells[e * x->n_cols], act[a * x->n_cols]))
                sc += x->n_cols;
            else if (2 * sc <= x->n_cols)
                continue;
            if (sc > best_score) {
                best = a;
                best_score = sc;
            }
        }
        if (best != SIZE_MAX) {
            pair[e] = best;
            taken[best] = true;
        }
    }
    size_t diffs = 0;
    shown s = { 0, 0, 0 };
    for (size_t e = 0; e < n_exp; e++) {
        if (pair[e] == SIZE_MAX) {
            diffs++;
            if (show(&s.missing)) {
                weir__buf_puts(out, "  - missing:    ");
                put_expected_row(out, x, e);
                weir__buf_putc(out, '\n');
            }
        } else if (!exact[e]) {
            diffs++;
            if (show(&s.changed)) {
                weir__buf_puts(out, "  ~ changed:    ");
                put_changed(out, x, e, act, pair[e]);
                weir__buf_putc(out, '\n');
            }
        }
    }
    for (size_t a = 0; a < n_act; a++) {
        if (taken[a])
            continue;
        diffs++;
        if (show(&s.unexpected)) {
            weir__buf_puts(out, "  + unexpected: ");
            put_actual_row(out, x, act, a);
            weir__buf_putc(out, '\n');
        }
    }
    put_more(out, "missing", s.missing);
    put_more(out, "changed", s.changed);
    put_more(out, "unexpected", s.unexpected);
    free(pair);
    free(exact);
    free(taken);
    return diffs;
}

size_t weir__rows_diff(weir_buf *out, const weir_trows *expected,
                       const char *const *actual, size_t n_actual_rows,
                       bool ordered)
{
    return ordered ? diff_ordered(out, expected, actual, n_actual_rows)
                   : diff_unordered(out, expected, actual, n_actual_rows);
}
