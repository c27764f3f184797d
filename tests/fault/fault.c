/*
 * I/O fault injection for tests: a library preloaded into `weir`
 * (LD_PRELOAD) that makes chosen write, pwrite, fsync, fdatasync and rename
 * calls (and, on request, open-for-writing, ftruncate, fallocate and
 * read, pread as a failing source device would) on
 * regular files fail with ENOSPC, EIO, EROFS or EDQUOT, the way a full
 * disk, a failing device or a read-only mount would; on request also
 * link (another writer made the file first: EEXIST), and stat and opendir
 * (the file or folder went away: ENOENT), for races no test can time. It owns a call counter
 * and nothing else; every call it does not fail goes to the real libc
 * function unchanged. Configured by environment variables (see
 * tests/fault/README.md):
 *
 *   WEIR_FAULT_OPS    comma list of operations that may fail
 *                     (default "write,pwrite,fsync,fdatasync,rename")
 *   WEIR_FAULT_ERRNO  ENOSPC, EIO, EROFS, EDQUOT, EEXIST or ENOENT
 *                     (default EIO)
 *   WEIR_FAULT_PATH   fnmatch(3) pattern on the file's absolute path
 *                     (rename: either path); default: every regular file
 *   WEIR_FAULT_NTH    the first matching call that fails, from 1 (default 1);
 *                     0 fails nothing (trace only)
 *   WEIR_FAULT_COUNT  how many matching calls fail from there (default 0:
 *                     all of them, a fault that stays)
 *   WEIR_FAULT_LOG    a file that gets one line per matching call:
 *                     "<n> <op> <path> fail|pass"
 *
 * Standard input, output and error (fds 0-2) are never touched, so error
 * messages still get out.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum {
    OP_WRITE = 1 << 0,
    OP_PWRITE = 1 << 1,
    OP_FSYNC = 1 << 2,
    OP_FDATASYNC = 1 << 3,
    OP_RENAME = 1 << 4,
    OP_OPEN = 1 << 5, /* opening a file for writing, or creating it */
    OP_FTRUNCATE = 1 << 6,
    OP_FALLOCATE = 1 << 7,
    OP_LINK = 1 << 8, /* link(2): both paths are matched */
    OP_STAT = 1 << 9, /* stat(2) by path, as weir calls it (not DuckDB's
                         __xstat, nor stat64, lstat, fstatat) */
    OP_OPENDIR = 1 << 10, /* opendir(3) */
    OP_READ = 1 << 11,    /* read, pread, pread64: a failing source device */
    OP_DEFAULT = OP_WRITE | OP_PWRITE | OP_FSYNC | OP_FDATASYNC | OP_RENAME,
};

static const struct {
    const char *name;
    int bit;
} op_names[] = {
    { "write", OP_WRITE },         { "pwrite", OP_PWRITE },
    { "fsync", OP_FSYNC },         { "fdatasync", OP_FDATASYNC },
    { "rename", OP_RENAME },       { "open", OP_OPEN },
    { "ftruncate", OP_FTRUNCATE }, { "fallocate", OP_FALLOCATE },
    { "link", OP_LINK },           { "stat", OP_STAT },
    { "opendir", OP_OPENDIR },     { "read", OP_READ },
};

/* ---- the real functions ---------------------------------------------------- */

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
typedef int (*sync_fn)(int);
typedef int (*rename_fn)(const char *, const char *);
typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*ftruncate_fn)(int, off_t);
typedef int (*fallocate_fn)(int, int, off_t, off_t);
typedef int (*link_fn)(const char *, const char *);
typedef int (*stat_fn)(const char *, struct stat *);
typedef DIR *(*opendir_fn)(const char *);

/* Store the next definition of `name` (after this library) in *fn, a
 * function pointer of `size` bytes; memcpy avoids an object-to-function
 * pointer cast. Racing threads store the same value. */
static void lookup(void *fn, size_t size, const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p)
        abort();
    memcpy(fn, &p, size);
}

#define REAL(type, var, name)                                                 \
    static type var;                                                          \
    if (!var)                                                                 \
    lookup(&var, sizeof(var), name)

/* ---- configuration and the decision ------------------------------------------- */

static struct {
    int loaded; /* 0 no, 1 yes */
    int ops;
    int err;
    const char *pattern;
    long nth, count;
    const char *log;
} cfg;
static long calls; /* matching calls so far, all threads */

static int parse_ops(const char *s)
{
    if (!s || !*s)
        return OP_DEFAULT;
    int mask = 0;
    for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++) {
        size_t n = strlen(op_names[i].name);
        for (const char *p = s; (p = strstr(p, op_names[i].name)) != NULL; p += n)
            if ((p == s || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
                mask |= op_names[i].bit;
    }
    return mask;
}

static int parse_errno(const char *s)
{
    if (s && strcmp(s, "ENOSPC") == 0)
        return ENOSPC;
    if (s && strcmp(s, "EROFS") == 0)
        return EROFS;
    if (s && strcmp(s, "EDQUOT") == 0)
        return EDQUOT;
    if (s && strcmp(s, "EEXIST") == 0)
        return EEXIST;
    if (s && strcmp(s, "ENOENT") == 0)
        return ENOENT;
    return EIO;
}

static void load_config(void)
{
    if (__atomic_load_n(&cfg.loaded, __ATOMIC_ACQUIRE))
        return;
    const char *nth = getenv("WEIR_FAULT_NTH");
    const char *count = getenv("WEIR_FAULT_COUNT");
    const char *pattern = getenv("WEIR_FAULT_PATH");
    const char *log = getenv("WEIR_FAULT_LOG");
    cfg.ops = parse_ops(getenv("WEIR_FAULT_OPS"));
    cfg.err = parse_errno(getenv("WEIR_FAULT_ERRNO"));
    cfg.pattern = pattern && *pattern ? pattern : NULL;
    cfg.nth = nth && *nth ? strtol(nth, NULL, 10) : 1;
    cfg.count = count && *count ? strtol(count, NULL, 10) : 0;
    cfg.log = log && *log ? log : NULL;
    __atomic_store_n(&cfg.loaded, 1, __ATOMIC_RELEASE);
}

static void log_call(long n, const char *op, const char *path, bool fail)
{
    REAL(open_fn, real_open, "open");
    REAL(write_fn, real_write, "write");
    char line[PATH_MAX + 64];
    int len = snprintf(line, sizeof(line), "%ld %s %s %s\n", n, op,
                       path && *path ? path : "?", fail ? "fail" : "pass");
    if (len <= 0)
        return;
    if ((size_t)len >= sizeof(line))
        len = (int)sizeof(line) - 1;
    int fd = real_open(cfg.log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t w = real_write(fd, line, (size_t)len);
    (void)w;
    close(fd);
}

/* Whether this call fails; sets errno when it does. `path` may be NULL
 * (then `other` is used, for rename). */
static bool inject(int op, const char *opname, const char *path,
                   const char *other)
{
    load_config();
    if (!(cfg.ops & op))
        return false;
    if (cfg.pattern) {
        bool hit = (path && fnmatch(cfg.pattern, path, 0) == 0) ||
                   (other && fnmatch(cfg.pattern, other, 0) == 0);
        if (!hit)
            return false;
    }
    long n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    bool fail = cfg.nth > 0 && n >= cfg.nth &&
                (cfg.count <= 0 || n < cfg.nth + cfg.count);
    if (cfg.log)
        log_call(n, opname, path ? path : other, fail);
    return fail;
}

/* The path of a regular file open on fd, or false for anything else
 * (standard streams, pipes, sockets, terminals). */
static bool fd_file(int fd, char *path, size_t size)
{
    struct stat st;
    if (fd <= 2 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, size - 1);
    path[n > 0 ? n : 0] = '\0';
    return true;
}

static bool inject_fd(int op, const char *opname, int fd)
{
    load_config();
    if (!(cfg.ops & op))
        return false;
    char path[PATH_MAX];
    if (!fd_file(fd, path, sizeof(path)))
        return false;
    return inject(op, opname, path, NULL);
}

static char *absolute(const char *path, char *buf, size_t size)
{
    if (!path || path[0] == '/' || !getcwd(buf, size))
        return (char *)path;
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "/%s", path);
    return buf;
}

/* ---- the interposed functions ---------------------------------------------------- */

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(write_fn, fn, "write");
    if (inject_fd(OP_WRITE, "write", fd)) {
        errno = cfg.err;
        return -1;
    }
    return fn(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    REAL(pwrite_fn, fn, "pwrite");
    if (inject_fd(OP_PWRITE, "pwrite", fd)) {
        errno = cfg.err;
        return -1;
    }
    return fn(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    REAL(pwrite_fn, fn, "pwrite64");
    if (inject_fd(OP_PWRITE, "pwrite", fd)) {
        errno = cfg.err;
        return -1;
    }
    return fn(fd, buf, n, off);
}

ssize_t read(int fd, void *buf, size_t n)
{
    REAL(read_fn, fn, "read");
    if (inject_fd(OP_READ, "read", fd)) {
        errno = cfg.err;
        return -1;
    }
    return fn(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    REAL(pread_fn, fn, "pread");
    if (inject_fd(OP_READ, "read", fd)) {
        errno = cfg.err;
        return -1;
    }
    return fn(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    REAL(pread_fn, fn, "pread64");
    if (inject_fd(OP_READ, "read", fd)) {
        errno = cfg.err;
        return -1;
    }
    return fn(fd, buf, n, off);
}

int fsync(int fd)
{
    REAL(sync_fn, fn, "fsync");
    if (inject_fd(OP_FSYNC, "fsync", fd)) {
        errno = cfg.err;
        return -1;
    }
    return fn(fd);
}

int fdatasync(int fd)
{
    REAL(sync_fn, fn, "fdatasync");
    if (inject_fd(OP_FDATASYNC, "fdatasync", fd)) {
        errno = cfg.err;
        return -1;
    }
    return fn(fd);
}

int ftruncate(int fd, off_t len)
{
    REAL(ftruncate_fn, fn, "ftruncate");
    if (inject_fd(OP_FTRUNCATE, "ftruncate", fd)) {
        errno = cfg.err;
        return -1;
    }
    return fn(fd, len);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
    REAL(fallocate_fn, fn, "fallocate");
    if (inject_fd(OP_FALLOCATE, "fallocate", fd)) {
        errno = cfg.err;
        return -1;
    }
    return fn(fd, mode, off, len);
}

int rename(const char *from, const char *to)
{
    REAL(rename_fn, fn, "rename");
    char a[PATH_MAX], b[PATH_MAX];
    if (inject(OP_RENAME, "rename", absolute(from, a, sizeof(a)),
               absolute(to, b, sizeof(b)))) {
        errno = cfg.err;
        return -1;
    }
    return fn(from, to);
}

static bool writes(int flags)
{
    return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0;
}

static bool inject_open(const char *path, int flags)
{
    load_config();
    if (!(cfg.ops & OP_OPEN) || !writes(flags))
        return false;
    char buf[PATH_MAX];
    return inject(OP_OPEN, "open", absolute(path, buf, sizeof(buf)), NULL);
}

static mode_t open_mode(int flags, va_list ap)
{
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
    REAL(open_fn, fn, "open");
    va_list ap;
    va_start(ap, flags);
    mode_t mode = open_mode(flags, ap);
    va_end(ap);
    if (inject_open(path, flags)) {
        errno = cfg.err;
        return -1;
    }
    return fn(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    REAL(open_fn, fn, "open64");
    va_list ap;
    va_start(ap, flags);
    mode_t mode = open_mode(flags, ap);
    va_end(ap);
    if (inject_open(path, flags)) {
        errno = cfg.err;
        return -1;
    }
    return fn(path, flags, mode);
}

int openat(int dir, const char *path, int flags, ...)
{
    REAL(openat_fn, fn, "openat");
    va_list ap;
    va_start(ap, flags);
    mode_t mode = open_mode(flags, ap);
    va_end(ap);
    /* Only paths that name a file by themselves; others pass. */
    if ((dir == AT_FDCWD || path[0] == '/') &&
        inject_open(path, flags)) {
        errno = cfg.err;
        return -1;
    }
    return fn(dir, path, flags, mode);
}

int link(const char *from, const char *to)
{
    REAL(link_fn, fn, "link");
    load_config();
    char a[PATH_MAX], b[PATH_MAX];
    if ((cfg.ops & OP_LINK) &&
        inject(OP_LINK, "link", absolute(from, a, sizeof(a)),
               absolute(to, b, sizeof(b)))) {
        errno = cfg.err;
        return -1;
    }
    return fn(from, to);
}

/* stat and opendir fail only on request (the default op set leaves them
 * out): every other call goes straight to libc. */
static bool inject_path(int op, const char *opname, const char *path)
{
    load_config();
    if (!(cfg.ops & op))
        return false;
    char buf[PATH_MAX];
    return inject(op, opname, absolute(path, buf, sizeof(buf)), NULL);
}

int stat(const char *path, struct stat *st)
{
    REAL(stat_fn, fn, "stat");
    if (inject_path(OP_STAT, "stat", path)) {
        errno = cfg.err;
        return -1;
    }
    return fn(path, st);
}

DIR *opendir(const char *path)
{
    REAL(opendir_fn, fn, "opendir");
    if (inject_path(OP_OPENDIR, "opendir", path)) {
        errno = cfg.err;
        return NULL;
    }
    return fn(path);
}
