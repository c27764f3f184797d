/*
 * The weir command-line tool: decide the output options once (terminal,
 * colors), dispatch to the subcommand, and make sure everything written to
 * stdout really got out before choosing the exit code.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

typedef struct command {
    const char *name;
    int (*run)(const cli *c, int argc, char **argv);
} command;

static const command commands[] = {
    { "init", cmd_init },       { "run", cmd_run },
    { "dry-run", cmd_dry_run }, { "graph", cmd_graph },
    { "query", cmd_query },     { "events", cmd_events },
    { "test", cmd_test },       { "serve", cmd_serve },
    { "report", cmd_report },   { "ui", cmd_ui },
    { "help", cmd_help },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static bool colors_allowed(int fd)
{
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (no_color && no_color[0])
        return false;
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(fd) == 1;
}

static int print_version(void)
{
    printf("weir %s (DuckDB %s)\n", weir_version(), weir_duckdb_version());
    return EXIT_OK;
}

static int unknown_command(const cli *c, const char *name)
{
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    if (name[0] == '-')
        print_error(c, "unknown option '%s'", name);
    else
        print_error(c, "unknown command '%s'", name);
    const char *guess = opt_suggest(name, names, N_COMMANDS);
    if (guess)
        fprintf(stderr, "Did you mean 'weir %s'?\n", guess);
    fprintf(stderr, "Run 'weir help' for the list of commands.\n");
    return EXIT_USAGE;
}

static int dispatch(const cli *c, int argc, char **argv)
{
    if (argc < 2) {
        help_usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        if (argc > 2 && strcmp(argv[2], "--help") != 0 &&
            strcmp(argv[2], "-h") != 0) {
            print_error(c, "unexpected argument '%s'", argv[2]);
            fprintf(stderr, "Run 'weir help' for the list of commands.\n");
            return EXIT_USAGE;
        }
        if (argc > 2) {
            help_usage(stdout);
            return EXIT_OK;
        }
        return print_version();
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        help_usage(stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(c, argc - 1, argv + 1);
    }
    return unknown_command(c, name);
}

/* Flush stdout; a write error turns the exit code into EXIT_USAGE. A closed
 * pipe (weir query ... | head) is not worth a message. */
static int finish_output(const cli *c, int code)
{
    errno = 0;
    int flush_failed = fflush(stdout) != 0;
    int saved = errno;
    if (!flush_failed && !ferror(stdout))
        return code;
    if (saved != 0 && saved != EPIPE)
        print_error(c, "cannot write to standard output: %s",
                    strerror(saved));
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    /* Writes to a closed pipe fail with EPIPE instead of killing us, so
     * the library can shut down cleanly and we choose the exit code. */
    signal(SIGPIPE, SIG_IGN);

    cli c;
    c.tty_out = isatty(STDOUT_FILENO) == 1;
    c.color_out = colors_allowed(STDOUT_FILENO);
    c.color_err = colors_allowed(STDERR_FILENO);

    int code = dispatch(&c, argc, argv);
    return finish_output(&c, code);
}
