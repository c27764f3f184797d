/*
 * The public weir_test_suite API: loading a project's tests, and running
 * each one in a temporary folder of its own (storage, and a root folder
 * mirroring the project when it has file fixtures) on a pipeline loaded
 * from the spec: step by step, fixtures, an update, then the step's
 * expectations. Tests run on a small pool of worker threads; results go
 * back to the caller's thread as they end. A test's result strings live
 * in its own arena, written only by the worker running it.
 */
#include "testing/testing.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec/spec.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/str.h"
#include "util/vec.h"

struct weir_test_suite {
    weir_arena arena; /* the definitions */
    weir__diags diags;
    char *spec_path, *spec_dir;
    weir_test *tests;
    size_t n_tests;
    weir_test_result *results; /* n_tests, once run */
    weir_arena *result_arenas;
    bool *ran;
};

/* ---- loading ---------------------------------------------------------------- */

int weir_test_suite_load(weir_test_suite **out, const char *spec_path,
                         const char *const *filters, size_t n_filters,
                         weir_error *err)
{
    if (!out || (n_filters && !filters))
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "out is required");
    *out = NULL;
    char *path = NULL;
    int rc = 0;
    if (spec_path) {
        path = weir__path_absolute(spec_path, NULL);
        rc = path ? weir__spec_check_path(path, err)
                  : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    } else {
        char *cwd = weir__path_cwd();
        rc = cwd ? weir__spec_find(&path, cwd, err)
                 : WEIR_ERR(err, WEIR_EIO, NULL, "cannot read the current folder");
        free(cwd);
    }
    weir_test_suite *s = rc ? NULL : calloc(1, sizeof(*s));
    if (!rc && !s)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc) {
        free(path);
        return rc;
    }
    s->spec_path = path;
    s->spec_dir = weir__path_dirname(path);
    char *tests_dir = s->spec_dir ? weir__path_join(s->spec_dir, "tests") : NULL;
    rc = tests_dir ? weir__tests_load(&s->tests, &s->n_tests, &s->arena,
                                      tests_dir, s->spec_dir, filters,
                                      n_filters, &s->diags, err)
                   : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    free(tests_dir);
    *out = s;
    return rc;
}

size_t weir_test_suite_diagnostics(const weir_test_suite *s,
                                   const weir_error **out)
{
    if (out)
        *out = s && s->diags.len ? s->diags.items : NULL;
    return s ? s->diags.len : 0;
}

size_t weir_test_suite_count(const weir_test_suite *s)
{
    return s ? s->n_tests : 0;
}

const weir_test_result *weir_test_suite_result(const weir_test_suite *s,
                                               size_t i)
{
    return s && s->ran && i < s->n_tests && s->ran[i] ? &s->results[i] : NULL;
}

void weir_test_suite_free(weir_test_suite *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->result_arenas && i < s->n_tests; i++)
        weir__arena_free(&s->result_arenas[i]);
    free(s->result_arenas);
    free(s->results);
    free(s->ran);
    weir__diags_free(&s->diags);
    weir__arena_free(&s->arena);
    free(s->spec_path);
    free(s->spec_dir);
    free(s);
}

/* ---- one test --------------------------------------------------------------- */

typedef struct seen_error {
    char *cls, *message;
} seen_error;

typedef struct seen_metric {
    char *dataset, *name;
    long long passed, failed;
} seen_metric;

typedef struct seen_drop {
    char *dataset;
    long long dropped;
} seen_drop;

/* What one step's update reported. */
typedef struct step_log {
    weir_arena *a;
    WEIR_VEC(seen_error) errors;
    WEIR_VEC(seen_metric) metrics;
    WEIR_VEC(seen_drop) drops;
} step_log;

typedef struct test_run {
    const weir_test_suite *suite;
    const weir_test *t;
    weir_test_result *res;
    weir_arena *a;
    size_t step; /* running now, 0-based */
    const char *sandbox, *root, *sinks;
    weir_pipeline *p;
    const volatile int *cancel;
} test_run;

static void add_error(step_log *l, const char *cls, const char *msg)
{
    seen_error e = { weir__arena_strdup(l->a, cls ? cls : ""),
                     weir__arena_strdup(l->a, msg ? msg : "") };
    (void)WEIR_VEC_PUSH(&l->errors, e);
}

static long long json_count(const weir_json *o, const char *key)
{
    const weir_json *v = weir__json_get(o, key);
    return v && v->type == WEIR_JSON_NUMBER ? (long long)v->number : 0;
}

static void on_quality(step_log *l, const char *dataset, const weir_json *dq)
{
    seen_drop d = { weir__arena_strdup(l->a, dataset),
                    json_count(dq, "dropped_records") };
    (void)WEIR_VEC_PUSH(&l->drops, d);
    const weir_json *list = weir__json_get(dq, "expectations");
    for (size_t i = 0; list && list->type == WEIR_JSON_ARRAY && i < list->len;
         i++) {
        const weir_json *e = list->items[i];
        const char *ds = weir__json_get_str(e, "dataset");
        seen_metric m = { weir__arena_strdup(l->a, ds ? ds : dataset),
                          weir__arena_strdup(l->a, weir__json_get_str(e, "name")),
                          json_count(e, "passed_records"),
                          json_count(e, "failed_records") };
        (void)WEIR_VEC_PUSH(&l->metrics, m);
    }
}

static void on_event(const weir_event *ev, void *payload)
{
    step_log *l = payload;
    weir_arena a = WEIR_ARENA_INIT;
    weir_json *j = NULL;
    if (ev->error_json &&
        weir__json_parse(&j, &a, ev->error_json, strlen(ev->error_json),
                         NULL) == 0)
        add_error(l, weir__json_get_str(j, "class"),
                  weir__json_get_str(j, "message"));
    if (ev->details_json && ev->event_type &&
        strcmp(ev->event_type, "flow_progress") == 0 &&
        strstr(ev->details_json, "\"data_quality\"") &&
        weir__json_parse(&j, &a, ev->details_json, strlen(ev->details_json),
                         NULL) == 0) {
        const weir_json *fp = weir__json_get(j, "flow_progress");
        const weir_json *dq = fp ? weir__json_get(fp, "data_quality") : NULL;
        if (dq && dq->type == WEIR_JSON_OBJECT)
            on_quality(l, ev->dataset_name ? ev->dataset_name : "", dq);
    }
    weir__arena_free(&a);
}

static void step_log_free(step_log *l)
{
    WEIR_VEC_FREE(&l->errors);
    WEIR_VEC_FREE(&l->metrics);
    WEIR_VEC_FREE(&l->drops);
}

/* Record the test's failure (the first one wins). */
static void fail(test_run *r, const char *cls, const weir_check *c,
                 const char *details, const char *fmt, ...) WEIR_PRINTF(5, 6);
static void fail(test_run *r, const char *cls, const weir_check *c,
                 const char *details, const char *fmt, ...)
{
    if (r->res->status == WEIR_TEST_FAILED)
        return;
    weir_buf m = WEIR_BUF_INIT;
    if (r->t->n_steps > 1)
        weir__buf_printf(&m, "step %zu: ", r->step + 1);
    if (c)
        weir__buf_printf(&m, "%s:%u: ", r->t->path, c->line);
    va_list ap;
    va_start(ap, fmt);
    char tmp[2048];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    weir__buf_puts(&m, tmp);
    r->res->status = WEIR_TEST_FAILED;
    r->res->failure_class = cls;
    r->res->message = weir__arena_strdup(r->a, weir__buf_cstr(&m));
    r->res->details = details && *details ? weir__arena_strdup(r->a, details)
                                          : NULL;
    weir__buf_free(&m);
}

static void put_error_line(weir_buf *b, const weir_error *e)
{
    if (e->path[0]) {
        weir__buf_puts(b, e->path);
        if (e->line)
            weir__buf_printf(b, ":%u:%u", e->line, e->column);
        weir__buf_puts(b, ": ");
    }
    if (e->error_class[0])
        weir__buf_printf(b, "[%s] ", e->error_class);
    weir__buf_puts(b, e->message);
}

/* A call failed: its diagnostics (or err) become the step's errors. */
static void log_call_errors(step_log *l, weir_pipeline *p, const weir_error *err)
{
    const weir_error *d = NULL;
    size_t n = p ? weir_pipeline_diagnostics(p, &d) : 0;
    if (n == 0) {
        d = err;
        n = 1;
    }
    for (size_t i = 0; i < n; i++) {
        weir_buf b = WEIR_BUF_INIT;
        put_error_line(&b, &d[i]);
        add_error(l, d[i].error_class, weir__buf_cstr(&b));
        weir__buf_free(&b);
    }
}

static bool name_matches(const char *qualified, const char *name)
{
    if (!qualified || !name)
        return false;
    if (weir__str_ieq(qualified, name))
        return true;
    size_t nq = strlen(qualified), nn = strlen(name);
    return nq > nn && qualified[nq - nn - 1] == '.' &&
           weir__str_ieq(qualified + nq - nn, name);
}

static void put_row(weir_buf *b, const weir_result *res, size_t row)
{
    size_t n = weir_result_column_count(res);
    weir__buf_puts(b, "  {");
    for (size_t c = 0; c < n; c++) {
        const char *v = weir_result_value(res, c, row);
        weir__buf_printf(b, "%s%s: %s", c ? ", " : "",
                         weir_result_column_name(res, c), v ? v : "null");
    }
    weir__buf_puts(b, "}\n");
}

static void check_rows(test_run *r, const weir_check *c)
{
    /* What the rows are of, in messages: "topic t" or the dataset. */
    const char *kind = c->topic ? "topic " : "";
    const char *name = c->topic ? c->topic : c->dataset;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT ");
    for (size_t i = 0; i < c->rows.n_cols; i++) {
        if (i)
            weir__buf_puts(&q, ", ");
        weir__buf_putc(&q, '`');
        for (const char *s = c->rows.cols[i]; *s; s++) {
            if (*s == '`')
                weir__buf_putc(&q, '`');
            weir__buf_putc(&q, *s);
        }
        weir__buf_putc(&q, '`');
    }
    if (c->rows.n_cols == 0)
        weir__buf_puts(&q, "*");
    weir__buf_puts(&q, " FROM ");
    if (c->topic)
        weir__topic_relation(&q, c->topic);
    else
        weir__buf_puts(&q, c->dataset);
    weir_result *res = NULL;
    weir_error err;
    memset(&err, 0, sizeof err);
    int rc = weir_pipeline_query(r->p, weir__buf_cstr(&q), &res, &err);
    weir__buf_free(&q);
    if (rc) {
        weir_buf b = WEIR_BUF_INIT;
        put_error_line(&b, &err);
        fail(r, "CHECK_QUERY_FAILED", c, NULL, "cannot read %s%s: %s", kind,
             name, weir__buf_cstr(&b));
        weir__buf_free(&b);
        return;
    }
    size_t n = weir_result_row_count(res), nc = c->rows.n_cols;
    const char **cells = calloc(n * nc + 1, sizeof(*cells));
    if (!cells) {
        weir_result_free(res);
        fail(r, "CHECK_QUERY_FAILED", c, NULL, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < nc; k++)
            cells[i * nc + k] = weir_result_value(res, k, i);
    weir_buf diff = WEIR_BUF_INIT;
    size_t diffs;
    if (nc == 0) {
        diffs = n;
        for (size_t i = 0; i < n && i < 20; i++) {
            weir__buf_puts(&diff, "  + unexpected: ");
            put_row(&diff, res, i);
        }
    } else {
        diffs = weir__rows_diff(&diff, &c->rows, cells, n, c->ordered);
    }
    if (diffs)
        fail(r, "ROWS_DIFFER", c, weir__buf_cstr(&diff),
             "rows of %s%s differ%s: %zu of them (expected %zu row%s, got %zu)",
             kind, name, c->ordered ? " (in order)" : "", diffs,
             c->rows.n_rows, c->rows.n_rows == 1 ? "" : "s", n);
    weir__buf_free(&diff);
    free(cells);
    weir_result_free(res);
}

static void check_empty_query(test_run *r, const weir_check *c)
{
    weir_result *res = NULL;
    weir_error err;
    memset(&err, 0, sizeof err);
    int rc = weir_pipeline_query(r->p, c->sql, &res, &err);
    if (rc) {
        weir_buf b = WEIR_BUF_INIT;
        put_error_line(&b, &err);
        fail(r, "CHECK_QUERY_FAILED", c, NULL, "the query failed: %s",
             weir__buf_cstr(&b));
        weir__buf_free(&b);
        return;
    }
    size_t n = weir_result_row_count(res);
    if (n) {
        weir_buf d = WEIR_BUF_INIT;
        for (size_t i = 0; i < n && i < 20; i++)
            put_row(&d, res, i);
        if (n > 20)
            weir__buf_printf(&d, "  ... and %zu more rows\n", n - 20);
        fail(r, "QUERY_RETURNED_ROWS", c, weir__buf_cstr(&d),
             "the query should return no rows; it returned %zu", n);
        weir__buf_free(&d);
    }
    weir_result_free(res);
}

static void check_metrics(test_run *r, const weir_check *c, const step_log *l)
{
    long long passed = 0, failed = 0, dropped = 0;
    bool found = false;
    for (size_t i = 0; i < l->metrics.len; i++) {
        const seen_metric *m = &l->metrics.items[i];
        if (!m->name || strcmp(m->name, c->expectation) != 0 ||
            (c->dataset && !name_matches(m->dataset, c->dataset)))
            continue;
        found = true;
        passed += m->passed;
        failed += m->failed;
    }
    for (size_t i = 0; found && i < l->drops.len; i++) {
        const seen_drop *d = &l->drops.items[i];
        bool has = false;
        for (size_t k = 0; k < l->metrics.len && !has; k++)
            has = l->metrics.items[k].name &&
                  strcmp(l->metrics.items[k].name, c->expectation) == 0 &&
                  name_matches(l->metrics.items[k].dataset, d->dataset);
        if (has && (!c->dataset || name_matches(d->dataset, c->dataset)))
            dropped += d->dropped;
    }
    if (!found) {
        fail(r, "EXPECTATION_NOT_FOUND", c, NULL,
             "the update reported no metrics for expectation `%s`%s%s",
             c->expectation, c->dataset ? " of " : "",
             c->dataset ? c->dataset : "");
        return;
    }
    char got[256] = "";
    bool bad = (c->passed >= 0 && c->passed != passed) ||
               (c->failed >= 0 && c->failed != failed) ||
               (c->dropped >= 0 && c->dropped != dropped);
    if (!bad)
        return;
    snprintf(got, sizeof got, "passed %lld, failed %lld, dropped %lld", passed,
             failed, dropped);
    weir_buf want = WEIR_BUF_INIT;
    if (c->passed >= 0)
        weir__buf_printf(&want, "passed %lld", c->passed);
    if (c->failed >= 0)
        weir__buf_printf(&want, "%sfailed %lld", want.len ? ", " : "", c->failed);
    if (c->dropped >= 0)
        weir__buf_printf(&want, "%sdropped %lld", want.len ? ", " : "",
                         c->dropped);
    fail(r, "METRICS_DIFFER", c, NULL, "expectation `%s`: expected %s; got %s",
         c->expectation, weir__buf_cstr(&want), got);
    weir__buf_free(&want);
}

static void check_error(test_run *r, const weir_check *c, const step_log *l)
{
    for (size_t i = 0; i < l->errors.len; i++) {
        const seen_error *e = &l->errors.items[i];
        if (weir__str_ieq(e->cls, c->error_class) &&
            (!c->error_contains || strstr(e->message, c->error_contains)))
            return;
    }
    weir_buf d = WEIR_BUF_INIT;
    for (size_t i = 0; i < l->errors.len; i++)
        weir__buf_printf(&d, "  [%s] %s\n", l->errors.items[i].cls,
                         l->errors.items[i].message);
    fail(r, "ERROR_DIFFERS", c, weir__buf_cstr(&d),
         "expected an error of class %s%s%s%s; the update failed otherwise",
         c->error_class, c->error_contains ? " with \"" : "",
         c->error_contains ? c->error_contains : "",
         c->error_contains ? "\"" : "");
    weir__buf_free(&d);
}

static const weir_check *error_check(const weir_step *s)
{
    for (size_t i = 0; i < s->n_checks; i++)
        if (s->checks[i].kind == WEIR_CHECK_ERROR)
            return &s->checks[i];
    return NULL;
}

/* The step's update failed or did not as its checks want. */
static bool outcome_as_expected(test_run *r, const weir_step *s,
                                const step_log *l, bool failed)
{
    const weir_check *want_error = error_check(s);
    if (failed && !want_error) {
        weir_buf d = WEIR_BUF_INIT;
        for (size_t i = 1; i < l->errors.len; i++)
            weir__buf_printf(&d, "  [%s] %s\n", l->errors.items[i].cls,
                             l->errors.items[i].message);
        const seen_error *e = l->errors.len ? &l->errors.items[0] : NULL;
        fail(r, "UNEXPECTED_ERROR", NULL, weir__buf_cstr(&d),
             "the update failed: %s%s%s%s", e && e->cls[0] ? "[" : "",
             e ? e->cls : "", e && e->cls[0] ? "] " : "",
             e ? e->message : "(no error reported)");
        weir__buf_free(&d);
        return false;
    }
    if (!failed && want_error) {
        fail(r, "EXPECTED_ERROR_MISSING", want_error, NULL,
             "expected the update to fail with %s; it completed",
             want_error->error_class);
        return false;
    }
    return true;
}

static void check_step(test_run *r, const weir_step *s, const step_log *l,
                       bool failed)
{
    if (!outcome_as_expected(r, s, l, failed))
        return;
    for (size_t i = 0; i < s->n_checks && r->res->status != WEIR_TEST_FAILED;
         i++) {
        const weir_check *c = &s->checks[i];
        switch (c->kind) {
        case WEIR_CHECK_ERROR: check_error(r, c, l); break;
        case WEIR_CHECK_METRICS: check_metrics(r, c, l); break;
        case WEIR_CHECK_ROWS:
            if (r->p)
                check_rows(r, c);
            break;
        case WEIR_CHECK_EMPTY_QUERY:
            if (r->p)
                check_empty_query(r, c);
            break;
        }
    }
}

static bool seen_before(const weir_test *t, size_t step, size_t index)
{
    const weir_fixture *f = &t->steps[step].fixtures[index];
    for (size_t s = 0; s <= step; s++) {
        size_t n = s == step ? index : t->steps[s].n_fixtures;
        for (size_t i = 0; i < n; i++) {
            const weir_fixture *g = &t->steps[s].fixtures[i];
            if (g->kind == f->kind && weir__str_ieq(g->target, f->target))
                return true;
        }
    }
    return false;
}

/* The datasets a step's update runs by default: those its expectations
 * read (rows, expectation metrics of a dataset), into names (room for
 * s->n_checks), with everything upstream of them (refresh_upstream).
 * Returns false when the whole pipeline runs: the step has refresh
 * options, expects an error, or checks a query, a topic or the metrics
 * of any dataset, whose reads are not known here. */
static bool expected_datasets(const weir_step *s, const char **names,
                              size_t *n)
{
    *n = 0;
    if (s->n_refresh || s->n_full_refresh || s->full_refresh_all)
        return false;
    for (size_t i = 0; i < s->n_checks; i++) {
        const weir_check *c = &s->checks[i];
        bool named = (c->kind == WEIR_CHECK_ROWS ||
                      c->kind == WEIR_CHECK_METRICS) && c->dataset;
        if (!named)
            return false;
        names[(*n)++] = c->dataset;
    }
    return *n > 0;
}

/* Fixtures, the update, the checks of step r->step. */
static void run_step(test_run *r, const weir_step *s)
{
    step_log l;
    memset(&l, 0, sizeof l);
    l.a = r->a;
    weir_error err;
    memset(&err, 0, sizeof err);
    for (size_t i = 0; i < s->n_fixtures; i++) {
        int rc = weir__fixture_apply(r->p, r->root, &s->fixtures[i], r->step,
                                     i, !seen_before(r->t, r->step, i), &err);
        if (rc) {
            weir_buf b = WEIR_BUF_INIT;
            put_error_line(&b, &err);
            fail(r, "FIXTURE_FAILED", NULL, NULL, "%s", weir__buf_cstr(&b));
            weir__buf_free(&b);
            return;
        }
    }
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    ro.refresh = s->refresh;
    ro.n_refresh = s->n_refresh;
    ro.full_refresh = s->full_refresh;
    ro.n_full_refresh = s->n_full_refresh;
    ro.full_refresh_all = s->full_refresh_all;
    const char **needed = calloc(s->n_checks + 1, sizeof(*needed));
    size_t n_needed = 0;
    if (needed && expected_datasets(s, needed, &n_needed)) {
        ro.refresh = needed;
        ro.n_refresh = n_needed;
        ro.refresh_upstream = true;
    }
    ro.on_event = on_event;
    ro.event_payload = &l;
    ro.cancel = r->cancel;
    ro.sink_root = r->sinks; /* never a real destination */
    ro.local_kafka = true;   /* nor a real broker */
    weir_run_result out;
    memset(&out, 0, sizeof out);
    int rc = weir_pipeline_start_run(r->p, &ro, &out, &err);
    if (rc)
        log_call_errors(&l, r->p, &err);
    free(needed);
    check_step(r, s, &l, rc != 0 || out.state != WEIR_RUN_COMPLETED);
    step_log_free(&l);
}

static bool has_file_fixtures(const weir_test *t)
{
    for (size_t s = 0; s < t->n_steps; s++)
        for (size_t i = 0; i < t->steps[s].n_fixtures; i++)
            if (t->steps[s].fixtures[i].kind == WEIR_FIXTURE_FILES)
                return true;
    return false;
}

/* Where sandboxes go: under $TMPDIR; else in memory (/dev/shm, a tmpfs
 * on Linux) when it is there and writable: a test's storage is thrown
 * away, and there its commits and checkpoints cost no disk writes and no
 * fsync; else /tmp. */
static const char *sandbox_parent(void)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp && *tmp)
        return tmp;
    return weir__fs_is_dir("/dev/shm") && access("/dev/shm", W_OK | X_OK) == 0
               ? "/dev/shm"
               : "/tmp";
}

#define SANDBOX_PREFIX "weir-test-"
/* A sandbox unchanged for this long, and not locked, was left by a test
 * run that was killed (weir__fs_sweep_temp_dirs). */
#define SANDBOX_STALE_S 60

static void run_test(const weir_test_suite *suite, size_t i,
                     weir_session *session, const weir_load_options *load,
                     const weir_pipeline *defs, const volatile int *cancel,
                     weir_test_result *res, weir_arena *a)
{
    const weir_test *t = &suite->tests[i];
    int64_t t0 = weir__monotonic_us();
    memset(res, 0, sizeof(*res));
    res->index = i;
    res->name = t->name;
    res->path = t->path;
    res->line = t->line;
    res->column = t->column;
    res->status = WEIR_TEST_PASSED;
    test_run r = { suite, t, res, a, 0, NULL, suite->spec_dir, NULL, NULL,
                   cancel };
    char *sandbox = NULL;
    int sandbox_lock = -1;
    weir_error serr;
    weir__fs_temp_dir(&sandbox, &sandbox_lock, sandbox_parent(),
                      SANDBOX_PREFIX, &serr);
    char *storage = sandbox ? weir__path_join(sandbox, "storage") : NULL;
    char *root = sandbox ? weir__path_join(sandbox, "root") : NULL;
    char *sinks = sandbox ? weir__path_join(sandbox, "sinks") : NULL;
    r.sinks = sinks;
    weir_error err;
    memset(&err, 0, sizeof err);
    if (!sandbox || !storage || !root || !sinks) {
        fail(&r, "SANDBOX_FAILED", NULL, NULL,
             "cannot create a temporary folder under $TMPDIR, /dev/shm "
             "or /tmp");
        goto out;
    }
    if (has_file_fixtures(t)) {
        if (weir__fixture_overlay(root, suite->spec_dir, t, &err) != 0) {
            fail(&r, "SANDBOX_FAILED", NULL, NULL, "%s", err.message);
            goto out;
        }
        r.root = root;
    }
    /* A failing flow is not retried (a test expecting the failure would
     * wait for the backoff), unless the overrides say otherwise. */
    size_t n_conf = load ? load->n_conf : 0;
    weir_kv *conf = calloc(n_conf + 1, sizeof(*conf));
    if (!conf) {
        fail(&r, "SANDBOX_FAILED", NULL, NULL, "out of memory");
        goto out;
    }
    conf[0].key = "spark.sql.pipelines.maxFlowRetryAttempts";
    conf[0].value = "0";
    if (n_conf)
        memcpy(conf + 1, load->conf, n_conf * sizeof(*conf));
    weir_load_options lo = WEIR_LOAD_OPTIONS_INIT;
    lo.environment = load ? load->environment : NULL;
    lo.conf = conf;
    lo.n_conf = n_conf + 1;
    lo.storage = storage;
    lo.root_dir = r.root;
    lo.keep_storage_open = true; /* one DuckDB instance per test */
    int rc = weir_pipeline_load_with(&r.p, session, suite->spec_path, &lo, &err);
    free(conf);
    if (rc) {
        /* The first step's update cannot start: its errors are the
         * loading problems (a test may expect them). */
        step_log l;
        memset(&l, 0, sizeof l);
        l.a = a;
        log_call_errors(&l, r.p, &err);
        weir_pipeline_drop(r.p);
        r.p = NULL;
        res->steps_run = 1;
        check_step(&r, &t->steps[0], &l, true);
        step_log_free(&l);
        if (res->status != WEIR_TEST_FAILED && t->n_steps > 1)
            fail(&r, "UNEXPECTED_ERROR", NULL, NULL,
                 "the pipeline did not load, so the later steps cannot run");
        goto out;
    }
    if (defs) {
        rc = weir_pipeline_copy_definitions(r.p, defs, &err);
        if (rc) {
            step_log l;
            memset(&l, 0, sizeof l);
            l.a = a;
            log_call_errors(&l, r.p, &err);
            res->steps_run = 1;
            check_step(&r, &t->steps[0], &l, true);
            step_log_free(&l);
            goto out;
        }
    } else if (weir_pipeline_python_files(r.p, NULL) > 0) {
        fail(&r, "PYTHON_NOT_IMPORTED", NULL, NULL,
             "the pipeline has Python definition files, and no pipeline "
             "with their definitions was given "
             "(weir_test_run_options.definitions)");
        goto out;
    }
    for (r.step = 0; r.step < t->n_steps && res->status != WEIR_TEST_FAILED &&
                     !(cancel && *cancel);
         r.step++) {
        res->steps_run = (unsigned)r.step + 1;
        run_step(&r, &t->steps[r.step]);
    }
out:
    if (cancel && *cancel)
        res->status = 0; /* not a result: the run was cancelled */
    weir_pipeline_drop(r.p);
    if (sandbox)
        weir__fs_remove_tree(sandbox, NULL);
    weir__fs_unlock(sandbox_lock);
    free(sandbox);
    free(storage);
    free(root);
    free(sinks);
    res->seconds = (double)(weir__monotonic_us() - t0) / 1e6;
}

/* ---- fixtures against the pipeline ------------------------------------------ */

/* A `table:` fixture stands in for a table the pipeline reads without
 * defining it: one named like a dataset of the pipeline would take the
 * dataset's place (its streaming reads then find no checkpoint), so it is
 * a definition problem at its line. The datasets are those of the
 * pipeline with the Python definitions, when given, else of one loaded
 * from the spec; a spec that does not load is left to the tests, which
 * report it. Returns 0 or WEIR_ESPEC (s->diags) or WEIR_ENOMEM. */
static int check_fixtures(weir_test_suite *s, weir_session *session,
                          const weir_test_run_options *opts)
{
    const weir_pipeline *p = opts && opts->version >= 2 ? opts->definitions
                                                         : NULL;
    weir_pipeline *own = NULL;
    if (!p) {
        weir_load_options lo = WEIR_LOAD_OPTIONS_INIT;
        if (opts && opts->load) {
            lo.environment = opts->load->environment;
            lo.conf = opts->load->conf;
            lo.n_conf = opts->load->n_conf;
        }
        weir_error ignore;
        if (weir_pipeline_load_with(&own, session, s->spec_path, &lo, &ignore)) {
            weir_pipeline_drop(own);
            return 0;
        }
        p = own;
    }
    int rc = 0;
    for (size_t i = 0; !rc && i < s->n_tests; i++) {
        const weir_test *t = &s->tests[i];
        for (size_t k = 0; !rc && k < t->n_steps; k++) {
            for (size_t j = 0; !rc && j < t->steps[k].n_fixtures; j++) {
                const weir_fixture *f = &t->steps[k].fixtures[j];
                if (f->kind != WEIR_FIXTURE_TABLE ||
                    !weir_pipeline_defines(p, f->target))
                    continue;
                weir_error e;
                WEIR_ERR(&e, WEIR_ESPEC, "TEST_FIXTURE_IS_DATASET",
                         "Fixture table `%s` is a dataset of the pipeline; a "
                         "`table` fixture stands in for a table the "
                         "pipeline reads but does not define. Give rows to "
                         "the dataset's inputs, and check the dataset under "
                         "`expect`.",
                         f->target);
                weir__error_at(&e, t->shown_path, f->line, f->column);
                if (weir__diags_add(&s->diags, &e))
                    rc = WEIR_ENOMEM;
            }
        }
    }
    weir_pipeline_drop(own);
    return rc ? rc : s->diags.len ? WEIR_ESPEC : 0;
}

/* ---- the worker pool ---------------------------------------------------------- */

typedef struct pool {
    weir_test_suite *suite;
    weir_session *session;
    const weir_load_options *load;
    const weir_pipeline *defs;
    const volatile int *cancel;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next;      /* the next test to start */
    size_t *finished; /* tests in the order they ended */
    size_t n_finished;
} pool;

static void *worker(void *arg)
{
    pool *pl = arg;
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        size_t i = pl->next < pl->suite->n_tests ? pl->next++ : SIZE_MAX;
        pthread_mutex_unlock(&pl->mu);
        if (i == SIZE_MAX)
            return NULL;
        if (pl->cancel && *pl->cancel)
            memset(&pl->suite->results[i], 0, sizeof(weir_test_result));
        else
            run_test(pl->suite, i, pl->session, pl->load, pl->defs, pl->cancel,
                     &pl->suite->results[i], &pl->suite->result_arenas[i]);
        pthread_mutex_lock(&pl->mu);
        pl->finished[pl->n_finished++] = i;
        pthread_cond_signal(&pl->cv);
        pthread_mutex_unlock(&pl->mu);
    }
}

static unsigned worker_count(unsigned jobs, size_t n_tests)
{
    if (jobs == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cpus > 0 && cpus < 64 ? (unsigned)cpus : 1;
    }
    if (jobs > n_tests)
        jobs = (unsigned)n_tests;
    return jobs ? jobs : 1;
}

int weir_test_suite_run(weir_test_suite *s, weir_session *session,
                        const weir_test_run_options *opts, size_t *n_failed,
                        weir_error *err)
{
    if (n_failed)
        *n_failed = 0;
    if (!s || !session)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "suite and session are required");
    if (opts && (opts->version < 1 || opts->version > WEIR_TEST_RUN_OPTIONS_VERSION))
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "unknown weir_test_run_options version %u",
                        opts->version);
    if (s->diags.len)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "the suite's definitions have problems");
    if (s->n_tests == 0)
        return 0;
    int bad = check_fixtures(s, session, opts);
    if (bad == WEIR_ENOMEM)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (bad)
        return WEIR_ERR(err, WEIR_EINVAL, "TEST_FIXTURE_IS_DATASET",
                        "the suite's definitions have problems "
                        "(weir_test_suite_diagnostics)");
    /* What test runs that were killed left behind. */
    weir__fs_sweep_temp_dirs(sandbox_parent(), SANDBOX_PREFIX, SANDBOX_STALE_S);
    for (size_t i = 0; s->result_arenas && i < s->n_tests; i++)
        weir__arena_free(&s->result_arenas[i]);
    free(s->results);
    free(s->result_arenas);
    free(s->ran);
    s->results = calloc(s->n_tests, sizeof(*s->results));
    s->result_arenas = calloc(s->n_tests, sizeof(*s->result_arenas));
    s->ran = calloc(s->n_tests, sizeof(*s->ran));
    pool pl = { s, session, opts ? opts->load : NULL,
                opts && opts->version >= 2 ? opts->definitions : NULL,
                opts ? opts->cancel : NULL, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0,
                calloc(s->n_tests, sizeof(size_t)), 0 };
    if (!s->results || !s->result_arenas || !s->ran || !pl.finished) {
        free(pl.finished);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    unsigned n_workers = worker_count(opts ? opts->jobs : 0, s->n_tests);
    pthread_t threads[64];
    unsigned started = 0;
    while (started < n_workers &&
           pthread_create(&threads[started], NULL, worker, &pl) == 0)
        started++;
    if (started == 0) {
        /* No thread: run them here, in order. */
        worker(&pl);
    }
    size_t reported = 0;
    while (reported < s->n_tests) {
        pthread_mutex_lock(&pl.mu);
        while (reported == pl.n_finished)
            pthread_cond_wait(&pl.cv, &pl.mu);
        size_t i = pl.finished[reported++];
        pthread_mutex_unlock(&pl.mu);
        if (s->results[i].status == 0)
            continue; /* cancelled before it ended */
        s->ran[i] = true;
        if (s->results[i].status == WEIR_TEST_FAILED && n_failed)
            (*n_failed)++;
        if (opts && opts->on_result)
            opts->on_result(&s->results[i], opts->payload);
    }
    for (unsigned k = 0; k < started; k++)
        pthread_join(threads[k], NULL);
    free(pl.finished);
    pthread_mutex_destroy(&pl.mu);
    pthread_cond_destroy(&pl.cv);
    return 0;
}
