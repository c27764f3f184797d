/*
 * Unit tests for src/testing/define.c: test files in a temporary folder
 * read into weir_test structs (one step or several, fixtures, run
 * options, expectations), name filters (glob, part of a name, file
 * stem), and problems reported at their line:column (duplicate names
 * across files, bad shapes).
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testing/testing.h"
#include "util/fs.h"

static char dir[64];

static void write_test_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/tests/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int load(weir_test **tests, size_t *n, weir_arena *a, weir__diags *d,
                const char *const *filters, size_t n_filters)
{
    char tdir[128];
    snprintf(tdir, sizeof tdir, "%s/tests", dir);
    weir_error e;
    return weir__tests_load(tests, n, a, tdir, dir, filters, n_filters, d, &e);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/weir-unit-testing-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    char tdir[128];
    snprintf(tdir, sizeof tdir, "%s/tests", dir);
    CHECK(weir__fs_mkdirs(tdir, NULL) == 0);
}

TEST(steps_fixtures_and_checks)
{
    setup();
    write_test_file("a.yml",
                    "first:\n"
                    "  given:\n"
                    "    - table: raw.customers\n"
                    "      schema: id BIGINT\n"
                    "      rows: [{id: 1}, {id: null}]\n"
                    "    - files: ./data//in/\n"
                    "      rows: [{x: true, y: 1.5, z: \"2\"}]\n"
                    "  run: {refresh: 'a, b ,', full_refresh: [c]}\n"
                    "  expect:\n"
                    "    - dataset: t\n"
                    "      ordered: true\n"
                    "      rows: [{id: 1}]\n"
                    "    - expectation: e\n"
                    "      dropped: 0\n"
                    "second:\n"
                    "  steps:\n"
                    "    - expect: [{query: SELECT 1 WHERE false}]\n"
                    "    - run: {full_refresh_all: true}\n"
                    "      expect: [{error: X, message: boom}]\n");
    weir_arena a = WEIR_ARENA_INIT;
    weir__diags d = { 0 };
    weir_test *t = NULL;
    size_t n = 0;
    CHECK_INT(load(&t, &n, &a, &d, NULL, 0), 0);
    CHECK_INT(d.len, 0);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_STR(t[0].name, "first");
        CHECK_STR(t[0].path, "tests/a.yml");
        CHECK_INT(t[0].line, 1);
        CHECK_INT(t[0].n_steps, 1);
        const weir_step *s = &t[0].steps[0];
        CHECK_INT(s->n_fixtures, 2);
        CHECK_INT(s->fixtures[0].kind, WEIR_FIXTURE_TABLE);
        CHECK_INT(s->fixtures[0].n_columns, 1);
        if (s->fixtures[0].n_columns == 1)
            CHECK_STR(s->fixtures[0].columns[0].name, "id");
        CHECK_INT(s->fixtures[0].line, 3);
        CHECK_INT(s->fixtures[0].rows.n_rows, 2);
        CHECK_INT(s->fixtures[0].rows.cells[1].kind, WEIR_TV_NULL);
        CHECK_INT(s->fixtures[1].kind, WEIR_FIXTURE_FILES);
        CHECK_STR(s->fixtures[1].format, "json");
        CHECK_STR(s->fixtures[1].rows.cells[0].text, "true");
        CHECK_INT(s->fixtures[1].rows.cells[0].kind, WEIR_TV_BOOL);
        CHECK_INT(s->fixtures[1].rows.cells[1].kind, WEIR_TV_FLOAT);
        CHECK_INT(s->fixtures[1].rows.cells[2].kind, WEIR_TV_STRING);
        CHECK_INT(s->n_refresh, 2);
        if (s->n_refresh == 2) {
            CHECK_STR(s->refresh[0], "a");
            CHECK_STR(s->refresh[1], "b");
        }
        CHECK_INT(s->n_full_refresh, 1);
        CHECK_INT(s->n_checks, 2);
        CHECK_INT(s->checks[0].kind, WEIR_CHECK_ROWS);
        CHECK(s->checks[0].ordered);
        CHECK_INT(s->checks[0].line, 10);
        CHECK_INT(s->checks[1].kind, WEIR_CHECK_METRICS);
        CHECK_INT(s->checks[1].dropped, 0);
        CHECK_INT(s->checks[1].passed, -1);
        CHECK_INT(t[1].n_steps, 2);
        CHECK(t[1].steps[1].full_refresh_all);
        CHECK_INT(t[1].steps[1].checks[0].kind, WEIR_CHECK_ERROR);
        CHECK_STR(t[1].steps[1].checks[0].error_contains, "boom");
    }
    weir__diags_free(&d);
    weir__arena_free(&a);
    weir__fs_remove_tree(dir, NULL);
}

TEST(filters)
{
    setup();
    write_test_file("orders.yml", "alpha_one: {expect: [{query: q}]}\n"
                                  "beta: {expect: [{query: q}]}\n");
    write_test_file("other.yaml", "alpha_two: {expect: [{query: q}]}\n");
    const char *glob[] = { "alpha_*" }, *part[] = { "eta" },
               *stem[] = { "orders" }, *none[] = { "zzz" };
    struct {
        const char *const *f;
        size_t want;
    } cases[] = { { glob, 2 }, { part, 1 }, { stem, 2 }, { none, 0 } };
    for (size_t i = 0; i < 4; i++) {
        weir_arena a = WEIR_ARENA_INIT;
        weir__diags d = { 0 };
        weir_test *t = NULL;
        size_t n = 0;
        CHECK_INT(load(&t, &n, &a, &d, cases[i].f, 1), 0);
        CHECK_INT(n, cases[i].want);
        weir__diags_free(&d);
        weir__arena_free(&a);
    }
    weir__fs_remove_tree(dir, NULL);
}

TEST(problems_have_positions)
{
    setup();
    write_test_file("a.yml", "same: {expect: [{query: q}]}\n");
    write_test_file("b.yml", "same: {expect: [{query: q}]}\n"
                             "shapes:\n"
                             "  run: {refresh: [a], full_refresh_all: true}\n"
                             "  expect:\n"
                             "    - rows: [{a: 1}]\n"
                             "    - expectation: e\n");
    weir_arena a = WEIR_ARENA_INIT;
    weir__diags d = { 0 };
    weir_test *t = NULL;
    size_t n = 0;
    CHECK_INT(load(&t, &n, &a, &d, NULL, 0), WEIR_ESPEC);
    CHECK_INT(d.len, 3);
    if (d.len == 3) {
        /* `rows` without `dataset`, at the check. */
        CHECK_CONTAINS(d.items[0].message, "needs the `dataset`");
        CHECK_INT(d.items[0].line, 5);
        CHECK_INT(d.items[0].column, 7);
        CHECK_CONTAINS(d.items[1].message, "at least one of");
        CHECK_INT(d.items[1].line, 6);
        CHECK_CONTAINS(d.items[2].message, "conflicts with");
        CHECK_INT(d.items[2].line, 3);
        CHECK_INT(d.items[2].column, 8);
    }
    weir__diags_clear(&d);
    /* Without the bad test: the duplicate name is the problem. */
    write_test_file("b.yml", "same: {expect: [{query: q}]}\n");
    weir__arena_free(&a);
    CHECK_INT(load(&t, &n, &a, &d, NULL, 0), WEIR_ESPEC);
    CHECK_INT(d.len, 1);
    if (d.len == 1) {
        CHECK_CONTAINS(d.items[0].message, "Test `same` is also defined in ");
        CHECK_CONTAINS(d.items[0].message, "/tests/a.yml:1.");
        CHECK_CONTAINS(d.items[0].path, "/tests/b.yml");
        CHECK_INT(d.items[0].line, 1);
        CHECK_INT(d.items[0].column, 1);
    }
    weir__diags_free(&d);
    weir__arena_free(&a);
    weir__fs_remove_tree(dir, NULL);
}

TEST_MAIN(RUN(steps_fixtures_and_checks); RUN(filters);
          RUN(problems_have_positions);)
