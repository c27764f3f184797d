/*
 * `weir test`: run the project's tests (tests/NAME.yml beside the spec) with
 * the library's weir_test_suite API, print one line per test as it ends
 * (with the failure and its diff below it) and a summary, and write the
 * JUnit XML and JSON reports (test_report.c). A project's Python
 * definition files are imported once (python.c), into a pipeline whose
 * storage is an empty temporary folder, and every test's pipeline gets
 * their definitions from it. Exit status: 0 every test passed, 1 a test
 * failed, 2 a test definition (or the usage, the spec, the environment, a
 * Python definition file) is invalid.
 */
/* nftw */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define GREEN "\033[1;32m"
#define RED "\033[1;31m"
#define RESET "\033[0m"

typedef struct test_args {
    const char *spec, *junit;
    bool json;
    unsigned jobs;
    strlist filters;
    load_args load;
} test_args;

enum { O_SPEC, O_JUNIT, O_JSON, O_JOBS, O_CONF, O_ENV };

static const opt_def test_opts[] = {
    { "spec", true }, { "junit", true }, { "json", false }, { "jobs", true },
    { "conf", true }, { "env", true },   { NULL, false },
};

static int parse(const cli *c, test_args *a, int argc, char **argv)
{
    opt_iter it;
    const char *value = NULL;
    int id;

    opt_init(&it, argv[0], argc, argv);
    while ((id = opt_next(&it, test_opts, &value)) != OPT_END) {
        switch (id) {
        case OPT_HELP: help_command(stdout, "test"); return EXIT_OK;
        case OPT_ERROR: return EXIT_USAGE;
        case OPT_POSITIONAL:
            if (!strlist_add(&a->filters, value)) {
                print_error(c, "out of memory");
                return EXIT_FAILED;
            }
            break;
        case O_SPEC: a->spec = value; break;
        case O_JUNIT: a->junit = value; break;
        case O_JSON: a->json = true; break;
        case O_JOBS: {
            char *end = NULL;
            long n = strtol(value, &end, 10);
            if (!*value || *end || n < 1 || n > 64) {
                print_error(c, "--jobs expects a number from 1 to 64, got '%s'",
                            value);
                return EXIT_USAGE;
            }
            a->jobs = (unsigned)n;
            break;
        }
        case O_ENV: a->load.env = value; break;
        case O_CONF: {
            int code = load_args_conf(c, &a->load, value);
            if (code >= 0)
                return code;
            break;
        }
        default: break;
        }
    }
    return -1;
}

typedef struct printer {
    const cli *cli;
    bool quiet; /* --json: no lines */
} printer;

static void put_indented(const char *text, const char *indent)
{
    while (text && *text) {
        size_t n = strcspn(text, "\n");
        printf("%s%.*s\n", indent, (int)n, text);
        text += n;
        text += *text == '\n';
    }
}

static void on_result(const weir_test_result *r, void *payload)
{
    const printer *pr = payload;
    if (pr->quiet)
        return;
    bool ok = r->status == WEIR_TEST_PASSED;
    bool color = pr->cli->color_out;
    printf("%s%s%s %s (%.2f s)\n", color ? (ok ? GREEN : RED) : "",
           ok ? "PASS" : "FAIL", color ? RESET : "", r->name, r->seconds);
    if (!ok) {
        printf("     %s:%u: test %s\n", r->path, r->line, r->name);
        printf("     [%s] %s\n", r->failure_class ? r->failure_class : "FAILED",
               r->message ? r->message : "");
        put_indented(r->details, "     ");
    }
    fflush(stdout);
}

/* The --conf items as key/value pairs (keys malloc'd into keys). */
static bool conf_pairs(const load_args *l, weir_kv **kv, char ***keys)
{
    size_t n = l->conf.len;
    *kv = calloc(n + 1, sizeof **kv);
    *keys = calloc(n + 1, sizeof **keys);
    if (!*kv || !*keys)
        return false;
    for (size_t i = 0; i < n; i++) {
        const char *item = l->conf.items[i];
        size_t klen = (size_t)(strchr(item, '=') - item);
        (*keys)[i] = strndup(item, klen);
        if (!(*keys)[i])
            return false;
        (*kv)[i].key = (*keys)[i];
        (*kv)[i].value = item + klen + 1;
    }
    return true;
}

static int print_definition_problems(const cli *c, const weir_test_suite *s,
                                     const weir_error *err, bool json)
{
    const weir_error *d = NULL;
    size_t n = weir_test_suite_diagnostics(s, &d);
    if (n == 0) {
        d = err;
        n = 1;
    }
    for (size_t i = 0; i < n; i++)
        print_diagnostic(c, &d[i]);
    if (json)
        for (size_t i = 0; i < n; i++)
            print_failure_json(stdout, NULL, d[i].code, &d[i]);
    return EXIT_USAGE;
}

static int run_suite(const cli *c, const test_args *a, project *p,
                     weir_test_suite *s, volatile int *interrupted)
{
    weir_kv *kv = NULL;
    char **keys = NULL;
    int code = EXIT_OK;
    if (!conf_pairs(&a->load, &kv, &keys)) {
        print_error(c, "out of memory");
        code = EXIT_FAILED;
        goto out;
    }
    weir_load_options lo = WEIR_LOAD_OPTIONS_INIT;
    lo.environment = a->load.env;
    lo.conf = kv;
    lo.n_conf = a->load.conf.len;
    printer pr = { c, a->json };
    weir_test_run_options ro = WEIR_TEST_RUN_OPTIONS_INIT;
    ro.load = &lo;
    ro.jobs = a->jobs;
    ro.on_result = on_result;
    ro.payload = &pr;
    ro.definitions = p->pipeline; /* Python's definitions, or NULL */
    size_t failed = 0;
    weir_error err;
    memset(&err, 0, sizeof err);
    /* Tests are small and run side by side: one DuckDB thread each. */
    weir_session_options so = WEIR_SESSION_OPTIONS_INIT;
    so.threads = 1;
    weir_session *session = NULL;
    ro.cancel = interrupted;
    double t0 = test_clock();
    int rc = weir_session_open(&session, &so, &err);
    if (rc == 0)
        rc = weir_test_suite_run(s, session, &ro, &failed, &err);
    double seconds = test_clock() - t0;
    weir_session_close(session);
    if (rc == 0 && *interrupted) {
        print_error(c, "interrupted: the tests that had not ended were "
                       "stopped and their temporary folders removed");
        code = EXIT_FAILED;
        goto out;
    }
    if (rc && weir_test_suite_diagnostics(s, NULL) > 0) {
        code = print_definition_problems(c, s, &err, a->json);
        goto out;
    }
    if (rc) {
        print_failure(c, NULL, rc, &err);
        code = exit_code_for(rc);
        goto out;
    }
    size_t n = weir_test_suite_count(s);
    if (a->json)
        test_report_json(stdout, s, seconds);
    else
        printf("%zu test%s: %zu passed, %zu failed (%.2f s)\n", n,
               n == 1 ? "" : "s", n - failed, failed, seconds);
    if (a->junit && !test_report_junit(a->junit, s, seconds)) {
        print_error(c, "cannot write %s", a->junit);
        code = EXIT_FAILED;
        goto out;
    }
    code = failed ? EXIT_FAILED : EXIT_OK;
out:
    for (size_t i = 0; keys && i < a->load.conf.len; i++)
        free(keys[i]);
    free(keys);
    free(kv);
    return code;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* A temporary folder for the storage Python is imported against. */
static char *import_folder(void)
{
    const char *tmp = getenv("TMPDIR");
    size_t n = strlen(tmp && *tmp ? tmp : "/tmp") + 32;
    char *dir = malloc(n);
    if (dir) {
        snprintf(dir, n, "%s/weir-test-import-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            free(dir);
            dir = NULL;
        }
    }
    return dir;
}

int cmd_test(const cli *c, int argc, char **argv)
{
    test_args a;
    project p;
    weir_test_suite *s = NULL;
    char *import_dir = NULL, *import_storage = NULL;
    interrupt_guard ig;
    volatile int *interrupted = NULL;
    memset(&a, 0, sizeof a);
    memset(&p, 0, sizeof p);
    int code = parse(c, &a, argc, argv);
    if (code >= 0)
        goto out;
    /* Ctrl-C is caught from before the first temporary folder until the
     * last is removed: stopped at any point, weir test cleans up and says
     * so (a signal ignored by inheritance, as in a script's background
     * job, is caught too). */
    interrupted = interrupt_catch(&ig);
    import_dir = import_folder();
    size_t n = import_dir ? strlen(import_dir) + 16 : 0;
    import_storage = import_dir ? malloc(n) : NULL;
    if (!import_storage) {
        print_error(c, "cannot create a temporary folder under $TMPDIR or /tmp");
        code = EXIT_FAILED;
        goto out;
    }
    snprintf(import_storage, n, "%s/storage", import_dir);
    a.load.storage = import_storage;
    /* The spec, environment and overrides are checked once, here, so a
     * bad --env is one error rather than one per test. */
    code = project_open_with(&p, c, a.spec, &a.load, NULL,
                             a.json ? stdout : NULL);
    if (code != EXIT_OK)
        goto out;
    weir_error err;
    memset(&err, 0, sizeof err);
    int rc = weir_test_suite_load(&s, weir_pipeline_spec_path(p.pipeline),
                                  (const char *const *)a.filters.items,
                                  a.filters.len, &err);
    if (rc == 0 && weir_test_suite_count(s) > 0 &&
        weir_pipeline_python_files(p.pipeline, NULL) > 0) {
        /* Imported once; the pipeline stays for the tests to copy from. */
        code = project_define_python(&p, a.json ? stdout : NULL);
        if (code != EXIT_OK)
            goto out;
    } else {
        weir_pipeline_drop(p.pipeline);
        p.pipeline = NULL;
    }
    /* Only the import used it: a test run killed later leaves none. */
    nftw(import_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(import_dir);
    import_dir = NULL;
    if (rc) {
        code = s ? print_definition_problems(c, s, &err, a.json)
                 : (print_failure(c, NULL, rc, &err), exit_code_for(rc));
        goto out;
    }
    if (weir_test_suite_count(s) == 0 && a.filters.len) {
        print_error(c, "no test matches the names given");
        code = EXIT_USAGE;
        goto out;
    }
    if (*interrupted) {
        print_error(c, "interrupted: no test had started");
        code = EXIT_FAILED;
        goto out;
    }
    code = run_suite(c, &a, &p, s, interrupted);
out:
    if (interrupted)
        interrupt_release(&ig);
    weir_test_suite_free(s);
    project_close(&p);
    if (import_dir)
        nftw(import_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(import_storage);
    free(import_dir);
    strlist_free(&a.filters);
    load_args_free(&a.load);
    return code;
}
