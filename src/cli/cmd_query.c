/*
 * `weir query`: run Spark SQL against the pipeline's catalog and print the
 * result of the last statement as a table, CSV or JSON lines. The SQL comes
 * from the argument, or from standard input when it is "-" or absent.
 * Statements without a result (DDL) print nothing. Ctrl-C or SIGTERM
 * stops the query where it is, planned or run (weir_pipeline_set_query_cancel:
 * a writing statement rolls back), and it fails with OPERATION_CANCELED.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* All of standard input in a new string, or NULL when out of memory. */
static char *read_stdin(void)
{
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);

    while (buf) {
        size_t n = fread(buf + len, 1, cap - len - 1, stdin);
        len += n;
        if (len + 1 < cap)
            break;
        char *bigger = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!bigger) {
            free(buf);
            return NULL;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}

static bool is_blank(const char *s)
{
    return s[strspn(s, " \t\r\n\f\v")] == '\0';
}

/* Asked by the query's watcher thread: the signal handler's flag. */
static bool query_interrupted(void *flag)
{
    return *(volatile int *)flag != 0;
}

static int run_query(const cli *c, project *p, const char *sql, out_format fmt)
{
    weir_result *result = NULL;
    weir_error err;
    grid g;

    memset(&err, 0, sizeof err);
    interrupt_guard guard;
    volatile int *stop = interrupt_catch(&guard);
    weir_pipeline_set_query_cancel(p->pipeline, query_interrupted, (void *)stop);
    int rc = weir_pipeline_query(p->pipeline, sql, &result, &err);
    weir_pipeline_set_query_cancel(p->pipeline, NULL, NULL);
    interrupt_release(&guard);
    if (rc != 0) {
        print_failure(c, p->pipeline, rc, &err);
        weir_result_free(result);
        return exit_code_for(rc);
    }
    grid_from_result(&g, result);
    grid_print(&g, fmt, stdout);
    weir_result_free(result);
    return EXIT_OK;
}

typedef struct query_args {
    const char *spec, *sql;
    out_format fmt;
    load_args load;
} query_args;

/* Parse argv into a; returns -1 to go on, or the exit code. */
static int parse(const cli *c, query_args *a, int argc, char **argv)
{
    static const opt_def defs[] = {
        { "spec", true }, { "format", true }, { "conf", true },
        { "env", true }, { NULL, false },
    };
    const char *value = NULL;
    opt_iter it;
    int id;

    opt_init(&it, argv[0], argc, argv);
    while ((id = opt_next(&it, defs, &value)) != OPT_END) {
        switch (id) {
        case OPT_HELP: help_command(stdout, "query"); return EXIT_OK;
        case OPT_ERROR: return EXIT_USAGE;
        case OPT_POSITIONAL:
            if (a->sql)
                return opt_unexpected(&it, value);
            a->sql = value;
            break;
        case 0: a->spec = value; break;
        case 1:
            if (!parse_format(value, &a->fmt)) {
                print_error(c, "unknown format '%s' (use table, csv or json)",
                            value);
                return EXIT_USAGE;
            }
            break;
        case 2: {
            int code = load_args_conf(c, &a->load, value);
            if (code >= 0)
                return code;
            break;
        }
        case 3: a->load.env = value; break;
        default: break;
        }
    }
    return -1;
}

int cmd_query(const cli *c, int argc, char **argv)
{
    query_args a;
    char *input = NULL;
    memset(&a, 0, sizeof a);
    a.fmt = FORMAT_TABLE;
    int code = parse(c, &a, argc, argv);

    if (code >= 0) {
        load_args_free(&a.load);
        return code;
    }
    if (!a.sql || strcmp(a.sql, "-") == 0) {
        if (isatty(STDIN_FILENO) == 1)
            fputs("Reading SQL from standard input (end with Ctrl-D)...\n",
                  stderr);
        input = read_stdin();
        if (!input) {
            print_error(c, "out of memory reading standard input");
            load_args_free(&a.load);
            return EXIT_FAILED;
        }
        a.sql = input;
    }
    if (is_blank(a.sql)) {
        print_error(c, "no SQL to run: give it as an argument or on standard "
                       "input");
        code = EXIT_USAGE;
    } else {
        project p;
        /* Tables stay readable while a definition file has errors. */
        a.load.storage_only = true;
        code = project_open_with(&p, c, a.spec, &a.load, NULL, NULL);
        if (code == EXIT_OK)
            code = run_query(c, &p, a.sql, a.fmt);
        project_close(&p);
    }
    load_args_free(&a.load);
    free(input);
    return code;
}
