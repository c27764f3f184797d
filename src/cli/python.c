/*
 * Projects with Python definition files: weir starts its Spark Connect
 * endpoint on loopback with a one-time token, bound to the loaded pipeline,
 * and runs the user's Python with the real pyspark-client and weir's
 * launcher (python/weir_launch.py, compiled in) to import the files; what
 * they define lands in the pipeline, which the command then validates and
 * runs like a SQL project. Owns finding Python, the child process, its
 * bounded wait, and turning its failures into weir's error format.
 */
/* syscall() for pidfd_open. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "connect/connect.h"

extern const char cli_py_launch[];
extern const char cli_py_shim[];
extern char **environ;

/* The launcher's exit statuses (weir_launch.py). */
enum { LAUNCH_MISSING = 3, LAUNCH_DEFINITION = 4, EXEC_FAILED = 127 };
/* wait_bounded's other outcomes (never wait statuses: those are >= 0). */
enum { WAIT_TIMEOUT = -1, WAIT_INTERRUPTED = -3, START_FAILED = -2 };

#define DEFAULT_TIMEOUT_S 300
#define REPORT_MARK "weir-python-error: "
#define CLIENT_PIN "pyspark-client==4.2.0"

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
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool replaced = strncmp(environ[i], "SPARK_CONNECT_AUTHENTICATE_TOKEN=",
                                33) == 0;
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

/* A descriptor that becomes readable when pid exits (Linux 5.3+), or -1. */
static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

/* Has pid exited? Polls without reaping it: while it is a zombie its pid,
 * which is also its process group's id, cannot be reused. */
static bool exited(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           si.si_pid == pid;
}

/* Wait for pid at most secs seconds, or until Ctrl-C when a guard catches
 * it; then kill its process group (what it forked and left behind, or
 * everything on a timeout) and reap it. Returns the wait status, or
 * WAIT_TIMEOUT, WAIT_INTERRUPTED. With a pidfd the wait ends
 * the moment the child exits; without one, it is polled every
 * millisecond at first, then every 20 ms (the child takes at least the
 * interpreter's start-up). */
static int wait_bounded(pid_t pid, unsigned secs)
{
    int status = 0;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    const long limit_ms = (long)secs * 1000;
    int pidfd = open_pidfd(pid);
    bool done = false, interrupted = false;
    for (long tick = 0; !(done = exited(pid)); tick++) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed_ms = (now.tv_sec - start.tv_sec) * 1000 +
                          (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed_ms > limit_ms || (interrupted = interrupt_pending()))
            break;
        if (pidfd >= 0) {
            struct pollfd pf = { pidfd, POLLIN, 0 };
            long left = limit_ms - elapsed_ms + 1;
            (void)poll(&pf, 1, left > 250 ? 250 : (int)left);
        } else {
            struct timespec pause = { 0, (tick < 100 ? 1 : 20) * 1000 * 1000 };
            nanosleep(&pause, NULL);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL); /* if it could not make its group */
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return done ? status : interrupted ? WAIT_INTERRUPTED : WAIT_TIMEOUT;
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

/* A definition error: the launcher's report (the JSON after the mark, on
 * the last line of its stderr) as a weir_error; the rest of stderr (the
 * user's traceback) is printed after it. */
static void print_definition_error(const cli *c, char *out, const char *dir,
                                   bool have_diags, FILE *json_out)
{
    char *mark = strstr(out, REPORT_MARK), *next;
    while (mark && (next = strstr(mark + 1, REPORT_MARK)))
        mark = next;
    weir_error e;
    memset(&e, 0, sizeof e);
    e.code = WEIR_ESQL;
    if (mark) {
        const char *j = mark + strlen(REPORT_MARK);
        int64_t line = 0;
        *mark = '\0';
        /* The endpoint's diagnostics say it better (and the traceback
         * only shows pyspark sending the definition). */
        const char *server = json_member(j, "server");
        if (have_diags && server && strncmp(server, "true", 4) == 0)
            return;
        json_get_string(json_member(j, "message"), e.message, sizeof e.message);
        json_get_string(json_member(j, "error_class"), e.error_class,
                        sizeof e.error_class);
        json_get_string(json_member(j, "path"), e.path, sizeof e.path);
        if (json_get_int(json_member(j, "line"), &line) && line > 0 &&
            line < 1000000000)
            e.line = (unsigned)line;
        source_line(e.line_text, sizeof e.line_text, dir, e.path, e.line);
    } else {
        snprintf(e.message, sizeof e.message, "a Python definition file failed");
    }
    print_diagnostic(c, &e);
    fputs(out, stderr);
    if (json_out)
        print_failure_json(json_out, NULL, e.code, &e);
}

/* What went wrong with the child, printed; the exit code. */
static int report_child(const cli *c, int status, const char *python,
                        char *out, const char *dir, bool have_diags,
                        FILE *json_out)
{
    if (status == WAIT_TIMEOUT) {
        print_error(c, "the Python definition files did not finish within "
                       "%u seconds (WEIR_PYTHON_TIMEOUT); stopped",
                    timeout_seconds());
        return EXIT_FAILED;
    }
    if (status == WAIT_INTERRUPTED) {
        print_error(c, "interrupted: Python was stopped while importing the "
                       "definition files");
        return EXIT_FAILED;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == LAUNCH_MISSING) {
        print_error(c, "pyspark-client is not installed for %s: install it "
                       "with `%s -m pip install '" CLIENT_PIN "'`, or point "
                       "WEIR_PYTHON at a Python that has it",
                    python, python);
        return EXIT_USAGE;
    }
    if (code == LAUNCH_DEFINITION) {
        print_definition_error(c, out, dir, have_diags, json_out);
        return EXIT_USAGE;
    }
    fputs(out, stderr);
    if (code == EXEC_FAILED)
        print_error(c, "cannot run Python '%s' (set WEIR_PYTHON to a Python "
                       "3 with pyspark-client)",
                    python);
    else if (WIFSIGNALED(status))
        print_error(c, "Python (%s) was killed by signal %d while importing "
                       "the definition files",
                    python, WTERMSIG(status));
    else
        print_error(c, "Python (%s) failed with exit status %d while "
                       "importing the definition files",
                    python, code);
    return code == EXEC_FAILED ? EXIT_USAGE : EXIT_FAILED;
}

/* Run the launcher as a child of this process and wait for it. The child
 * leads its own process group, so that the kill after it (wait_bounded)
 * reaches what a definition file forked, and dies with the thread that
 * forked it (PR_SET_PDEATHSIG), which waits for it: a weir killed with
 * SIGKILL leaves no Python behind. */
static int run_launcher(const char *python, char *const *argv, char **env,
                        const char *dir, int out_fd, int err_fd)
{
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* Only async-signal-safe calls until exec. */
        if (setpgid(0, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
            getppid() != parent)
            _exit(EXEC_FAILED);
        if (chdir(dir) != 0 || null_fd < 0 || dup2(null_fd, 0) < 0 ||
            dup2(out_fd >= 0 ? out_fd : null_fd, 1) < 0 || dup2(err_fd, 2) < 0)
            _exit(EXEC_FAILED);
        execve(python, argv, env);
        _exit(EXEC_FAILED);
    }
    if (null_fd >= 0)
        close(null_fd);
    if (pid < 0)
        return START_FAILED;
    setpgid(pid, pid); /* also here: the kill may come before the child ran */
    return wait_bounded(pid, timeout_seconds());
}

/* Find Python and run the launcher with SPARK_REMOTE=remote (and
 * graph_env, "WEIR_GRAPH_ID=..." or NULL) in its environment, reporting
 * what fails; server (may be NULL) is weir's endpoint the files define
 * into, whose diagnostics say more than the launcher's report. */
static int launch(project *p, const char *remote, const char *graph_env,
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
                            "(pip install '" CLIENT_PIN "')",
                    shown);
        return EXIT_USAGE;
    }
    char *settings = pipeline_conf_json(p->pipeline);
    char *ours[4] = { (char *)remote, "PYTHONDONTWRITEBYTECODE=1", settings,
                      (char *)graph_env };
    char **env = settings ? child_env(ours, graph_env ? 4 : 3) : NULL;
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
        int status = run_launcher(python, argv, env, dir,
                                  p->log ? fileno(p->log) : -1, err_fd);
        if (status == START_FAILED) {
            print_error(p->cli, "cannot start Python: %s", strerror(errno));
            code = EXIT_FAILED;
        } else if (status != 0) {
            char *out = slurp(err_fd);
            code = report_child(p->cli, status, shown, out ? out : (char *)"",
                                dir,
                                server && weir_connect_diagnostics(server, NULL) > 0,
                                json_out);
            free(out);
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
        if (!e.line_text[0] && dir)
            source_line(e.line_text, sizeof e.line_text, dir, e.path, e.line);
        print_diagnostic(p->cli, &e);
        if (json_out)
            print_failure_json(json_out, NULL, e.code, &e);
    }
    if (n_diags && code == EXIT_OK)
        code = EXIT_USAGE;
    if (err_fd >= 0)
        close(err_fd);
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
    char token[RANDOM_TOKEN_SIZE];
    if (!random_token(token)) {
        print_error(p->cli, "cannot read /dev/urandom for the session token");
        return EXIT_FAILED;
    }
    weir_connect_options co;
    memset(&co, 0, sizeof co);
    co.host = "127.0.0.1";
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
    /* "localhost" exactly: with a token, pyspark uses plaintext only for
     * that host name (any other means TLS). */
    char remote[160];
    snprintf(remote, sizeof remote, "SPARK_REMOTE=sc://localhost:%u/;token=%s",
             weir_connect_port(server), token);
    int code = launch(p, remote, NULL, server, json_out);
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
        code = launch(p, remote, graph, NULL, json_out);
    } else {
        print_error(p->cli, "out of memory");
    }
    free(remote);
    free(graph);
    return code;
}
