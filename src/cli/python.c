/*
 * Projects with Python definition files: weir starts its Spark Connect
 * endpoint on an abstract unix-domain socket that serves only its own
 * children, with a one-time token, bound to the loaded pipeline,
 * and runs the user's Python with the real pyspark-client and weir's
 * launcher (python/weir_launch.py, compiled in) to import the files; what
 * they define lands in the pipeline, which the command then validates and
 * runs like a SQL project. Owns finding Python, what the launcher tells
 * weir on its status channel, and turning its failures into weir's error
 * format (the process itself is python_child.c).
 *
 * The launcher's exit status is believed only together with its status
 * channel: it names each file before importing it and says when it has
 * imported them all ("done"); its error reports travel there too, never
 * in the output a definition file can write to.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "connect/connect.h"

extern const char cli_py_launch[];
extern const char cli_py_shim[];
extern char **environ;

/* The launcher's exit statuses (weir_launch.py). */
enum { LAUNCH_MISSING = 3, LAUNCH_DEFINITION = 4 };

#define DEFAULT_TIMEOUT_S 300
/* pandas 3 is untested with pyspark-client 4.2.0, which warns under it;
 * the tests pin pandas 2.3.3 (tests/python/pyspark-client-4.2.0.txt) */
#define CLIENT_PIN "'pyspark-client==4.2.0' 'pandas<3'"

static bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* Python as users expect: $WEIR_PYTHON, the active virtual environment's,
 * then python3 on PATH. shown (size >= 4096) receives what to call it in
 * messages. Returns a malloc'd path to exec, or NULL (not found). */
static char *find_python(char *shown, size_t size)
{
    char venv_python[4096];
    const char *want = getenv("WEIR_PYTHON");
    const char *venv = getenv("VIRTUAL_ENV");

    if (!want || !want[0]) {
        want = "python3";
        if (venv && venv[0]) {
            snprintf(venv_python, sizeof venv_python, "%s/bin/python", venv);
            if (executable(venv_python))
                want = venv_python;
        }
    }
    snprintf(shown, size, "%s", want);
    if (strchr(want, '/'))
        return executable(want) ? strdup(want) : NULL;
    const char *path = getenv("PATH");
    if (!path || !path[0])
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char cand[4096];
        int len = snprintf(cand, sizeof cand, "%.*s/%s", (int)n,
                           n ? path : ".", want);
        if (len > 0 && (size_t)len < sizeof cand && executable(cand))
            return strdup(cand);
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* environ without the variables we set, plus ours (NULL-terminated,
 * malloc'd array; the strings of environ are borrowed). */
static char **child_env(char *const *ours, size_t n_ours)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + n_ours + 1, sizeof *env);
    if (!env)
        return NULL;
    /* Where the launcher connects comes from weir only. */
    static const char *const dropped[] = {
        "SPARK_CONNECT_AUTHENTICATE_TOKEN=", "SPARK_REMOTE=",
        "WEIR_CONNECT_SOCKET=", "WEIR_CONNECT_TOKEN=", "WEIR_GRAPH_ID=",
    };
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool replaced = false;
        for (size_t j = 0; j < sizeof dropped / sizeof *dropped; j++)
            replaced |= strncmp(environ[i], dropped[j], strlen(dropped[j])) == 0;
        for (size_t j = 0; j < n_ours && !replaced; j++) {
            size_t len = strcspn(ours[j], "=") + 1;
            replaced = strncmp(environ[i], ours[j], len) == 0;
        }
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < n_ours; j++)
        env[k++] = ours[j];
    return env;
}

/* "WEIR_PIPELINE_CONF={...}": the pipeline configuration as weir loaded it
 * (spec, environment, --conf) for the launcher's session. malloc'd. */
static char *pipeline_conf_json(const weir_pipeline *pl)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputs("WEIR_PIPELINE_CONF={", f);
    const char *key, *value;
    size_t n = weir_pipeline_conf_at(pl, 0, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        weir_pipeline_conf_at(pl, i, &key, &value);
        if (i)
            fputc(',', f);
        json_put_string(f, key);
        fputc(':', f);
        json_put_string(f, value);
    }
    fputc('}', f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The folder of the spec: the launcher runs there (as Spark's CLI does
 * while it imports). malloc'd. */
static char *spec_dir(const weir_pipeline *pl)
{
    const char *spec = weir_pipeline_spec_path(pl);
    char *dir = strdup(spec ? spec : ".");
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash)
        slash[slash == dir] = '\0';
    return dir;
}

static unsigned timeout_seconds(void)
{
    const char *s = getenv("WEIR_PYTHON_TIMEOUT");
    char *end;
    long v = s ? strtol(s, &end, 10) : 0;
    return s && *s && !*end && v > 0 && v < 86400 ? (unsigned)v
                                                  : DEFAULT_TIMEOUT_S;
}

/* The whole of fd (from the start), NUL-terminated, malloc'd. */
static char *slurp(int fd)
{
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    if (!buf || lseek(fd, 0, SEEK_SET) < 0) {
        free(buf);
        return NULL;
    }
    for (;;) {
        if (cap - len < 1024) {
            char *bigger = cap < (64u << 20) ? realloc(buf, cap * 2) : NULL;
            if (!bigger)
                break;
            buf = bigger;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + len, cap - len - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    buf[len] = '\0';
    return buf;
}

/* Line `line` (1-based) of file dir/path into buf, "" if unreadable. */
static void source_line(char *buf, size_t size, const char *dir,
                        const char *path, unsigned line)
{
    char full[4096];
    buf[0] = '\0';
    if (line == 0 || !path[0])
        return;
    snprintf(full, sizeof full, "%s%s%s", path[0] == '/' ? "" : dir,
             path[0] == '/' ? "" : "/", path);
    FILE *f = fopen(full, "r");
    if (!f)
        return;
    for (unsigned n = 1; fgets(buf, (int)size, f); n++) {
        size_t len = strlen(buf);
        bool whole = len && buf[len - 1] == '\n';
        if (n == line)
            break;
        while (!whole) { /* skip the rest of a long line */
            int ch = fgetc(f);
            if (ch == EOF || ch == '\n')
                break;
        }
        buf[0] = '\0';
    }
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
}

/* What the launcher said on its status channel. */
typedef struct launch_state {
    project *p;
    const char *const *files; /* relative to dir, as the launcher has them */
    size_t n_files;
    const char *dir;          /* the spec's folder */
    long importing;           /* the file being imported; -1 before any */
    bool done;                /* it said it imported every file */
    char *report;             /* its error report (a JSON object) or NULL */
} launch_state;

static void on_status(void *payload, const char *line)
{
    launch_state *ls = payload;
    char event[32];
    int64_t n = -1;
    if (!json_get_string(json_member(line, "event"), event, sizeof event))
        return;
    if (strcmp(event, "importing") == 0) {
        if (!json_get_int(json_member(line, "file"), &n) || n < 0 ||
            (uint64_t)n >= ls->n_files || n != ls->importing + 1)
            return; /* files come in order, each once */
        ls->importing = (long)n;
        const char *f = ls->files[n];
        if (ls->p->log)
            print_logline(ls->p->log, "Importing %s%s%s...",
                          f[0] == '/' ? "" : ls->dir, f[0] == '/' ? "" : "/", f);
    } else if (strcmp(event, "done") == 0) {
        ls->done = json_get_int(json_member(line, "files"), &n) &&
                   (uint64_t)n == ls->n_files &&
                   ls->importing + 1 == (long)ls->n_files;
    } else if (strcmp(event, "error") == 0 && !ls->report) {
        ls->report = strdup(line);
    }
}

/* Is path (relative to the spec's folder) one of the definition files?
 * Only their lines are quoted: a path in a report or a diagnostic is not
 * trusted to name a file weir may show. */
static bool definition_file(const launch_state *ls, const char *path)
{
    for (size_t i = 0; i < ls->n_files; i++)
        if (strcmp(ls->files[i], path) == 0)
            return true;
    return false;
}

/* The kind of the launcher's report ("missing", "definition", ...), or
 * "" without one. */
static void report_kind(const launch_state *ls, char *kind, size_t size)
{
    kind[0] = '\0';
    if (ls->report)
        json_get_string(json_member(ls->report, "kind"), kind, size);
}

/* Python's stderr (the user's traceback): prefixed and escaped. */
static void show_stderr(int err_fd)
{
    char *text = slurp(err_fd);
    if (text)
        child_put_lines(stderr, text, strlen(text));
    free(text);
}

/* s (of buffer size size) with the bytes a terminal would act on escaped,
 * as text_put writes them: the report's text is the child's. */
static void defuse(char *s, size_t size)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    text_put(m, s, SIZE_MAX);
    if (fclose(m) == 0)
        snprintf(s, size, "%s", buf);
    free(buf);
}

/* A definition error from the launcher's report, then the user's
 * traceback. */
static void print_definition_error(const launch_state *ls, int err_fd,
                                   bool have_diags, FILE *json_out)
{
    const char *j = ls->report;
    /* The endpoint's diagnostics say it better (and the traceback only
     * shows pyspark sending the definition). */
    const char *server = json_member(j, "server");
    if (have_diags && server && strncmp(server, "true", 4) == 0)
        return;
    weir_error e;
    memset(&e, 0, sizeof e);
    e.code = WEIR_ESQL;
    int64_t line = 0;
    json_get_string(json_member(j, "message"), e.message, sizeof e.message);
    json_get_string(json_member(j, "error_class"), e.error_class,
                    sizeof e.error_class);
    json_get_string(json_member(j, "path"), e.path, sizeof e.path);
    if (json_get_int(json_member(j, "line"), &line) && line > 0 &&
        line < 1000000000)
        e.line = (unsigned)line;
    defuse(e.message, sizeof e.message);
    defuse(e.error_class, sizeof e.error_class);
    defuse(e.path, sizeof e.path);
    if (definition_file(ls, e.path))
        source_line(e.line_text, sizeof e.line_text, ls->dir, e.path, e.line);
    print_diagnostic(ls->p->cli, &e);
    show_stderr(err_fd);
    if (json_out)
        print_failure_json(json_out, NULL, e.code, &e);
}

/* Python ended with status 0 without saying it imported every file: a
 * definition file ended the process (os._exit). An error at that file. */
static int ended_early(const launch_state *ls, FILE *json_out)
{
    if (ls->importing < 0) {
        print_error(ls->p->cli, "Python exited with status 0 before importing "
                                "any definition file");
        return EXIT_FAILED;
    }
    weir_error e;
    memset(&e, 0, sizeof e);
    e.code = WEIR_ESQL;
    snprintf(e.path, sizeof e.path, "%s", ls->files[ls->importing]);
    snprintf(e.message, sizeof e.message,
             "Python exited with status 0 while this file was imported, so "
             "the definition files after it were not imported: a definition "
             "file must not end the process (os._exit)");
    print_diagnostic(ls->p->cli, &e);
    if (json_out)
        print_failure_json(json_out, NULL, e.code, &e);
    return EXIT_USAGE;
}

/* What went wrong with the child, printed; the exit code. */
static int report_child(const launch_state *ls, int status, const char *python,
                        int err_fd, bool have_diags, FILE *json_out)
{
    const cli *c = ls->p->cli;
    char during[4200] = "before importing any definition file";
    if (ls->importing >= 0)
        snprintf(during, sizeof during, "while importing %s",
                 ls->files[ls->importing]);
    if (status == CHILD_TIMEOUT) {
        print_error(c, "the Python definition files did not finish within "
                       "%u seconds (WEIR_PYTHON_TIMEOUT); stopped %s",
                    timeout_seconds(), during);
        return EXIT_FAILED;
    }
    if (status == CHILD_INTERRUPTED) {
        print_error(c, "interrupted: Python was stopped %s", during);
        return EXIT_FAILED;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    char kind[32];
    report_kind(ls, kind, sizeof kind);
    if (code == LAUNCH_MISSING && strcmp(kind, "missing") == 0) {
        print_error(c, "pyspark-client is not installed for %s: install it "
                       "with `%s -m pip install " CLIENT_PIN "`, or point "
                       "WEIR_PYTHON at a Python that has it",
                    python, python);
        return EXIT_USAGE;
    }
    if (code == LAUNCH_DEFINITION && strcmp(kind, "definition") == 0) {
        print_definition_error(ls, err_fd, have_diags, json_out);
        return EXIT_USAGE;
    }
    show_stderr(err_fd);
    if (code == 0)
        return ended_early(ls, json_out);
    if (code == CHILD_EXEC_FAILED && ls->importing < 0)
        print_error(c, "cannot run Python '%s' (set WEIR_PYTHON to a Python "
                       "3 with pyspark-client)",
                    python);
    else if (WIFSIGNALED(status))
        print_error(c, "Python (%s) was killed by signal %d %s", python,
                    WTERMSIG(status), during);
    else
        print_error(c, "Python (%s) failed with exit status %d %s", python,
                    code, during);
    return code == CHILD_EXEC_FAILED && ls->importing < 0 ? EXIT_USAGE
                                                          : EXIT_FAILED;
}

/* Find Python and run the launcher with the n_where variables of where
 * ("NAME=value": the endpoint, weir_launch.py says which) in its
 * environment, reporting what fails; server (may be NULL) is weir's
 * endpoint the files define into, whose diagnostics say more than the
 * launcher's report. */
static int launch(project *p, const char *const where[2], size_t n_where,
                  weir_connect_server *server, FILE *json_out)
{
    const char *const *files = NULL;
    size_t n_files = weir_pipeline_python_files(p->pipeline, &files);
    char shown[4096];
    char *python = find_python(shown, sizeof shown);
    if (!python) {
        print_error(p->cli, "the project has Python definition files, but "
                            "no Python was found ('%s'): set WEIR_PYTHON to "
                            "a Python 3 with pyspark-client "
                            "(pip install " CLIENT_PIN ")",
                    shown);
        return EXIT_USAGE;
    }
    char *settings = pipeline_conf_json(p->pipeline);
    char status_env[32];
    snprintf(status_env, sizeof status_env, "WEIR_STATUS_FD=%d", CHILD_STATUS_FD);
    char *ours[5] = { "PYTHONDONTWRITEBYTECODE=1", status_env, settings,
                      (char *)where[0], n_where > 1 ? (char *)where[1] : NULL };
    char **env = settings ? child_env(ours, 3 + n_where) : NULL;
    char **argv = calloc(n_files + 6, sizeof *argv);
    char *dir = spec_dir(p->pipeline);
    const char *tmpdir = getenv("TMPDIR");
    char err_tmpl[4096];
    int len = snprintf(err_tmpl, sizeof err_tmpl, "%s/weir-python-XXXXXX",
                       tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    if (len < 0 || (size_t)len >= sizeof err_tmpl)
        snprintf(err_tmpl, sizeof err_tmpl, "/tmp/weir-python-XXXXXX");
    /* Python's stderr: shown only when it fails. */
    int err_fd = mkstemp(err_tmpl);
    int code = EXIT_OK;
    launch_state ls = { p, files, n_files, dir, -1, false, NULL };
    if (!env || !argv || !dir || err_fd < 0) {
        print_error(p->cli, "cannot start Python: %s",
                    err_fd < 0 ? strerror(errno) : "out of memory");
        code = EXIT_FAILED;
    } else {
        unlink(err_tmpl);
        size_t k = 0;
        argv[k++] = python;
        argv[k++] = "-c";
        argv[k++] = (char *)cli_py_launch;
        argv[k++] = (char *)cli_py_shim;
        argv[k++] = (char *)weir_pipeline_spec_path(p->pipeline);
        for (size_t i = 0; i < n_files; i++)
            argv[k++] = (char *)files[i];
        argv[k] = NULL;
        if (p->log)
            fflush(p->log);
        fflush(stdout);
        child_spec spec = { python, argv, env, dir, p->log, err_fd,
                            timeout_seconds() };
        int status = child_run(&spec, on_status, &ls);
        if (status == CHILD_START_FAILED) {
            print_error(p->cli, "cannot start Python: %s", strerror(errno));
            code = EXIT_FAILED;
        } else if (status != 0 || !ls.done) {
            code = report_child(&ls, status, shown, err_fd,
                                server && weir_connect_diagnostics(server, NULL) > 0,
                                json_out);
        }
    }
    /* Problems the endpoint found in what the files defined, named like
     * SQL errors: path relative to the spec's folder, the source line. */
    const weir_error *diags = NULL;
    size_t n_diags = server ? weir_connect_diagnostics(server, &diags) : 0;
    size_t dir_len = dir ? strlen(dir) : 0;
    for (size_t i = 0; i < n_diags; i++) {
        weir_error e = diags[i];
        if (dir_len && strncmp(e.path, dir, dir_len) == 0 &&
            e.path[dir_len] == '/')
            memmove(e.path, e.path + dir_len + 1, strlen(e.path + dir_len));
        if (!e.line_text[0] && dir && definition_file(&ls, e.path))
            source_line(e.line_text, sizeof e.line_text, dir, e.path, e.line);
        print_diagnostic(p->cli, &e);
        if (json_out)
            print_failure_json(json_out, NULL, e.code, &e);
    }
    if (n_diags && code == EXIT_OK)
        code = EXIT_USAGE;
    if (err_fd >= 0)
        close(err_fd);
    free(ls.report);
    free(dir);
    free(argv);
    free(env);
    free(settings);
    free(python);
    return code;
}

int project_define_python(project *p, FILE *json_out)
{
    if (weir_pipeline_python_files(p->pipeline, NULL) == 0)
        return EXIT_OK;
    char token[RANDOM_TOKEN_SIZE], name[RANDOM_TOKEN_SIZE];
    if (!random_token(token) || !random_token(name)) {
        print_error(p->cli, "cannot read /dev/urandom for the session token");
        return EXIT_FAILED;
    }
    /* An abstract unix-domain socket (no file to leave behind) that
     * serves this process's children only: no other process, local user
     * or not, can hold its connections. */
    char socket_name[64];
    snprintf(socket_name, sizeof socket_name, "@weir-connect-%ld-%.16s",
             (long)getpid(), name);
    weir_connect_options co;
    memset(&co, 0, sizeof co);
    co.unix_path = socket_name;
    co.children_only = true;
    co.token = token;
    co.pipeline = p->pipeline;
    weir_connect_server *server = NULL;
    weir_error err;
    memset(&err, 0, sizeof err);
    int rc = weir_connect_start(&server, &co, &err);
    if (rc) {
        print_failure(p->cli, NULL, rc, &err);
        return exit_code_for(rc);
    }
    char socket_env[96], token_env[96];
    snprintf(socket_env, sizeof socket_env, "WEIR_CONNECT_SOCKET=%s",
             socket_name);
    snprintf(token_env, sizeof token_env, "WEIR_CONNECT_TOKEN=%s", token);
    const char *where[2] = { socket_env, token_env };
    int code = launch(p, where, 2, server, json_out);
    weir_connect_stop(server);
    return code;
}

int project_define_python_remote(project *p, const char *uri,
                                 const char *graph_id, FILE *json_out)
{
    if (weir_pipeline_python_files(p->pipeline, NULL) == 0)
        return EXIT_OK;
    char *remote = NULL, *graph = NULL;
    size_t n1 = strlen(uri) + 16, n2 = strlen(graph_id) + 16;
    int code = EXIT_FAILED;
    if ((remote = malloc(n1)) && (graph = malloc(n2))) {
        snprintf(remote, n1, "SPARK_REMOTE=%s", uri);
        snprintf(graph, n2, "WEIR_GRAPH_ID=%s", graph_id);
        const char *where[2] = { remote, graph };
        code = launch(p, where, 2, NULL, json_out);
    } else {
        print_error(p->cli, "out of memory");
    }
    free(remote);
    free(graph);
    return code;
}
