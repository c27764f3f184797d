/*
 * File-system helpers (see fs.h).
 */
#define _GNU_SOURCE
#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "str.h"
#include "vec.h"

int weir__fs_read(char **out, size_t *len, const char *path, weir_error *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return WEIR_ERR(err, errno == ENOENT ? WEIR_ENOTFOUND : WEIR_EIO, NULL,
                        "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
        int e = S_ISDIR(st.st_mode) ? EISDIR : errno;
        close(fd);
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot read %s: %s", path,
                        strerror(e));
    }
    weir_buf b = WEIR_BUF_INIT;
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            weir__buf_free(&b);
            return WEIR_ERR(err, WEIR_EIO, NULL, "cannot read %s: %s", path,
                            strerror(e));
        }
        if (n == 0)
            break;
        weir__buf_put(&b, chunk, (size_t)n);
    }
    close(fd);
    if (b.failed) {
        weir__buf_free(&b);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory reading %s",
                        path);
    }
    if (len)
        *len = b.len;
    *out = weir__buf_detach(&b);
    return *out ? 0 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
}

int weir__fs_sync_dir(const char *path, weir_error *err)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot open folder %s: %s",
                        path, strerror(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc < 0 && e != EINVAL)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot sync folder %s: %s",
                        path, strerror(e));
    return 0;
}

int weir__fs_write_atomic(const char *path, const void *data, size_t len,
                          weir_error *err)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", path,
                         (long)getpid()) >= sizeof(tmp))
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "path too long: %s", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot create %s: %s", tmp,
                        strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            return WEIR_ERR(err, WEIR_EIO, NULL, "cannot write %s: %s", tmp,
                            strerror(e));
        }
        p += n;
        left -= (size_t)n;
    }
    if (fsync(fd) < 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot sync %s: %s", tmp,
                        strerror(e));
    }
    close(fd);
    if (rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot rename %s: %s", tmp,
                        strerror(e));
    }
    char *dir = weir__path_dirname(path);
    if (!dir)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int rc = weir__fs_sync_dir(dir, err);
    free(dir);
    return rc;
}

int weir__fs_mkdirs(const char *path, weir_error *err)
{
    char buf[4096];
    if (weir__str_copy(buf, sizeof(buf), path) >= sizeof(buf))
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "path too long: %s", path);
    size_t n = strlen(buf);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char save = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
            return WEIR_ERR(err, WEIR_EIO, NULL, "cannot create folder %s: %s",
                            buf, strerror(errno));
        buf[i] = save;
    }
    if (!weir__fs_is_dir(path))
        return WEIR_ERR(err, WEIR_EIO, NULL, "%s exists and is not a folder",
                        path);
    return 0;
}

bool weir__fs_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

bool weir__fs_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool weir__fs_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int weir__fs_remove_tree(const char *path, weir_error *err)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0
                               : WEIR_ERR(err, WEIR_EIO, NULL,
                                          "cannot remove %s: %s", path,
                                          strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return WEIR_ERR(err, WEIR_EIO, NULL, "cannot open %s: %s", path,
                            strerror(errno));
        struct dirent *e;
        int rc = 0;
        while (!rc && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char *child = weir__path_join(path, e->d_name);
            rc = child ? weir__fs_remove_tree(child, err)
                       : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            free(child);
        }
        closedir(d);
        if (rc)
            return rc;
        if (rmdir(path) < 0)
            return WEIR_ERR(err, WEIR_EIO, NULL, "cannot remove %s: %s", path,
                            strerror(errno));
        return 0;
    }
    if (unlink(path) < 0)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot remove %s: %s", path,
                        strerror(errno));
    return 0;
}

static int64_t mtime_us(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000000 +
           (int64_t)st->st_mtim.tv_nsec / 1000;
}

int weir__fs_stat(weir_file_info *out, const char *path, weir_error *err)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return WEIR_ERR(err, errno == ENOENT ? WEIR_ENOTFOUND : WEIR_EIO, NULL,
                        "cannot stat %s: %s", path, strerror(errno));
    out->path = strdup(path);
    if (!out->path)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    out->size = (uint64_t)st.st_size;
    out->mtime_us = mtime_us(&st);
    return 0;
}

static int list_into(weir_file_list *out, const char *dir, bool recursive,
                     bool skip_hidden, weir_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return WEIR_ERR(err, errno == ENOENT ? WEIR_ENOTFOUND : WEIR_EIO, NULL,
                        "cannot list %s: %s", dir, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, ".."))
            continue;
        if (skip_hidden && (n[0] == '.' || n[0] == '_'))
            continue;
        char *child = weir__path_join(dir, n);
        if (!child) {
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            break;
        }
        struct stat st;
        if (stat(child, &st) < 0) {
            free(child); /* vanished or dangling link: not a file */
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (recursive)
                rc = list_into(out, child, recursive, skip_hidden, err);
            free(child);
        } else if (S_ISREG(st.st_mode)) {
            weir_file_info fi = { child, (uint64_t)st.st_size, mtime_us(&st) };
            if (weir__vec_grow((void **)&out->items, &out->cap,
                               sizeof(*out->items), out->len + 1)) {
                free(child);
                rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            } else {
                out->items[out->len++] = fi;
            }
        } else {
            free(child);
        }
    }
    closedir(d);
    return rc;
}

static int cmp_info(const void *a, const void *b)
{
    return strcmp(((const weir_file_info *)a)->path,
                  ((const weir_file_info *)b)->path);
}

int weir__fs_list(weir_file_list *out, const char *dir, bool recursive,
                  bool skip_hidden, weir_error *err)
{
    int rc = list_into(out, dir, recursive, skip_hidden, err);
    if (rc) {
        weir__fs_list_free(out);
        return rc;
    }
    if (out->len > 1)
        qsort(out->items, out->len, sizeof(*out->items), cmp_info);
    return 0;
}

void weir__fs_list_free(weir_file_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->len; i++)
        free(l->items[i].path);
    free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
}

char *weir__path_join(const char *a, const char *b)
{
    if (!a || !*a || weir__path_is_abs(b))
        return strdup(b);
    size_t na = strlen(a), nb = strlen(b);
    bool slash = a[na - 1] != '/';
    char *p = malloc(na + slash + nb + 1);
    if (!p)
        return NULL;
    memcpy(p, a, na);
    if (slash)
        p[na] = '/';
    memcpy(p + na + slash, b, nb + 1);
    return p;
}

char *weir__path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

const char *weir__path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

bool weir__path_is_abs(const char *path)
{
    return path[0] == '/';
}

char *weir__path_cwd(void)
{
    return getcwd(NULL, 0);
}

char *weir__path_absolute(const char *path, const char *base)
{
    char *joined;
    if (weir__path_is_abs(path)) {
        joined = strdup(path);
    } else {
        char *cwd = base ? NULL : weir__path_cwd();
        joined = weir__path_join(base ? base : cwd, path);
        free(cwd);
    }
    if (!joined)
        return NULL;
    /* Normalise: drop "." and empty parts, resolve "..". */
    size_t n = strlen(joined);
    char *out = malloc(n + 2);
    if (!out) {
        free(joined);
        return NULL;
    }
    size_t o = 0;
    const char *p = joined;
    while (*p) {
        while (*p == '/')
            p++;
        const char *s = p;
        while (*p && *p != '/')
            p++;
        size_t len = (size_t)(p - s);
        if (len == 0 || (len == 1 && s[0] == '.'))
            continue;
        if (len == 2 && s[0] == '.' && s[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
            continue;
        }
        out[o++] = '/';
        memcpy(out + o, s, len);
        o += len;
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = '\0';
    free(joined);
    return out;
}

int weir__fs_lock(int *fd_out, const char *path, char *holder_out,
                  size_t holder_size, weir_error *err)
{
    *fd_out = -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot open lock file %s: %s",
                        path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        if (holder_out && holder_size) {
            ssize_t n = pread(fd, holder_out, holder_size - 1, 0);
            holder_out[n > 0 ? n : 0] = '\0';
            char *nl = strchr(holder_out, '\n');
            if (nl)
                *nl = '\0';
        }
        close(fd);
        if (e == EWOULDBLOCK)
            return WEIR_EBUSY;
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot lock %s: %s", path,
                        strerror(e));
    }
    char pid[32];
    int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) < 0) {
        /* The pid is informational only. */
    }
    *fd_out = fd;
    return 0;
}

void weir__fs_unlock(int fd)
{
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
}

/* ---- names as path segments ------------------------------------------------ */

void weir__path_put_name(weir_buf *out, const char *name)
{
    static const char hex[] = "0123456789ABCDEF";
    bool dots = *name != '\0';
    for (const char *c = name; *c && dots; c++)
        dots = *c == '.';
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        bool escape = *c < 0x20 || *c == 0x7f || *c == '/' || *c == '\\' ||
                      *c == '%' || (dots && *c == '.');
        if (!escape) {
            weir__buf_putc(out, (char)*c);
            continue;
        }
        weir__buf_putc(out, '%');
        weir__buf_putc(out, hex[*c >> 4]);
        weir__buf_putc(out, hex[*c & 15]);
    }
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool weir__path_decode_name(weir_buf *out, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '%') {
            weir__buf_putc(out, s[i]);
            continue;
        }
        int hi = i + 2 < len ? hex_digit(s[i + 1]) : -1;
        int lo = i + 2 < len ? hex_digit(s[i + 2]) : -1;
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
            return false;
        weir__buf_putc(out, (char)(hi * 16 + lo));
        i += 2;
    }
    return true;
}
