/*
 * `weir serve`: a long-running Spark Connect server (src/connect in
 * serving mode) that the stock pipelines CLI runs against:
 * SPARK_REMOTE=<url> python -m pyspark.pipelines.cli run|dry-run.
 *
 * Binds loopback unless --host says otherwise (and then the token must be
 * given explicitly: --token-file, WEIR_SERVE_TOKEN or --token, which other
 * local users can read in /proc/PID/cmdline), prints the sc:// URL with
 * its token, logs each run's
 * start and end, and serves until SIGINT or SIGTERM; then the running
 * updates are cancelled and waited for (recorded CANCELED, storage
 * intact) before the endpoint closes. A second signal ends the process at
 * once. The signals are blocked in every thread and taken with sigwait,
 * so no handler or global state is needed.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "connect/connect.h"

#define DEFAULT_PORT 15002
#define MAX_TOKEN 512
#define TOKEN_ENV "WEIR_SERVE_TOKEN"

typedef struct serve_args {
    const char *spec, *host, *port, *token, *token_file;
    load_args load; /* --env, --conf: the served project's */
} serve_args;

enum { O_SPEC, O_HOST, O_PORT, O_TOKEN, O_TOKEN_FILE, O_ENV, O_CONF };

static const opt_def serve_opts[] = {
    { "spec", true },       { "host", true }, { "port", true },
    { "token", true },      { "token-file", true },
    { "env", true },        { "conf", true }, { NULL, false },
};

static int parse(const cli *c, serve_args *a, int argc, char **argv)
{
    opt_iter it;
    const char *value = NULL;
    int id;

    opt_init(&it, argv[0], argc, argv);
    while ((id = opt_next(&it, serve_opts, &value)) != OPT_END) {
        switch (id) {
        case OPT_HELP: help_command(stdout, "serve"); return EXIT_OK;
        case OPT_ERROR: return EXIT_USAGE;
        case OPT_POSITIONAL: return opt_unexpected(&it, value);
        case O_SPEC: a->spec = value; break;
        case O_HOST: a->host = value; break;
        case O_PORT: a->port = value; break;
        case O_TOKEN: a->token = value; break;
        case O_TOKEN_FILE: a->token_file = value; break;
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

/* Characters that survive pyspark's parsing of "sc://host:port/;token=T"
 * (it splits on ';' and '=', and a '/' moves the parameters). */
static bool token_ok(const char *t)
{
    if (!*t)
        return false;
    for (; *t; t++)
        if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') ||
              (*t >= '0' && *t <= '9') || strchr("._~+-", *t)))
            return false;
    return true;
}

/* One log line from the server's threads: written whole. */
static void on_log(const char *message, void *payload)
{
    (void)payload;
    char stamp[32];
    struct tm tm;
    time_t now = time(NULL);
    if (!localtime_r(&now, &tm) ||
        strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        strcpy(stamp, "0000-00-00 00:00:00");
    flockfile(stdout);
    fprintf(stdout, "%s: %s\n", stamp, message);
    fflush(stdout);
    funlockfile(stdout);
}

/* The folder of an absolute spec path (malloc'd). */
static char *folder_of(const char *spec)
{
    char *dir = strdup(spec);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash)
        slash[slash == dir] = '\0';
    return dir;
}

/* What clients put after sc://. */
static void url_host(char *buf, size_t size, const char *bind)
{
    if (is_loopback(bind)) {
        /* pyspark sends a token in plaintext only to "localhost". */
        snprintf(buf, size, "localhost");
    } else if (strcmp(bind, "0.0.0.0") == 0 || strcmp(bind, "::") == 0) {
        if (gethostname(buf, size) != 0 || !buf[0])
            snprintf(buf, size, "HOST");
        buf[size - 1] = '\0';
    } else if (strchr(bind, ':')) {
        snprintf(buf, size, "[%s]", bind);
    } else {
        snprintf(buf, size, "%s", bind);
    }
}

static int serve(const cli *c, const serve_args *a, const char *token,
                 unsigned port)
{
    project p;
    memset(&p, 0, sizeof p);
    char *root = NULL;
    const char *name = NULL;
    int code = EXIT_OK;
    weir_error err;
    memset(&err, 0, sizeof err);

    if (a->spec) {
        /* The project served: its folder is the base of relative paths,
         * its name is recorded with the updates. */
        code = project_open_with(&p, c, a->spec, &a->load, NULL, NULL);
        if (code != EXIT_OK) {
            project_close(&p);
            return code;
        }
        root = folder_of(weir_pipeline_spec_path(p.pipeline));
        name = weir_pipeline_name(p.pipeline);
    } else {
        int rc = weir_session_open(&p.session, NULL, &err);
        if (rc) {
            print_failure(c, NULL, rc, &err);
            return exit_code_for(rc);
        }
        root = getcwd(NULL, 0);
    }
    if (!root) {
        print_error(c, "cannot find the current folder: %s", strerror(errno));
        project_close(&p);
        return EXIT_FAILED;
    }

    /* Blocked before the server's threads start, so they inherit it and
     * only sigwait below sees the signals. */
    sigset_t stop_set, old_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_set, &old_set);

    weir_connect_options co;
    memset(&co, 0, sizeof co);
    co.host = a->host ? a->host : "127.0.0.1";
    co.port = port;
    co.token = token;
    co.session = p.session;
    co.root_dir = root;
    co.name = name;
    co.spec_path = a->spec ? weir_pipeline_spec_path(p.pipeline) : NULL;
    co.environment = a->load.env;
    weir_kv *conf = load_args_kv(&a->load);
    co.conf = conf;
    co.n_conf = conf ? a->load.conf.len : 0;
    co.on_log = on_log;
    weir_connect_server *server = NULL;
    int rc = WEIR_ENOMEM;
    if (conf)
        rc = weir_connect_start(&server, &co, &err);
    else
        snprintf(err.message, sizeof err.message, "out of memory");
    load_args_kv_free(conf, a->load.conf.len);
    if (rc) {
        pthread_sigmask(SIG_SETMASK, &old_set, NULL);
        print_failure(c, NULL, rc, &err);
        free(root);
        project_close(&p);
        return exit_code_for(rc);
    }

    char host[300], line[1200];
    url_host(host, sizeof host, co.host);
    snprintf(line, sizeof line, "Serving Spark Connect on %s:%u; relative "
             "paths resolve against %s", co.host, weir_connect_port(server),
             root);
    on_log(line, NULL);
    if (a->load.env || a->load.conf.len) {
        snprintf(line, sizeof line, "Runs use %s%s's storage %s, catalog %s, "
                 "database %s and configuration over what clients send",
                 a->load.env ? "environment " : "the project",
                 a->load.env ? a->load.env : "", weir_pipeline_storage(p.pipeline),
                 weir_pipeline_catalog(p.pipeline),
                 weir_pipeline_database(p.pipeline));
        on_log(line, NULL);
    }
    flockfile(stdout);
    printf("sc://%s:%u/;token=%s\n", host, weir_connect_port(server), token);
    funlockfile(stdout);
    snprintf(line, sizeof line, "Run pipelines with: SPARK_REMOTE='sc://%s:%u/"
             ";token=%s' python -m pyspark.pipelines.cli run", host,
             weir_connect_port(server), token);
    on_log(line, NULL);
    if (!is_loopback(co.host))
        on_log("Note: pyspark uses TLS for hosts other than localhost when a "
               "token is set; weir speaks plaintext, so put a TLS proxy in "
               "front or tunnel to localhost",
               NULL);
    on_log("Stop with Ctrl-C (SIGINT) or SIGTERM", NULL);

    int sig = 0;
    while (sigwait(&stop_set, &sig) != 0)
        ;
    /* A second signal ends the process at once. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    snprintf(line, sizeof line, "Stopping (%s)...",
             sig == SIGINT ? "SIGINT" : "SIGTERM");
    on_log(line, NULL);
    weir_connect_stop(server);
    on_log("Stopped.", NULL);
    free(root);
    project_close(&p);
    return code;
}

static int serve_main(const cli *c, serve_args *a);

int cmd_serve(const cli *c, int argc, char **argv)
{
    serve_args a;
    memset(&a, 0, sizeof a);
    int code = parse(c, &a, argc, argv);
    if (code < 0)
        code = serve_main(c, &a);
    load_args_free(&a.load);
    return code;
}

/* After the options: check them, then serve. */
static int serve_main(const cli *c, serve_args *a_in)
{
    const serve_args a = *a_in;
    int code;
    if ((a.load.env || a.load.conf.len) && !a.spec) {
        print_error(c, "--env and --conf apply to the served project: give "
                       "its --spec too");
        return EXIT_USAGE;
    }

    unsigned port = DEFAULT_PORT;
    if (a.port) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(a.port, &end, 10);
        if (!*a.port || *end || errno || v > 65535 || a.port[0] == '-') {
            print_error(c, "--port wants a number from 0 to 65535 (0 = any "
                           "free port), not '%s'", a.port);
            return EXIT_USAGE;
        }
        port = (unsigned)v;
    }
    char token[MAX_TOKEN + 2];
    bool given;
    code = endpoint_token(c, a.token, a.token_file, TOKEN_ENV, token,
                          sizeof token, &given);
    if (code)
        return code;
    if (a.host && !is_loopback(a.host) && !given) {
        print_error(c, "--host %s is not a loopback address: give the token "
                       "clients must send with --token-file, " TOKEN_ENV
                       " or --token",
                    a.host);
        return EXIT_USAGE;
    }
    if (strlen(token) > MAX_TOKEN || !token_ok(token)) {
        print_error(c, "the token may only hold letters, digits and . _ ~ + - "
                       "(it travels in the sc:// URL), at most %d of them",
                    MAX_TOKEN);
        return EXIT_USAGE;
    }
    return serve(c, &a, token, port);
}
