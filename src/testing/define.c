/*
 * Test definitions: the tests/NAME.yml files of a project, read with the
 * spec's YAML reader (src/spec/yaml_tree.c) so that every problem is
 * reported at its file:line:col, into weir_test structs (testing.h). Each
 * file maps test names to tests; a test is one step (given / run /
 * expect) or a list of `steps`. docs/testing.md describes the format.
 */
#include "testing/testing.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"
#include "util/fs.h"
#include "util/str.h"
#include "util/vec.h"

typedef weir_spec_ynode ynode;

#define BAD_TEST "TEST_DEFINITION_INVALID"

typedef struct loader {
    weir_arena *a;
    weir_spec_report *r;
    const char *dir; /* the test file's folder (absolute) */
    const char *rel_dir; /* the same, relative to rel_base, for paths */
    const char *rel_base;
} loader;

static const char *const test_keys[] = { "description", "given", "run",
                                         "expect", "steps", NULL };
static const char *const step_keys[] = { "given", "run", "expect", NULL };
static const char *const run_keys[] = { "refresh", "full_refresh",
                                        "full_refresh_all", NULL };
static const char *const table_keys[] = { "table", "schema", "replace", "rows",
                                          "csv", "json", "sql", NULL };
static const char *const files_keys[] = { "files", "format", "rows", "csv",
                                          "json", "sql", NULL };
static const char *const topic_keys[] = { "topic", "rows", "csv", "json",
                                          "sql", NULL };
static const char *const rows_keys[] = { "dataset", "topic", "rows", "ordered",
                                         NULL };
static const char *const query_keys[] = { "query", NULL };
static const char *const metrics_keys[] = { "expectation", "dataset", "passed",
                                            "failed", "dropped", NULL };
static const char *const error_keys[] = { "error", "message", NULL };

static bool want(loader *ld, const ynode *n, bool ok, const char *field,
                 const char *what)
{
    if (!ok)
        SPEC_REPORT(ld->r, BAD_TEST, n->pos, "`%s` should be %s, got %s.",
                    field, what, n->type);
    return ok;
}

static const char *want_str(loader *ld, const ynode *n, const char *field)
{
    if (!n)
        return NULL;
    if (!want(ld, n, is_cstr(n) && n->len > 0, field, "a non-empty string"))
        return NULL;
    return n->text;
}

static bool want_bool(loader *ld, const ynode *n, const char *field, bool *out)
{
    if (!n)
        return true;
    if (!want(ld, n, n->kind == WEIR_SPEC_YSCALAR && is_type(n, "bool"), field,
              "true or false"))
        return false;
    *out = n->text[0] == 't' || n->text[0] == 'T' || n->text[0] == 'y' ||
           n->text[0] == 'Y' || weir__str_ieq(n->text, "on");
    return true;
}

static bool want_count(loader *ld, const ynode *n, const char *field,
                       long long *out)
{
    *out = -1;
    if (!n)
        return true;
    unsigned long long v;
    if (!want(ld, n,
              n->kind == WEIR_SPEC_YSCALAR && is_type(n, "int") &&
                  weir__str_parse_u64(n->text, &v) && v < (1ULL << 62),
              field, "a count (an integer, 0 or more)"))
        return false;
    *out = (long long)v;
    return true;
}

/* A table fixture's `schema:`, parsed as the columns of CREATE TABLE
 * (the SQL front end's column-list parser): the table is created from
 * them, so the text never becomes part of a statement. */
static bool load_schema(loader *ld, const ynode *n, weir_fixture *f)
{
    const char *text = want_str(ld, n, "schema");
    if (!text)
        return false;
    weir_sql_source *src = weir__arena_alloc(ld->a, sizeof(*src));
    if (!src)
        return false;
    memset(src, 0, sizeof(*src));
    src->path = "";
    src->text = text;
    src->len = strlen(text);
    weir_error e;
    weir__error_clear(&e);
    int rc = weir__sql_parse_columns(&f->columns, &f->n_columns, ld->a, src, &e);
    if (rc == WEIR_ENOMEM)
        return false;
    if (rc) {
        SPEC_REPORT(ld->r, BAD_TEST, n->pos,
                    "`schema` should be the columns of a table as Spark DDL "
                    "writes them (`id BIGINT, name STRING`): %s (at "
                    "character %u of `%.*s`).",
                    e.message, e.column ? e.column : 1, CLIP(text));
        return false;
    }
    return true;
}

/* A scalar as a typed test value. */
static bool to_value(loader *ld, const ynode *n, weir_tvalue *out)
{
    if (n->kind != WEIR_SPEC_YSCALAR || strlen(n->text) != n->len) {
        SPEC_REPORT(ld->r, BAD_TEST, n->pos,
                    "A value in `rows` should be a scalar (a string, number, "
                    "boolean or null), got %s.",
                    n->type);
        return false;
    }
    out->text = n->text;
    if (is_null(n)) {
        out->kind = WEIR_TV_NULL;
        out->text = NULL;
    } else if (is_type(n, "bool")) {
        bool b = false;
        want_bool(ld, n, "", &b);
        out->kind = WEIR_TV_BOOL;
        out->text = b ? "true" : "false";
    } else if (is_type(n, "int")) {
        out->kind = WEIR_TV_INT;
    } else if (is_type(n, "float")) {
        out->kind = WEIR_TV_FLOAT;
    } else {
        out->kind = WEIR_TV_STRING;
    }
    return true;
}

/* `rows`: a list of mappings with the same keys, in the same order. */
static bool load_rows(loader *ld, const ynode *v, weir_trows *out)
{
    if (!want(ld, v, is_list(v), "rows", "a list of mappings"))
        return false;
    memset(out, 0, sizeof(*out));
    if (v->n == 0)
        return true;
    const ynode *first = v->items[0];
    if (!want(ld, first, is_dict(first), "rows", "a list of mappings"))
        return false;
    out->n_cols = first->n / 2;
    out->cols = weir__arena_array(ld->a, out->n_cols + 1, sizeof(char *));
    out->cells = weir__arena_array(ld->a, v->n * out->n_cols + 1,
                                   sizeof(weir_tvalue));
    if (!out->cols || !out->cells)
        return false;
    for (size_t c = 0; c < out->n_cols; c++) {
        const ynode *k = first->items[2 * c];
        if (!is_cstr(k) || k->len == 0) {
            SPEC_REPORT(ld->r, BAD_TEST, k->pos,
                        "A column name in `rows` should be a non-empty "
                        "string, got %s.",
                        k->type);
            return false;
        }
        out->cols[c] = k->text;
    }
    bool ok = true;
    for (size_t r = 0; r < v->n; r++) {
        const ynode *row = v->items[r];
        if (!is_dict(row) || row->n / 2 != out->n_cols) {
            SPEC_REPORT(ld->r, BAD_TEST, row->pos,
                        "Every row should be a mapping with the columns of "
                        "the first row (%zu), in the same order.",
                        out->n_cols);
            ok = false;
            continue;
        }
        for (size_t c = 0; c < out->n_cols; c++) {
            const ynode *k = row->items[2 * c];
            if (!is_str(k) || strcmp(k->text, out->cols[c]) != 0) {
                SPEC_REPORT(ld->r, BAD_TEST, k->pos,
                            "Column `%.*s` where the first row has `%.*s`: "
                            "give the columns of every row in the same "
                            "order.",
                            CLIP(key_text(k)), CLIP(out->cols[c]));
                ok = false;
                break;
            }
            ok &= to_value(ld, row->items[2 * c + 1],
                           &out->cells[r * out->n_cols + c]);
        }
    }
    out->n_rows = v->n;
    return ok;
}

/* A file beside the test that must exist; returns its absolute path. */
static const char *fixture_file(loader *ld, const ynode *v, const char *field)
{
    const char *name = want_str(ld, v, field);
    if (!name)
        return NULL;
    char *abs = weir__path_absolute(name, ld->dir);
    const char *out = weir__arena_strdup(ld->a, abs);
    bool found = abs && weir__fs_is_file(abs);
    free(abs);
    if (!found) {
        SPEC_REPORT(ld->r, "TEST_FIXTURE_FILE_NOT_FOUND", v->pos,
                    "The %s file `%.*s` does not exist (paths are relative "
                    "to the test file's folder).",
                    field, CLIP(name));
        return NULL;
    }
    return out;
}

/* One of rows / csv / json / sql: the fixture's source. */
static bool load_source(loader *ld, const ynode *v, weir_fixture *f)
{
    static const char *const names[] = { "rows", "csv", "json", "sql" };
    const ynode *given = NULL;
    size_t which = 0, n = 0;
    for (size_t i = 0; i < 4; i++) {
        const ynode *s = weir__spec_get(v, names[i]);
        if (s) {
            n++;
            if (!given) {
                given = s;
                which = i;
            }
        }
    }
    if (n != 1) {
        SPEC_REPORT(ld->r, BAD_TEST, v->pos,
                    "A fixture needs exactly one of `rows`, `csv`, `json` "
                    "or `sql`%s.",
                    n ? " (several are given)" : "");
        return false;
    }
    f->source = (weir_fixture_source)which;
    switch (f->source) {
    case WEIR_FSRC_ROWS: return load_rows(ld, given, &f->rows);
    case WEIR_FSRC_CSV: return (f->file = fixture_file(ld, given, "csv"));
    case WEIR_FSRC_JSON: return (f->file = fixture_file(ld, given, "json"));
    case WEIR_FSRC_SQL: return (f->sql = want_str(ld, given, "sql"));
    }
    return false;
}

/* A column of a topic fixture's inline rows must be a message's. */
static bool topic_column(loader *ld, const ynode *rows, const char *col)
{
    for (size_t i = 0; weir__topic_columns[i]; i++)
        if (!strcmp(weir__topic_columns[i], col))
            return true;
    const ynode *first = rows && rows->n ? rows->items[0] : NULL;
    const ynode *at = NULL;
    for (size_t i = 0; first && i + 1 < first->n; i += 2)
        if (!strcmp(first->items[i]->text, col))
            at = first->items[i];
    SPEC_REPORT(ld->r, BAD_TEST, at ? at->pos : rows->pos,
                "`%.*s` is not a column of a topic fixture: its rows have a "
                "Kafka message's `key`, `value`, `partition`, `timestamp`, "
                "`timestampType` and `headers` (a JSON object of header "
                "names and values); the topic and the offsets are given by "
                "the fixture.",
                CLIP(col));
    return false;
}

/* A relative path below the project folder: no `..` part, not the
 * folder itself. */
static bool fixture_path_ok(const char *p)
{
    if (weir__path_is_abs(p) || weir__str_istarts(p, "file:"))
        return false;
    bool named = false;
    for (const char *s = p; *s;) {
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return false;
        named |= n > 0 && !(n == 1 && s[0] == '.');
        s += n;
        s += *s == '/';
    }
    return named;
}

static bool load_fixture(loader *ld, const ynode *v, weir_fixture *f)
{
    if (!want(ld, v, is_dict(v), "given", "a list of mappings"))
        return false;
    const ynode *table = weir__spec_get(v, "table");
    const ynode *files = weir__spec_get(v, "files");
    const ynode *topic = weir__spec_get(v, "topic");
    if ((table != NULL) + (files != NULL) + (topic != NULL) != 1) {
        SPEC_REPORT(ld->r, BAD_TEST, v->pos,
                    "A fixture names one of `table`, `files` (a path the SQL "
                    "reads) or `topic` (a Kafka topic)%s.",
                    table || files ? ", not several" : "");
        return false;
    }
    memset(f, 0, sizeof(*f));
    bool ok;
    if (topic) {
        f->kind = WEIR_FIXTURE_TOPIC;
        weir__spec_extra_keys(ld->r, v, topic_keys, BAD_TEST, "a topic fixture");
        ok = (f->target = want_str(ld, topic, "topic")) != NULL;
        ok &= load_source(ld, v, f);
        for (size_t c = 0; ok && c < f->rows.n_cols; c++)
            ok &= topic_column(ld, weir__spec_get(v, "rows"), f->rows.cols[c]);
        return ok;
    }
    if (table) {
        f->kind = WEIR_FIXTURE_TABLE;
        weir__spec_extra_keys(ld->r, v, table_keys, BAD_TEST, "a table fixture");
        ok = (f->target = want_str(ld, table, "table")) != NULL;
        f->line = table->pos.line;
        f->column = table->pos.column;
        const ynode *schema = weir__spec_get(v, "schema");
        ok &= !schema || load_schema(ld, schema, f);
        ok &= want_bool(ld, weir__spec_get(v, "replace"), "replace",
                        &f->replace);
    } else {
        f->kind = WEIR_FIXTURE_FILES;
        weir__spec_extra_keys(ld->r, v, files_keys, BAD_TEST, "a files fixture");
        ok = (f->target = want_str(ld, files, "files")) != NULL;
        if (ok && !fixture_path_ok(f->target)) {
            SPEC_REPORT(ld->r, BAD_TEST, files->pos,
                        "`files` should be a path below the project folder, "
                        "relative to it as the SQL writes it, without `..`: "
                        "got `%.*s`.",
                        CLIP(f->target));
            ok = false;
        }
        const ynode *fmt = weir__spec_get(v, "format");
        f->format = fmt ? want_str(ld, fmt, "format") : NULL;
        if (!f->format && f->target && weir__str_ends(f->target, ".csv"))
            f->format = "csv";
        if (!f->format)
            f->format = "json";
        if (!weir__str_ieq(f->format, "json") && !weir__str_ieq(f->format, "csv")) {
            SPEC_REPORT(ld->r, BAD_TEST, fmt ? fmt->pos : v->pos,
                        "`format` of a files fixture should be `json` or "
                        "`csv`, got `%.*s`.",
                        CLIP(f->format));
            ok = false;
        }
    }
    ok &= load_source(ld, v, f);
    return ok;
}

/* A list of names: a YAML list of strings or one comma-separated string. */
static bool load_names(loader *ld, const ynode *v, const char *field,
                       const char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!v)
        return true;
    if (is_cstr(v)) {
        size_t cap = 1;
        for (const char *s = v->text; *s; s++)
            cap += *s == ',';
        *out = weir__arena_array(ld->a, cap, sizeof(char *));
        if (!*out)
            return false;
        for (const char *s = v->text; *s;) {
            size_t len = strcspn(s, ",");
            const char *b = s, *e = s + len;
            while (b < e && (*b == ' ' || *b == '\t'))
                b++;
            while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
                e--;
            if (e > b)
                (*out)[(*n)++] = weir__arena_strndup(ld->a, b, (size_t)(e - b));
            s += len;
            s += *s == ',';
        }
        return true;
    }
    if (!want(ld, v, is_list(v), field, "a list of dataset names"))
        return false;
    *out = weir__arena_array(ld->a, v->n + 1, sizeof(char *));
    if (!*out)
        return false;
    for (size_t i = 0; i < v->n; i++) {
        const char *s = want_str(ld, v->items[i], field);
        if (!s)
            return false;
        (*out)[(*n)++] = s;
    }
    return true;
}

static bool load_run(loader *ld, const ynode *v, weir_step *s)
{
    if (!v)
        return true;
    if (!want(ld, v, is_dict(v), "run", "a mapping"))
        return false;
    weir__spec_extra_keys(ld->r, v, run_keys, BAD_TEST, "`run`");
    bool ok = load_names(ld, weir__spec_get(v, "refresh"), "refresh",
                         &s->refresh, &s->n_refresh);
    ok &= load_names(ld, weir__spec_get(v, "full_refresh"), "full_refresh",
                     &s->full_refresh, &s->n_full_refresh);
    ok &= want_bool(ld, weir__spec_get(v, "full_refresh_all"),
                    "full_refresh_all", &s->full_refresh_all);
    if (ok && s->full_refresh_all && (s->n_refresh || s->n_full_refresh)) {
        SPEC_REPORT(ld->r, BAD_TEST, v->pos,
                    "`full_refresh_all` conflicts with `refresh` and "
                    "`full_refresh`.");
        ok = false;
    }
    return ok;
}

static bool load_check(loader *ld, const ynode *v, weir_check *c)
{
    if (!want(ld, v, is_dict(v), "expect", "a list of mappings"))
        return false;
    memset(c, 0, sizeof(*c));
    c->line = v->pos.line;
    c->passed = c->failed = c->dropped = -1;
    const ynode *n;
    if ((n = weir__spec_get(v, "rows"))) {
        c->kind = WEIR_CHECK_ROWS;
        weir__spec_extra_keys(ld->r, v, rows_keys, BAD_TEST,
                              "a rows expectation");
        const ynode *d = weir__spec_get(v, "dataset");
        const ynode *t = weir__spec_get(v, "topic");
        if (!d == !t) {
            SPEC_REPORT(ld->r, BAD_TEST, v->pos,
                        "A `rows` expectation needs the `dataset` it checks, "
                        "or the Kafka `topic`%s.",
                        d ? ", not both" : "");
            return false;
        }
        bool ok = d ? (c->dataset = want_str(ld, d, "dataset")) != NULL
                    : (c->topic = want_str(ld, t, "topic")) != NULL;
        ok &= want_bool(ld, weir__spec_get(v, "ordered"), "ordered",
                        &c->ordered);
        ok &= load_rows(ld, n, &c->rows);
        if (ok && c->rows.n_rows == 0)
            c->rows.n_cols = 0; /* an empty dataset: no column to check */
        return ok;
    }
    if ((n = weir__spec_get(v, "query"))) {
        c->kind = WEIR_CHECK_EMPTY_QUERY;
        weir__spec_extra_keys(ld->r, v, query_keys, BAD_TEST,
                              "a query expectation (it must return no rows)");
        return (c->sql = want_str(ld, n, "query")) != NULL;
    }
    if ((n = weir__spec_get(v, "expectation"))) {
        c->kind = WEIR_CHECK_METRICS;
        weir__spec_extra_keys(ld->r, v, metrics_keys, BAD_TEST,
                              "an expectation-metrics check");
        bool ok = (c->expectation = want_str(ld, n, "expectation")) != NULL;
        const ynode *d = weir__spec_get(v, "dataset");
        ok &= !d || (c->dataset = want_str(ld, d, "dataset"));
        ok &= want_count(ld, weir__spec_get(v, "passed"), "passed", &c->passed);
        ok &= want_count(ld, weir__spec_get(v, "failed"), "failed", &c->failed);
        ok &= want_count(ld, weir__spec_get(v, "dropped"), "dropped",
                         &c->dropped);
        if (ok && c->passed < 0 && c->failed < 0 && c->dropped < 0) {
            SPEC_REPORT(ld->r, BAD_TEST, v->pos,
                        "An expectation-metrics check needs at least one of "
                        "`passed`, `failed` or `dropped`.");
            ok = false;
        }
        return ok;
    }
    if ((n = weir__spec_get(v, "error"))) {
        c->kind = WEIR_CHECK_ERROR;
        weir__spec_extra_keys(ld->r, v, error_keys, BAD_TEST,
                              "an error expectation");
        bool ok = (c->error_class = want_str(ld, n, "error")) != NULL;
        const ynode *m = weir__spec_get(v, "message");
        ok &= !m || (c->error_contains = want_str(ld, m, "message"));
        return ok;
    }
    SPEC_REPORT(ld->r, BAD_TEST, v->pos,
                "An expectation needs one of `rows` (with `dataset` or "
                "`topic`), "
                "`query`, `expectation` or `error`.");
    return false;
}

/* A list field of a step into a counted arena array. */
#define LOAD_LIST(ld, v, field, arr, cnt, fn)                                   \
    do {                                                                      \
        if (!(v))                                                             \
            break;                                                            \
        if (!want((ld), (v), is_list(v), (field), "a list of mappings")) {    \
            ok = false;                                                       \
            break;                                                            \
        }                                                                     \
        (arr) = weir__arena_array((ld)->a, (v)->n + 1, sizeof(*(arr)));       \
        if (!(arr)) {                                                         \
            ok = false;                                                       \
            break;                                                            \
        }                                                                     \
        for (size_t i_ = 0; i_ < (v)->n; i_++)                                \
            ok &= fn((ld), (v)->items[i_], &(arr)[(cnt)++]);                  \
    } while (0)

static bool load_step(loader *ld, const ynode *m, weir_step *s)
{
    bool ok = true;
    memset(s, 0, sizeof(*s));
    const ynode *given = weir__spec_get(m, "given");
    const ynode *expect = weir__spec_get(m, "expect");
    LOAD_LIST(ld, given, "given", s->fixtures, s->n_fixtures, load_fixture);
    LOAD_LIST(ld, expect, "expect", s->checks, s->n_checks, load_check);
    ok &= load_run(ld, weir__spec_get(m, "run"), s);
    return ok;
}

static bool load_test(loader *ld, const ynode *key, const ynode *v,
                      weir_test *t)
{
    memset(t, 0, sizeof(*t));
    t->name = key->text;
    t->line = key->pos.line;
    t->column = key->pos.column;
    if (!want(ld, v, is_dict(v), t->name, "a mapping (a test)"))
        return false;
    weir__spec_extra_keys(ld->r, v, test_keys, BAD_TEST, "a test");
    const ynode *d = weir__spec_get(v, "description");
    bool ok = !d || want_str(ld, d, "description");
    const ynode *steps = weir__spec_get(v, "steps");
    if (steps) {
        for (const char *const *k = step_keys; *k; k++) {
            const ynode *other = weir__spec_get(v, *k);
            if (other) {
                SPEC_REPORT(ld->r, BAD_TEST, other->pos,
                            "`%s` belongs inside each of `steps` when a "
                            "test has steps.",
                            *k);
                ok = false;
            }
        }
        if (!want(ld, steps, is_list(steps) && steps->n > 0, "steps",
                  "a non-empty list of mappings"))
            return false;
        t->steps = weir__arena_array(ld->a, steps->n, sizeof(*t->steps));
        if (!t->steps)
            return false;
        for (size_t i = 0; i < steps->n; i++) {
            const ynode *s = steps->items[i];
            if (!want(ld, s, is_dict(s), "steps", "a list of mappings")) {
                ok = false;
                continue;
            }
            weir__spec_extra_keys(ld->r, s, step_keys, BAD_TEST, "a step");
            ok &= load_step(ld, s, &t->steps[t->n_steps++]);
        }
    } else {
        t->steps = weir__arena_array(ld->a, 1, sizeof(*t->steps));
        if (!t->steps)
            return false;
        t->n_steps = 1;
        ok &= load_step(ld, v, &t->steps[0]);
    }
    size_t checks = 0;
    for (size_t i = 0; i < t->n_steps; i++)
        checks += t->steps[i].n_checks;
    if (ok && checks == 0) {
        SPEC_REPORT(ld->r, BAD_TEST, key->pos,
                    "Test `%.*s` checks nothing: give it an `expect` list.",
                    CLIP(t->name));
        ok = false;
    }
    return ok;
}

static bool selected(const char *name, const char *stem,
                     const char *const *filters, size_t n)
{
    if (n == 0)
        return true;
    for (size_t i = 0; i < n; i++) {
        if (fnmatch(filters[i], name, 0) == 0 || strstr(name, filters[i]) ||
            strcmp(filters[i], stem) == 0)
            return true;
    }
    return false;
}

typedef WEIR_VEC(weir_test) test_vec;

static int load_file(test_vec *tests, weir_arena *a, const char *path,
                     const char *shown, const char *rel_path,
                     const char *const *filters, size_t n_filters,
                     weir__diags *diags, weir_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = weir__fs_read(&text, &len, path, err);
    if (rc)
        return rc;
    char *copy = weir__arena_strndup(a, text, len);
    free(text);
    if (!copy)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir_error first;
    weir_spec_report rep = { shown, copy, len, diags, &first, 0 };
    ynode *root = NULL;
    rc = weir__spec_yaml_parse(&root, a, copy, len, &rep);
    if (rc == WEIR_ENOMEM)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    char *dir = weir__path_dirname(path);
    loader ld = { a, &rep, dir ? weir__arena_strdup(a, dir) : NULL, NULL, NULL };
    free(dir);
    if (!rc && rep.n == 0 && root && !is_null(root)) {
        if (!is_dict(root)) {
            SPEC_REPORT(&rep, BAD_TEST, root->pos,
                        "A test file maps test names to tests, got %s.",
                        root->type);
        } else {
            char *stem = weir__arena_strdup(a, weir__path_basename(path));
            char *dot = stem ? strrchr(stem, '.') : NULL;
            if (dot)
                *dot = '\0';
            for (size_t i = 0; i + 1 < root->n; i += 2) {
                const ynode *k = root->items[i];
                if (!is_cstr(k) || k->len == 0) {
                    SPEC_REPORT(&rep, BAD_TEST, k->pos,
                                "A test name should be a non-empty string, "
                                "got %s.",
                                k->type);
                    continue;
                }
                if (!selected(k->text, stem ? stem : "", filters, n_filters))
                    continue;
                weir_test t;
                if (load_test(&ld, k, root->items[i + 1], &t)) {
                    t.path = rel_path;
                    t.shown_path = shown;
                    if (WEIR_VEC_PUSH(tests, t))
                        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
                }
            }
        }
    }
    if (weir__arena_failed(a))
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rep.n) {
        weir__error_copy(err, &first);
        return WEIR_ESPEC;
    }
    return 0;
}

int weir__tests_load(weir_test **out, size_t *n_out, weir_arena *arena,
                     const char *tests_dir, const char *rel_base,
                     const char *const *filters, size_t n_filters,
                     weir__diags *diags, weir_error *err)
{
    *out = NULL;
    *n_out = 0;
    if (!weir__fs_is_dir(tests_dir))
        return 0;
    weir_file_list files;
    memset(&files, 0, sizeof(files));
    int rc = weir__fs_list(&files, tests_dir, false, true, err);
    if (rc)
        return rc;
    char *cwd = weir__path_cwd();
    test_vec tests = WEIR_VEC_INIT;
    int first_rc = 0;
    for (size_t i = 0; i < files.len && first_rc != WEIR_ENOMEM; i++) {
        const char *path = files.items[i].path;
        if (!weir__str_ends(path, ".yml") && !weir__str_ends(path, ".yaml"))
            continue;
        size_t nb = strlen(rel_base), nc = cwd ? strlen(cwd) : 0;
        const char *rel = strncmp(path, rel_base, nb) == 0 && path[nb] == '/'
                              ? path + nb + 1
                              : path;
        const char *shown = cwd && strncmp(path, cwd, nc) == 0 && path[nc] == '/'
                                ? path + nc + 1
                                : path;
        weir_error e;
        rc = load_file(&tests, arena, path, weir__arena_strdup(arena, shown),
                       weir__arena_strdup(arena, rel), filters, n_filters,
                       diags, &e);
        if (rc && !first_rc) {
            first_rc = rc;
            weir__error_copy(err, &e);
        }
    }
    free(cwd);
    weir__fs_list_free(&files);
    /* Names are unique across files (filters and reports name tests). */
    for (size_t i = 0; !first_rc && i < tests.len; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(tests.items[i].name, tests.items[j].name) != 0)
                continue;
            weir_error e;
            WEIR_ERR(&e, WEIR_ESPEC, BAD_TEST,
                     "Test `%s` is also defined in %s:%u.", tests.items[i].name,
                     tests.items[j].shown_path, tests.items[j].line);
            weir__error_at(&e, tests.items[i].shown_path, tests.items[i].line,
                           tests.items[i].column);
            weir__diags_add(diags, &e);
            weir__error_copy(err, &e);
            first_rc = WEIR_ESPEC;
            break;
        }
    }
    if (!first_rc && tests.len) {
        *out = weir__arena_array(arena, tests.len, sizeof(weir_test));
        if (!*out)
            first_rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        else
            memcpy(*out, tests.items, tests.len * sizeof(weir_test));
        *n_out = tests.len;
    }
    WEIR_VEC_FREE(&tests);
    return first_rc;
}
