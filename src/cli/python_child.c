/*
 * The Python process that imports definition files (python.c says what it
 * runs): started in a process group of its own that dies with weir
 * (PR_SET_PDEATHSIG), waited for within a bound, and killed as a group
 * afterwards, so that nothing it forked outlives it. While it runs, its
 * stdout reaches the terminal one line at a time, each prefixed and with
 * control characters escaped (a definition file cannot print weir's lines
 * or move the cursor), and the lines of its status channel (descriptor 3)
 * go to the caller. Owns the child, its pipes and its wait.
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
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define LINE_MAX_BYTES 4096      /* a longer stdout line is cut in pieces */
#define STATUS_MAX_BYTES (64u << 10) /* a longer status line is dropped */
#define OUT_PREFIX "python: "

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

/* ---- what the child writes -------------------------------------------------- */

typedef struct line_buf {
    char *text;
    size_t len, cap, max;
    bool overflow; /* the current line went past max */
} line_buf;

typedef struct relay {
    FILE *out;          /* where stdout lines go; NULL = dropped */
    line_buf out_line;
    line_buf status_line;
    child_status_fn on_status;
    void *payload;
} relay;

static bool line_put(line_buf *l, char c)
{
    if (l->len + 1 >= l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        if (cap > l->max + 1)
            cap = l->max + 1;
        char *t = l->len + 1 < cap ? realloc(l->text, cap) : NULL;
        if (!t)
            return false;
        l->text = t;
        l->cap = cap;
    }
    l->text[l->len++] = c;
    return true;
}

/* One stdout line, prefixed; bytes a terminal would act on are escaped
 * (text_put; a NUL byte as \x00). */
static void emit_out(relay *r)
{
    line_buf *l = &r->out_line;
    if (r->out) {
        fputs(OUT_PREFIX, r->out);
        for (size_t start = 0; l->text && start <= l->len;) {
            size_t end = start;
            while (end < l->len && l->text[end] != '\0')
                end++;
            l->text[end] = '\0'; /* there is room: line_put keeps one byte */
            text_put(r->out, l->text + start, SIZE_MAX);
            if (end < l->len)
                fputs("\\x00", r->out);
            start = end + 1;
        }
        fputc('\n', r->out);
        fflush(r->out);
    }
    l->len = 0;
}

static void take_out(relay *r, const char *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '\n' || r->out_line.len >= LINE_MAX_BYTES) {
            emit_out(r);
            if (data[i] == '\n')
                continue;
        }
        if (!line_put(&r->out_line, data[i]))
            emit_out(r);
    }
}

static void take_status(relay *r, const char *data, size_t n)
{
    line_buf *l = &r->status_line;
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '\n') {
            if (!l->overflow && l->len) {
                l->text[l->len] = '\0';
                r->on_status(r->payload, l->text);
            }
            l->len = 0;
            l->overflow = false;
        } else if (!l->overflow && (l->len >= l->max || !line_put(l, data[i]))) {
            l->overflow = true;
        }
    }
}

/* Read what fd has (without blocking when it is non-blocking); false at
 * its end. */
static bool pump(relay *r, int fd, bool status)
{
    char buf[8192];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK;
        if (n == 0)
            return false;
        if (status)
            take_status(r, buf, (size_t)n);
        else
            take_out(r, buf, (size_t)n);
        if ((size_t)n < sizeof buf)
            return true;
    }
}

void child_put_lines(FILE *out, const char *text, size_t len)
{
    relay r = { out, { NULL, 0, 0, LINE_MAX_BYTES, false },
                { NULL, 0, 0, 0, false }, NULL, NULL };
    take_out(&r, text, len);
    if (r.out_line.len)
        emit_out(&r);
    free(r.out_line.text);
}

/* ---- the child -------------------------------------------------------------- */

/* A pipe whose ends are close-on-exec and above 3 (the child's dup2 into
 * 1, 2 and 3 cannot clobber them). */
static int pipe_high(int fds[2])
{
    int raw[2];
    if (pipe(raw) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        fds[i] = fcntl(raw[i], F_DUPFD_CLOEXEC, 10);
        close(raw[i]);
    }
    if (fds[0] < 0 || fds[1] < 0) {
        if (fds[0] >= 0)
            close(fds[0]);
        if (fds[1] >= 0)
            close(fds[1]);
        return -1;
    }
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    return 0;
}

static long elapsed_ms(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1000 +
           (now.tv_nsec - start->tv_nsec) / 1000000;
}

/* Relay the child's output until it exits, secs pass or a guarded Ctrl-C
 * comes; then kill its group, reap it and take what the pipes still
 * hold. */
static int supervise(pid_t pid, unsigned secs, int out_fd, int status_fd,
                     relay *r)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    const long limit_ms = (long)secs * 1000;
    int pidfd = open_pidfd(pid);
    struct pollfd pf[3] = { { out_fd, POLLIN, 0 },
                            { status_fd, POLLIN, 0 },
                            { pidfd, POLLIN, 0 } };
    bool done = false, interrupted = false;
    while (!(done = exited(pid))) {
        long spent = elapsed_ms(&start);
        if (spent > limit_ms || (interrupted = interrupt_pending()))
            break;
        long wait = pidfd >= 0 ? 250 : 20;
        if (wait > limit_ms - spent + 1)
            wait = limit_ms - spent + 1;
        if (poll(pf, 3, (int)wait) <= 0)
            continue;
        if (pf[0].revents && !pump(r, out_fd, false))
            pf[0].fd = -1;
        if (pf[1].revents && !pump(r, status_fd, true))
            pf[1].fd = -1;
    }
    if (pidfd >= 0)
        close(pidfd);
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL); /* if it could not make its group */
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    /* What it wrote before it ended (non-blocking: a process that left
     * its group may hold the pipes open). */
    pump(r, out_fd, false);
    pump(r, status_fd, true);
    if (r->out_line.len)
        emit_out(r);
    return done ? status : interrupted ? CHILD_INTERRUPTED : CHILD_TIMEOUT;
}

int child_run(const child_spec *spec, child_status_fn on_status, void *payload)
{
    int out_pipe[2] = { -1, -1 }, status_pipe[2] = { -1, -1 };
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0 || pipe_high(out_pipe) || pipe_high(status_pipe)) {
        int e = errno;
        if (null_fd >= 0)
            close(null_fd);
        if (out_pipe[0] >= 0) {
            close(out_pipe[0]);
            close(out_pipe[1]);
        }
        errno = e;
        return CHILD_START_FAILED;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* Only async-signal-safe calls until exec. */
        if (setpgid(0, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
            getppid() != parent)
            _exit(CHILD_EXEC_FAILED);
        if (chdir(spec->dir) != 0 || dup2(null_fd, 0) < 0 ||
            dup2(out_pipe[1], 1) < 0 || dup2(spec->err_fd, 2) < 0 ||
            dup2(status_pipe[1], CHILD_STATUS_FD) < 0)
            _exit(CHILD_EXEC_FAILED);
        execve(spec->python, spec->argv, spec->env);
        _exit(CHILD_EXEC_FAILED);
    }
    int e = errno;
    close(null_fd);
    close(out_pipe[1]);
    close(status_pipe[1]);
    int rc = CHILD_START_FAILED;
    relay r = { spec->out, { NULL, 0, 0, LINE_MAX_BYTES, false },
                { NULL, 0, 0, STATUS_MAX_BYTES, false }, on_status, payload };
    if (pid > 0) {
        setpgid(pid, pid); /* also here: the kill may come before it ran */
        rc = supervise(pid, spec->timeout_s, out_pipe[0], status_pipe[0], &r);
    }
    close(out_pipe[0]);
    close(status_pipe[0]);
    free(r.out_line.text);
    free(r.status_line.text);
    if (pid < 0)
        errno = e;
    return rc;
}
