/*
 * `weir ui`: the pipeline's pages (src/ui) served over HTTP until SIGINT or
 * SIGTERM. Binds 127.0.0.1 unless --host says otherwise, and then only with
 * a token given explicitly (--token-file, WEIR_UI_TOKEN or --token, which
 * other local users can read in /proc/PID/cmdline), as `weir serve` does;
 * on loopback a random token is made. Every request must present the token
 * (the printed URL carries it once; the page then keeps it in a cookie), so
 * other users of the machine cannot read the pipeline's state. The pages are
 * read-only and follow the event log: the server re-reads it when the
 * storage changes, and holds the storage lock only while reading it.
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ui/ui.h"

#define DEFAULT_PORT 4040
#define MAX_TOKEN 512

typedef struct ui_args {
    const char *spec, *host, *port, *token, *token_file, *poll;
    load_args load;
} ui_args;

enum { O_SPEC, O_HOST, O_PORT, O_TOKEN, O_TOKEN_FILE, O_CONF, O_ENV, O_POLL };

typedef struct loader {
    const cli *cli;
    const ui_module *ui;
    const ui_args *args;
    ui_python_cache python; /* used by the server's refresh thread only */
} loader;

static int load(void *payload, ui_snapshot **out)
{
    loader *l = payload;
    return ui_load_snapshot(l->cli, l->ui, l->args->spec, &l->args->load,
                            &l->python, out);
}

static int parse(const cli *c, ui_args *a, int argc, char **argv)
{
    static const opt_def defs[] = {
        { "spec", true },  { "host", true }, { "port", true },
        { "token", true }, { "token-file", true }, { "conf", true },
        { "env", true },   { "poll-ms", true }, { NULL, false },
    };
    const char *value = NULL;
    opt_iter it;
    int id;

    opt_init(&it, argv[0], argc, argv);
    while ((id = opt_next(&it, defs, &value)) != OPT_END) {
        int code = -1;
        switch (id) {
        case OPT_HELP: help_command(stdout, "ui"); return EXIT_OK;
        case OPT_ERROR: return EXIT_USAGE;
        case OPT_POSITIONAL: return opt_unexpected(&it, value);
        case O_SPEC: a->spec = value; break;
        case O_HOST: a->host = value; break;
        case O_PORT: a->port = value; break;
        case O_TOKEN: a->token = value; break;
        case O_TOKEN_FILE: a->token_file = value; break;
        case O_CONF: code = load_args_conf(c, &a->load, value); break;
        case O_ENV: a->load.env = value; break;
        case O_POLL: a->poll = value; break;
        default: break;
        }
        if (code >= 0)
            return code;
    }
    return -1;
}

static bool parse_number(const char *s, unsigned long max, unsigned *out)
{
    char *end = NULL;
    unsigned long v = s && *s ? strtoul(s, &end, 10) : ULONG_MAX;
    if (!end || *end || v > max)
        return false;
    *out = (unsigned)v;
    return true;
}

/* The token requests must present into buf; 0 or an exit code. */
static int choose_token(const cli *c, const ui_args *a, char *buf, size_t size)
{
    bool given;
    int code = endpoint_token(c, a->token, a->token_file, "WEIR_UI_TOKEN", buf,
                              size, &given);
    if (code)
        return code;
    if (a->host && !is_loopback(a->host) && !given) {
        print_error(c, "--host %s is not a loopback address: give the token "
                       "browsers must present with --token-file, "
                       "WEIR_UI_TOKEN or --token",
                    a->host);
        return EXIT_USAGE;
    }
    size_t n = strlen(buf);
    if (!n || n > MAX_TOKEN || strspn(buf, "abcdefghijklmnopqrstuvwxyz"
                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789._~-") != n) {
        print_error(c, "the token may only hold letters, digits and . _ ~ - "
                       "(at most %d)", MAX_TOKEN);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int serve(const cli *c, const ui_args *a, const char *token,
                 unsigned port, unsigned poll_ms)
{
    ui_snapshot *first = NULL;
    loader l;
    memset(&l, 0, sizeof l);
    l.cli = c;
    l.args = a;
    l.ui = ui_module_load(c);
    if (!l.ui)
        return EXIT_FAILED;
    const ui_module *m = l.ui;
    int code = ui_load_snapshot(c, m, a->spec, &a->load, &l.python, &first);
    if (code != EXIT_OK) {
        ui_python_cache_clear(&l.python);
        return code;
    }
    const char *host = !a->host || !strcmp(a->host, "localhost") ? "127.0.0.1"
                                                                 : a->host;
    ui_server_options so;
    memset(&so, 0, sizeof so);
    so.host = host;
    so.port = port;
    so.token = token;
    so.watch = first->storage;
    so.load = load;
    so.load_payload = &l;
    so.poll_ms = poll_ms;
    char *watch = first->storage ? strdup(first->storage) : NULL;
    so.watch = watch;
    char *name = strdup(first->pipeline ? first->pipeline : "pipeline");

    /* Blocked before the server's threads start, so that only sigwait
     * below sees the signals. */
    sigset_t stop_set, old_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_set, &old_set);

    ui_server *server = NULL;
    weir_error err;
    memset(&err, 0, sizeof err);
    int rc = m->server_start(&server, first, &so, &err);
    if (rc) {
        pthread_sigmask(SIG_SETMASK, &old_set, NULL);
        print_failure(c, NULL, rc, &err);
        ui_python_cache_clear(&l.python);
        free(watch);
        free(name);
        return rc == WEIR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
    }
    bool v6 = strchr(host, ':') != NULL;
    print_logline(stdout, "Serving the pages of pipeline %s on %s%s%s:%u "
                          "(read-only); stop with Ctrl-C",
                  name ? name : "pipeline", v6 ? "[" : "", host, v6 ? "]" : "",
                  m->server_port(server));
    printf("http://%s%s%s:%u/?token=%s\n", v6 ? "[" : "", host, v6 ? "]" : "",
           m->server_port(server), token);
    fflush(stdout);

    int sig = 0;
    while (sigwait(&stop_set, &sig) != 0)
        ;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    m->server_stop(server);
    ui_python_cache_clear(&l.python);
    print_logline(stdout, "Stopped.");
    free(watch);
    free(name);
    return EXIT_OK;
}

int cmd_ui(const cli *c, int argc, char **argv)
{
    ui_args a;
    char token[MAX_TOKEN + 2];
    unsigned port = DEFAULT_PORT, poll_ms = 1000;

    memset(&a, 0, sizeof a);
    int code = parse(c, &a, argc, argv);
    if (code >= 0)
        goto out;
    if (a.port && !parse_number(a.port, 65535, &port)) {
        print_error(c, "--port expects a number from 0 to 65535, got '%s'",
                    a.port);
        code = EXIT_USAGE;
        goto out;
    }
    if (a.poll && (!parse_number(a.poll, 60000, &poll_ms) || poll_ms < 50)) {
        print_error(c, "--poll-ms expects 50 to 60000, got '%s'", a.poll);
        code = EXIT_USAGE;
        goto out;
    }
    code = choose_token(c, &a, token, sizeof token);
    if (code == EXIT_OK)
        code = serve(c, &a, token, port, poll_ms);
out:
    load_args_free(&a.load);
    return code;
}
