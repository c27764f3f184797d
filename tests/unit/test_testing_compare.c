/*
 * Unit tests for src/testing/compare.c: value matching (NULLs, numbers
 * compared as numbers only when YAML typed them so, text otherwise) and
 * the row diff (equal sets in any order, changed rows shown column by
 * column, missing and unexpected rows, duplicates, ordered comparison).
 */
#include "harness.h"

#include "testing/testing.h"

static const char *COLS[] = { "id", "name", "amount" };

#define I(t) { WEIR_TV_INT, t }
#define F(t) { WEIR_TV_FLOAT, t }
#define S(t) { WEIR_TV_STRING, t }
#define N { WEIR_TV_NULL, NULL }

static weir_trows rows_of(weir_tvalue *cells, size_t n_rows)
{
    weir_trows r = { COLS, 3, cells, n_rows };
    return r;
}

static size_t diff(weir_buf *out, weir_tvalue *cells, size_t n_exp,
                   const char *const *actual, size_t n_act, bool ordered)
{
    weir_trows r = rows_of(cells, n_exp);
    weir__buf_clear(out);
    return weir__rows_diff(out, &r, actual, n_act, ordered);
}

TEST(values_match)
{
    weir_tvalue i = I("24"), f = F("24.50"), s = S("24.50"), n = N;
    weir_tvalue b = { WEIR_TV_BOOL, "true" };
    CHECK(weir__tvalue_matches(&i, "24"));
    CHECK(weir__tvalue_matches(&i, "24.0"));
    CHECK(weir__tvalue_matches(&f, "24.5"));
    CHECK(!weir__tvalue_matches(&f, "24.51"));
    CHECK(!weir__tvalue_matches(&f, "abc"));
    /* A quoted YAML string compares as text. */
    CHECK(weir__tvalue_matches(&s, "24.50"));
    CHECK(!weir__tvalue_matches(&s, "24.5"));
    /* NULL only matches null. */
    CHECK(weir__tvalue_matches(&n, NULL));
    CHECK(!weir__tvalue_matches(&n, "null"));
    CHECK(!weir__tvalue_matches(&i, NULL));
    CHECK(weir__tvalue_matches(&b, "true"));
    CHECK(!weir__tvalue_matches(&b, "false"));
}

TEST(equal_in_any_order)
{
    weir_buf out = WEIR_BUF_INIT;
    weir_tvalue cells[] = { I("1"), S("a"), F("1.5"), I("2"), S("b"), N };
    const char *actual[] = { "2", "b", NULL, "1", "a", "1.50" };
    CHECK_INT(diff(&out, cells, 2, actual, 2, false), 0);
    CHECK_INT(out.len, 0);
    /* In order, the same rows differ. */
    CHECK_INT(diff(&out, cells, 2, actual, 2, true), 2);
    CHECK_CONTAINS(weir__buf_cstr(&out), "~ changed row 1:");
    weir__buf_free(&out);
}

TEST(changed_missing_unexpected)
{
    weir_buf out = WEIR_BUF_INIT;
    weir_tvalue cells[] = { I("1"), S("a"), F("1.5"), I("2"), S("b"), F("2"),
                            I("3"), S("c"), F("3") };
    const char *actual[] = { "1", "a", "1.5", "2", "b", "2.5",
                             "9", "z", "0" };
    CHECK_INT(diff(&out, cells, 3, actual, 3, false), 3);
    const char *d = weir__buf_cstr(&out);
    CHECK_CONTAINS(d, "~ changed:    {id: 2, name: b} amount: expected 2, got 2.5\n");
    CHECK_CONTAINS(d, "- missing:    {id: 3, name: c, amount: 3}\n");
    CHECK_CONTAINS(d, "+ unexpected: {id: 9, name: z, amount: 0}\n");
    /* Rows sharing their first column pair before rows sharing others. */
    weir_tvalue keyed[] = { S("bob"), I("1"), I("1"), S("ann"), I("2"), F("12.5") };
    const char *got[] = { "ann", "1", "10.00", "bob", "0", NULL };
    CHECK_INT(diff(&out, keyed, 2, got, 2, false), 2);
    d = weir__buf_cstr(&out);
    CHECK_CONTAINS(d, "~ changed:    {id: bob} name: expected 1, got 0; amount: expected 1, got null\n");
    CHECK_CONTAINS(d, "~ changed:    {id: ann} name: expected 2, got 1; amount: expected 12.5, got 10.00\n");
    weir__buf_free(&out);
}

TEST(duplicates_count)
{
    weir_buf out = WEIR_BUF_INIT;
    weir_tvalue cells[] = { I("1"), S("a"), N, I("1"), S("a"), N };
    const char *one[] = { "1", "a", NULL };
    CHECK_INT(diff(&out, cells, 2, one, 1, false), 1);
    CHECK_CONTAINS(weir__buf_cstr(&out), "- missing:    {id: 1, name: a, amount: null}");
    const char *three[] = { "1", "a", NULL, "1", "a", NULL, "1", "a", NULL };
    CHECK_INT(diff(&out, cells, 2, three, 3, false), 1);
    CHECK_CONTAINS(weir__buf_cstr(&out), "+ unexpected: {id: 1, name: a, amount: null}");
    weir__buf_free(&out);
}

TEST(ordered_lengths)
{
    weir_buf out = WEIR_BUF_INIT;
    weir_tvalue cells[] = { I("1"), S("a"), N, I("2"), S("b"), N };
    const char *actual[] = { "1", "a", NULL };
    CHECK_INT(diff(&out, cells, 2, actual, 1, true), 1);
    CHECK_CONTAINS(weir__buf_cstr(&out), "- missing row 2:");
    CHECK_INT(diff(&out, cells, 0, actual, 1, true), 1);
    CHECK_CONTAINS(weir__buf_cstr(&out), "+ unexpected row 1: {id: 1, name: a, amount: null}");
    weir__buf_free(&out);
}

TEST(many_rows_are_capped)
{
    weir_buf out = WEIR_BUF_INIT;
    weir_tvalue cells[] = { I("1"), S("a"), N };
    const char *actual[30 * 3];
    for (size_t i = 0; i < 30; i++) {
        actual[3 * i] = "7";
        actual[3 * i + 1] = "x";
        actual[3 * i + 2] = "1";
    }
    CHECK_INT(diff(&out, cells, 0, actual, 30, false), 30);
    CHECK_CONTAINS(weir__buf_cstr(&out), "... and 10 more unexpected rows");
    (void)cells;
    weir__buf_free(&out);
}

TEST_MAIN(RUN(values_match); RUN(equal_in_any_order);
          RUN(changed_missing_unexpected); RUN(duplicates_count);
          RUN(ordered_lengths); RUN(many_rows_are_capped);)
