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
#include <time.h>
#include <unistd.h>

#include "str.h"
#include "url.h"
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

void weir__fs_remove_atomic_temps(const char *dir)
{
    weir_file_list l = { NULL, 0, 0 };
    weir_error ignore;
    if (weir__fs_list(&l, dir, false, false, &ignore))
        return;
    for (size_t i = 0; i < l.len; i++) {
        const char *slash = strrchr(l.items[i].path, '/');
        if (strstr(slash ? slash : l.items[i].path, ".tmp-"))
            unlink(l.items[i].path);
    }
    weir__fs_list_free(&l);
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

/* A folder walk visits each real folder once and keeps each real file once
 * (by device and inode), so symbolic links that loop back into the tree
 * (`self -> .`, `up -> ..`) add nothing. Real folders are walked before the
 * folders reached through links, and a file's real path wins over a link
 * to it, so adding a link never renames a file already listed. */
#define WALK_MAX_DEPTH 128
#define WALK_MAX_ENTRIES 5000000

typedef struct walk_file {
    char *path;
    uint64_t size;
    int64_t mtime_us;
    dev_t dev;
    ino_t ino;
    bool via_link; /* reached through a symbolic link */
} walk_file;

typedef struct walk_dir {
    char *path;
    int depth;
} walk_dir;

typedef struct walk_id {
    dev_t dev;
    ino_t ino;
} walk_id;

typedef struct walk {
    const char *root;
    bool recursive, skip_hidden;
    WEIR_VEC(walk_file) files;
    WEIR_VEC(walk_dir) linked; /* folders behind links, walked last */
    walk_id *seen; /* open addressing; dev 0 and ino 0 = empty */
    size_t seen_cap, seen_len;
    size_t entries;
    weir_error *err;
} walk;

static size_t id_hash(dev_t dev, ino_t ino)
{
    uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ULL ^ (uint64_t)dev;
    return (size_t)(h ^ (h >> 29));
}

/* Mark a folder visited; false when it already was. -1 on OOM. */
static int visit(walk *w, dev_t dev, ino_t ino)
{
    if ((w->seen_len + 1) * 2 > w->seen_cap) {
        size_t cap = w->seen_cap ? w->seen_cap * 2 : 64;
        walk_id *s = calloc(cap, sizeof(*s));
        if (!s)
            return -1;
        for (size_t i = 0; i < w->seen_cap; i++) {
            if (!w->seen[i].ino && !w->seen[i].dev)
                continue;
            size_t k = id_hash(w->seen[i].dev, w->seen[i].ino) & (cap - 1);
            while (s[k].ino || s[k].dev)
                k = (k + 1) & (cap - 1);
            s[k] = w->seen[i];
        }
        free(w->seen);
        w->seen = s;
        w->seen_cap = cap;
    }
    size_t k = id_hash(dev, ino) & (w->seen_cap - 1);
    while (w->seen[k].ino || w->seen[k].dev) {
        if (w->seen[k].dev == dev && w->seen[k].ino == ino)
            return 0;
        k = (k + 1) & (w->seen_cap - 1);
    }
    w->seen[k].dev = dev;
    w->seen[k].ino = ino;
    w->seen_len++;
    return 1;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entry names of a folder, sorted (so the walk is deterministic). A
 * subfolder (depth > 0) deleted since its parent was read has none: not
 * an error, like a file deleted while listing. */
static int dir_names(char ***out, size_t *n, const char *dir, int depth,
                     walk *w)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d && errno == ENOENT && depth > 0)
        return 0;
    if (!d)
        return WEIR_ERR(w->err, errno == ENOENT ? WEIR_ENOTFOUND : WEIR_EIO,
                        NULL, "cannot list %s: %s", dir, strerror(errno));
    WEIR_VEC(char *) names = WEIR_VEC_INIT;
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        const char *nm = e->d_name;
        if (!strcmp(nm, ".") || !strcmp(nm, ".."))
            continue;
        if (w->skip_hidden && (nm[0] == '.' || nm[0] == '_'))
            continue;
        if (++w->entries > WALK_MAX_ENTRIES) {
            rc = WEIR_ERR(w->err, WEIR_ERROR, "FILE_LISTING_TOO_LARGE",
                          "listing %s: more than %d entries under it; narrow "
                          "the path or pathGlobFilter",
                          w->root, WALK_MAX_ENTRIES);
            break;
        }
        char *copy = strdup(nm);
        if (!copy || WEIR_VEC_PUSH(&names, copy)) {
            free(copy);
            rc = WEIR_ERR(w->err, WEIR_ENOMEM, NULL, "out of memory");
        }
    }
    closedir(d);
    if (rc) {
        for (size_t i = 0; i < names.len; i++)
            free(names.items[i]);
        WEIR_VEC_FREE(&names);
        return rc;
    }
    if (names.len > 1)
        qsort(names.items, names.len, sizeof(char *), cmp_name);
    *out = names.items;
    *n = names.len;
    return 0;
}

static int walk_dir_at(walk *w, const char *dir, int depth, bool via_link)
{
    if (depth > WALK_MAX_DEPTH)
        return WEIR_ERR(w->err, WEIR_ERROR, "FILE_LISTING_TOO_DEEP",
                        "listing %s: folders nest more than %d levels deep "
                        "at %s",
                        w->root, WALK_MAX_DEPTH, dir);
    char **names;
    size_t n;
    int rc = dir_names(&names, &n, dir, depth, w);
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++) {
        char *child = rc ? NULL : weir__path_join(dir, names[i]);
        free(names[i]);
        if (rc)
            continue;
        if (!child) {
            rc = WEIR_ERR(w->err, WEIR_ENOMEM, NULL, "out of memory");
            continue;
        }
        struct stat lst, st;
        if (lstat(child, &lst) < 0 || stat(child, &st) < 0) {
            free(child); /* vanished or dangling link: not a file */
            continue;
        }
        bool link = S_ISLNK(lst.st_mode);
        if (S_ISDIR(st.st_mode) && w->recursive && link) {
            walk_dir wd = { child, depth + 1 };
            if (WEIR_VEC_PUSH(&w->linked, wd)) {
                free(child);
                rc = WEIR_ERR(w->err, WEIR_ENOMEM, NULL, "out of memory");
            }
        } else if (S_ISDIR(st.st_mode) && w->recursive) {
            int v = visit(w, st.st_dev, st.st_ino);
            if (v < 0)
                rc = WEIR_ERR(w->err, WEIR_ENOMEM, NULL, "out of memory");
            else if (v)
                rc = walk_dir_at(w, child, depth + 1, via_link);
            free(child);
        } else if (S_ISREG(st.st_mode)) {
            walk_file f = { child, (uint64_t)st.st_size, mtime_us(&st),
                            st.st_dev, st.st_ino, via_link || link };
            if (WEIR_VEC_PUSH(&w->files, f)) {
                free(child);
                rc = WEIR_ERR(w->err, WEIR_ENOMEM, NULL, "out of memory");
            }
        } else {
            free(child);
        }
    }
    free(names);
    return rc;
}

/* Real files first, then by path: the first of a device+inode pair wins. */
static int cmp_walk_file(const void *a, const void *b)
{
    const walk_file *x = a, *y = b;
    if (x->via_link != y->via_link)
        return x->via_link ? 1 : -1;
    return strcmp(x->path, y->path);
}

static int cmp_walk_id(const void *a, const void *b)
{
    const walk_file *x = *(walk_file *const *)a, *y = *(walk_file *const *)b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return x < y ? -1 : x > y; /* the earlier in cmp_walk_file order */
}

static int cmp_info(const void *a, const void *b)
{
    return strcmp(((const weir_file_info *)a)->path,
                  ((const weir_file_info *)b)->path);
}

static int walk_finish(weir_file_list *out, walk *w)
{
    size_t n = w->files.len;
    walk_file *f = w->files.items;
    if (n > 1)
        qsort(f, n, sizeof(*f), cmp_walk_file);
    walk_file **by_id = n ? malloc(n * sizeof(*by_id)) : NULL;
    if (n && !by_id)
        return WEIR_ERR(w->err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        by_id[i] = &f[i];
    if (n > 1)
        qsort(by_id, n, sizeof(*by_id), cmp_walk_id);
    for (size_t i = 1; i < n; i++)
        if (by_id[i]->dev == by_id[i - 1]->dev &&
            by_id[i]->ino == by_id[i - 1]->ino) {
            free(by_id[i]->path); /* another name of the same file */
            by_id[i]->path = NULL;
        }
    free(by_id);
    for (size_t i = 0; i < n; i++) {
        if (!f[i].path)
            continue;
        if (weir__vec_grow((void **)&out->items, &out->cap, sizeof(*out->items),
                           out->len + 1))
            return WEIR_ERR(w->err, WEIR_ENOMEM, NULL, "out of memory");
        weir_file_info fi = { f[i].path, f[i].size, f[i].mtime_us };
        out->items[out->len++] = fi;
        f[i].path = NULL;
    }
    if (out->len > 1)
        qsort(out->items, out->len, sizeof(*out->items), cmp_info);
    return 0;
}

int weir__fs_list(weir_file_list *out, const char *dir, bool recursive,
                  bool skip_hidden, weir_error *err)
{
    walk w;
    memset(&w, 0, sizeof(w));
    w.root = dir;
    w.recursive = recursive;
    w.skip_hidden = skip_hidden;
    w.err = err;
    struct stat st;
    int rc = 0;
    if (stat(dir, &st) == 0 && visit(&w, st.st_dev, st.st_ino) < 0)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc)
        rc = walk_dir_at(&w, dir, 0, false);
    /* Folders behind links, unless their real folder was walked. */
    for (size_t i = 0; !rc && i < w.linked.len; i++) {
        walk_dir wd = w.linked.items[i];
        int v = stat(wd.path, &st) == 0 ? visit(&w, st.st_dev, st.st_ino) : 0;
        if (v < 0)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        else if (v)
            rc = walk_dir_at(&w, wd.path, wd.depth, true);
    }
    if (!rc)
        rc = walk_finish(out, &w);
    for (size_t i = 0; i < w.linked.len; i++)
        free(w.linked.items[i].path);
    WEIR_VEC_FREE(&w.linked);
    for (size_t i = 0; i < w.files.len; i++)
        free(w.files.items[i].path);
    WEIR_VEC_FREE(&w.files);
    free(w.seen);
    if (rc)
        weir__fs_list_free(out);
    return rc;
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
    return path[0] == '/' || weir__url_is_remote(path);
}

char *weir__path_cwd(void)
{
    return getcwd(NULL, 0);
}

char *weir__path_absolute(const char *path, const char *base)
{
    if (weir__url_is_remote(path))
        return weir__url_normalize(path);
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

/* ---- throw-away folders ------------------------------------------------------ */

int weir__fs_temp_dir(char **out, int *lock_fd, const char *parent,
                      const char *prefix, weir_error *err)
{
    *out = NULL;
    *lock_fd = -1;
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_printf(&b, "%s/%sXXXXXX", parent, prefix);
    char *path = weir__buf_detach(&b);
    if (!path)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!mkdtemp(path)) {
        int e = errno;
        WEIR_ERR(err, WEIR_EIO, NULL, "cannot create a folder in %s: %s",
                 parent, strerror(e));
        free(path);
        return WEIR_EIO;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = 0;
    while (fd >= 0 && (rc = flock(fd, LOCK_EX)) < 0 && errno == EINTR)
        ;
    if (fd < 0 || rc < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        rmdir(path);
        WEIR_ERR(err, WEIR_EIO, NULL, "cannot lock %s: %s", path, strerror(e));
        free(path);
        return WEIR_EIO;
    }
    *out = path;
    *lock_fd = fd;
    return 0;
}

/* Is name prefix + six characters of mkdtemp's alphabet? */
static bool temp_name(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || strlen(name + n) != 6)
        return false;
    for (const char *c = name + n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9')))
            return false;
    return true;
}

void weir__fs_sweep_temp_dirs(const char *parent, const char *prefix,
                              unsigned min_age_s)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!temp_name(e->d_name, prefix))
            continue;
        int fd = openat(dirfd(d), e->d_name,
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st;
        /* Locked: its owner lives (or is starting: young, below). */
        bool stale = flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 &&
                     st.st_uid == geteuid() &&
                     now - st.st_mtime >= (time_t)min_age_s;
        char *path = stale ? weir__path_join(parent, e->d_name) : NULL;
        if (path)
            weir__fs_remove_tree(path, NULL); /* under the lock */
        free(path);
        close(fd);
    }
    closedir(d);
}

/* ---- names as path segments ------------------------------------------------ */

void weir__path_put_name(weir_buf *out, const char *name)
{
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
        weir__buf_put_percent(out, *c);
    }
}

bool weir__path_decode_name(weir_buf *out, const char *s, size_t len)
{
    return weir__buf_put_percent_decoded(out, s, len, false);
}

/* DuckDB expands `*`, `?` and `[` in every file name it is given; a
 * bracket expression matches those characters literally. */
void weir__fs_put_glob_literal(weir_buf *b, const char *path)
{
    for (const char *p = path; *p; p++) {
        if (*p == '*' || *p == '?' || *p == '[') {
            weir__buf_putc(b, '[');
            weir__buf_putc(b, *p);
            weir__buf_putc(b, ']');
        } else {
            weir__buf_putc(b, *p);
        }
    }
}

static bool valid_utf8(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s;
        size_t n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
                             : (c & 0xf8) == 0xf0 ? 3 : 4;
        if (n == 4 || (n == 1 && c < 0xc2) || (n == 3 && c > 0xf4))
            return false;
        unsigned cp = n ? c & (0x3f >> n) : c;
        for (size_t i = 1; i <= n; i++) {
            if ((s[i] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i] & 0x3f);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return false;
        s += n + 1;
    }
    return true;
}

const char *weir__fs_unreadable_name(const char *path)
{
    if (!valid_utf8((const unsigned char *)path))
        return "the name is not valid UTF-8";
    if (strchr(path, '\\') && strpbrk(path, "*?["))
        return "DuckDB cannot read a name with a backslash and one of * ? [";
    return NULL;
}

void weir__fs_put_escaped_name(weir_buf *b, const char *path)
{
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '\\')
            weir__buf_printf(b, "\\x%02x", *p);
        else
            weir__buf_putc(b, (char)*p);
    }
}
