/*
 * Helpers the sink formats share: option checks, the deterministic names of
 * a batch's files, durable moves (rename, or copy + fsync + rename across
 * file systems), markers, compact JSON output and percent coding of paths.
 */
#define _GNU_SOURCE
#include "sinks/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/fs.h"
#include "util/str.h"

/* ---- options ---------------------------------------------------------------- */

int weir__sink_check_keys(const weir_kv *options, size_t n,
                          const char *format, const char *const *known,
                          weir_error *err)
{
    for (size_t i = 0; i < n; i++) {
        bool ok = false;
        for (size_t k = 0; known[k] && !ok; k++)
            ok = weir__str_ieq(options[i].key, known[k]);
        if (!ok) {
            weir_buf list = WEIR_BUF_INIT;
            for (size_t k = 0; known[k]; k++)
                weir__buf_printf(&list, "%s%s", k ? ", " : "", known[k]);
            int rc = WEIR_ERR(err, WEIR_EINVAL, "UNKNOWN_SINK_OPTION",
                              "option '%s' is not known to the %s sink "
                              "(known: %s)",
                              options[i].key, format, weir__buf_cstr(&list));
            weir__buf_free(&list);
            return rc;
        }
    }
    const char *path = weir__kv_get(options, n, "path");
    if (!path || !*path)
        return WEIR_ERR(err, WEIR_EINVAL, "SINK_PATH_REQUIRED",
                        "the %s sink needs a 'path' option: OPTIONS (path "
                        "'<folder>')",
                        format);
    return 0;
}

int weir__sink_check_choice(const weir_kv *options, size_t n,
                            const char *key, const char *const *values,
                            weir_error *err)
{
    const char *v = weir__kv_get(options, n, key);
    if (!v)
        return 0;
    for (size_t k = 0; values[k]; k++)
        if (weir__str_ieq(v, values[k]))
            return 0;
    weir_buf list = WEIR_BUF_INIT;
    for (size_t k = 0; values[k]; k++)
        weir__buf_printf(&list, "%s%s", k ? ", " : "", values[k]);
    int rc = WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                      "option %s = '%s' is not one of: %s", key, v,
                      weir__buf_cstr(&list));
    weir__buf_free(&list);
    return rc;
}

int weir__sink_option_bool(const weir_kv *options, size_t n,
                           const char *key, bool *out, weir_error *err)
{
    const char *v = weir__kv_get(options, n, key);
    if (v && !weir__str_parse_bool(v, out))
        return WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                        "option %s = '%s' must be 'true' or 'false'", key, v);
    return 0;
}

/* Append one trimmed, unquoted column name. */
static int add_col(const char ***cols, size_t *n, size_t *cap,
                   weir_arena *arena, const char *s, size_t len)
{
    while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (len >= 2 && s[0] == '`' && s[len - 1] == '`') {
        s++;
        len -= 2;
    }
    if (!len)
        return WEIR_EINVAL;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        const char **grown = weir__arena_array(arena, nc, sizeof(*grown));
        if (!grown)
            return WEIR_ENOMEM;
        if (*n)
            memcpy(grown, *cols, *n * sizeof(*grown));
        *cols = grown;
        *cap = nc;
    }
    (*cols)[(*n)++] = weir__arena_strndup(arena, s, len);
    return weir__arena_failed(arena) ? WEIR_ENOMEM : 0;
}

int weir__sink_partition_cols(const char ***out, size_t *n_out,
                              weir_arena *arena, const weir_kv *options,
                              size_t n, weir_error *err)
{
    *out = NULL;
    *n_out = 0;
    const char *v = weir__kv_get(options, n, "partitionBy");
    if (!v)
        return 0;
    size_t cap = 0;
    int rc = 0;
    while (*v == ' ')
        v++;
    if (*v == '[') {
        weir_json *j = NULL;
        rc = weir__json_parse(&j, arena, v, strlen(v), err);
        for (size_t i = 0; !rc && j && i < j->len; i++)
            rc = j->type != WEIR_JSON_ARRAY ||
                         j->items[i]->type != WEIR_JSON_STRING
                     ? WEIR_EINVAL
                     : add_col(out, n_out, &cap, arena, j->items[i]->text,
                               j->items[i]->text_len);
        if (!rc && (!j || j->type != WEIR_JSON_ARRAY))
            rc = WEIR_EINVAL;
    } else {
        for (const char *p = v;;) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            rc = add_col(out, n_out, &cap, arena, p, len);
            if (rc || !comma)
                break;
            p = comma + 1;
        }
    }
    if (rc == WEIR_ENOMEM)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc || !*n_out)
        return WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                        "option partitionBy = '%s' must list column names: "
                        "'a, b' or '[\"a\", \"b\"]'",
                        v);
    for (size_t i = 0; i < *n_out; i++)
        for (size_t k = 0; k < i; k++)
            if (weir__str_ieq((*out)[i], (*out)[k]))
                return WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                                "option partitionBy = '%s' names column %s "
                                "twice",
                                v, (*out)[i]);
    return 0;
}

int weir__sink_check_columns(const weir_kv *options, size_t n,
                             const weir_column *columns, size_t n_columns,
                             weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    const char **cols = NULL;
    size_t n_cols = 0;
    int rc = weir__sink_partition_cols(&cols, &n_cols, &a, options, n, err);
    for (size_t i = 0; !rc && i < n_cols; i++) {
        bool found = false;
        for (size_t k = 0; k < n_columns && !found; k++)
            found = weir__str_ieq(cols[i], columns[k].name);
        if (!found)
            rc = WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                          "option partitionBy names column %s, which the "
                          "sink's flows do not write",
                          cols[i]);
    }
    if (!rc && n_cols && n_cols >= n_columns)
        rc = WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                      "option partitionBy = '%s' names every column: the "
                      "files would hold no columns",
                      weir__kv_get(options, n, "partitionBy"));
    weir__arena_free(&a);
    return rc;
}

const char *weir__sink_compression(const weir_kv *options, size_t n)
{
    const char *v = weir__kv_get(options, n, "compression");
    if (!v)
        return NULL;
    if (weir__str_ieq(v, "none") || weir__str_ieq(v, "uncompressed"))
        return "uncompressed";
    return v;
}

/* ---- names and paths ------------------------------------------------------- */

int weir__sink_target(char **out, const weir_sink_batch *b, weir_error *err)
{
    const char *path = weir__kv_get(b->options, b->n_options, "path");
    if (!path || !*path)
        return WEIR_ERR(err, WEIR_EINVAL, "SINK_PATH_REQUIRED",
                        "sink %s has no 'path' option", b->sink);
    if (!b->redirect_root) {
        *out = weir__path_absolute(path, b->root_dir);
        return *out ? 0 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    /* Redirected: every part of the path, an absolute one's and a URI's
     * too, below the folder; `..` stays a name, inside it. */
    if (weir__str_istarts(path, "file:"))
        path += 5;
    weir_buf rel = WEIR_BUF_INIT;
    for (const char *s = path; *s;) {
        size_t n = strcspn(s, "/");
        if (n && !(n == 1 && s[0] == '.')) {
            if (rel.len)
                weir__buf_putc(&rel, '/');
            if (n == 2 && s[0] == '.' && s[1] == '.')
                weir__buf_puts(&rel, "_up_");
            else
                weir__buf_put(&rel, s, n);
        }
        s += n;
        s += *s == '/';
    }
    *out = rel.failed ? NULL
                      : weir__path_join(b->redirect_root,
                                        rel.len ? weir__buf_cstr(&rel) : "_root_");
    weir__buf_free(&rel);
    return *out ? 0 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
}

void weir__sink_prefix(char *out, size_t size, const weir_sink_batch *b)
{
    /* 64-bit FNV-1a of the staging folder (storage, sink and flow) and of
     * the state id (which storage instance). */
    uint64_t h = 14695981039346656037ULL;
    for (const char *c = b->stage_dir; *c; c++) {
        h ^= (unsigned char)*c;
        h *= 1099511628211ULL;
    }
    for (const char *c = b->state_id ? b->state_id : ""; *c; c++) {
        h ^= (unsigned char)*c;
        h *= 1099511628211ULL;
    }
    snprintf(out, size, "part-%016llx-g%lld-b%lld", (unsigned long long)h,
             (long long)b->generation, (long long)b->batch_id);
}

void weir__sink_stage_path(char *out, size_t size, const weir_sink_batch *b,
                           const char *suffix)
{
    snprintf(out, size, "%s/g%lld-b%lld%s", b->stage_dir,
             (long long)b->generation, (long long)b->batch_id, suffix);
}

/* ---- durable files --------------------------------------------------------- */

int weir__sink_sync_file(const char *path, weir_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot open %s: %s", path,
                        strerror(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc < 0)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot sync %s: %s", path,
                        strerror(e));
    return 0;
}

/* Copy src into a new file tmp (created exclusively) and fsync it. */
static int copy_file(const char *src, const char *tmp, weir_error *err)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot open %s: %s", src,
                        strerror(errno));
    int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot create %s: %s", tmp,
                        strerror(e));
    }
    char chunk[1 << 16];
    int rc = 0;
    for (;;) {
        ssize_t got = read(in, chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got < 0)
                rc = WEIR_ERR(err, WEIR_EIO, NULL, "cannot read %s: %s", src,
                              strerror(errno));
            break;
        }
        for (ssize_t off = 0; !rc && off < got;) {
            ssize_t put = write(out, chunk + off, (size_t)(got - off));
            if (put < 0 && errno == EINTR)
                continue;
            if (put < 0)
                rc = WEIR_ERR(err, WEIR_EIO, NULL, "cannot write %s: %s", tmp,
                              strerror(errno));
            else
                off += put;
        }
        if (rc)
            break;
    }
    if (!rc && fsync(out) < 0)
        rc = WEIR_ERR(err, WEIR_EIO, NULL, "cannot sync %s: %s", tmp,
                      strerror(errno));
    close(in);
    close(out);
    if (rc)
        unlink(tmp);
    return rc;
}

/* *same is true when files a and b hold the same bytes. */
static int same_contents(bool *same, const char *a, const char *b,
                         weir_error *err)
{
    *same = false;
    int fa = open(a, O_RDONLY | O_CLOEXEC);
    int fb = fa < 0 ? -1 : open(b, O_RDONLY | O_CLOEXEC);
    if (fa < 0 || fb < 0) {
        int e = errno;
        if (fa >= 0)
            close(fa);
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot open %s: %s",
                        fa < 0 ? a : b, strerror(e));
    }
    static const size_t CHUNK = 1 << 16;
    char *x = malloc(2 * CHUNK);
    int rc = x ? 0 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (bool done = false; !rc && !done;) {
        size_t got[2] = { 0, 0 };
        for (int k = 0; !rc && k < 2; k++) {
            int fd = k ? fb : fa;
            while (got[k] < CHUNK) {
                ssize_t n = read(fd, x + k * CHUNK + got[k], CHUNK - got[k]);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n < 0)
                    rc = WEIR_ERR(err, WEIR_EIO, NULL, "cannot read %s: %s",
                                  k ? b : a, strerror(errno));
                if (n <= 0)
                    break;
                got[k] += (size_t)n;
            }
        }
        if (!rc && (got[0] != got[1] || memcmp(x, x + CHUNK, got[0]) != 0))
            break; /* different */
        done = got[0] < CHUNK;
        if (!rc && done)
            *same = true;
    }
    free(x);
    close(fa);
    close(fb);
    return rc;
}

int weir__sink_move(const char *src, const char *dst, weir_error *err)
{
    struct stat ss, ds;
    bool have_src = stat(src, &ss) == 0;
    bool have_dst = stat(dst, &ds) == 0;
    if (have_dst) {
        if (!have_src)
            return 0; /* moved by an earlier attempt */
        /* A copy that was not yet removed has the same bytes; a file of the
         * same size is not evidence enough (another batch of equal size). */
        bool same = false;
        int rc = ss.st_size == ds.st_size ? same_contents(&same, src, dst, err)
                                          : 0;
        if (rc)
            return rc;
        if (!same)
            return WEIR_ERR(err, WEIR_EEXISTS, "SINK_FILE_CONFLICT",
                            "cannot publish %s: %s already exists with "
                            "other contents",
                            src, dst);
        return weir__sink_unlink(src, err); /* copied, not yet removed */
    }
    if (!have_src)
        return WEIR_ERR(err, WEIR_ECORRUPT, "SINK_STAGED_DATA_LOST",
                        "staged file %s is missing and was never published "
                        "to %s",
                        src, dst);
    char *dir = weir__path_dirname(dst);
    if (!dir)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int rc = weir__fs_mkdirs(dir, err);
    if (!rc && rename(src, dst) == 0) {
        free(dir);
        return 0;
    }
    if (!rc && errno != EXDEV)
        rc = WEIR_ERR(err, WEIR_EIO, NULL, "cannot move %s to %s: %s", src,
                      dst, strerror(errno));
    if (!rc) {
        /* Another file system: copy under a hidden name, then rename. */
        char id[37], tmp[4096];
        weir__uuid(id);
        snprintf(tmp, sizeof(tmp), "%s/.%s.%s.tmp", dir,
                 weir__path_basename(dst), id);
        rc = copy_file(src, tmp, err);
        if (!rc && rename(tmp, dst) < 0) {
            rc = WEIR_ERR(err, WEIR_EIO, NULL, "cannot rename %s to %s: %s",
                          tmp, dst, strerror(errno));
            unlink(tmp);
        }
        if (!rc)
            rc = weir__fs_sync_dir(dir, err);
        if (!rc)
            rc = weir__sink_unlink(src, err);
    }
    free(dir);
    return rc;
}

int weir__sink_sync_up(const char *dir, const char *top, weir_error *err)
{
    char *d = strdup(dir);
    int rc = d ? 0 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    size_t top_len = strlen(top);
    while (!rc) {
        rc = weir__fs_sync_dir(d, err);
        if (rc || strlen(d) <= top_len)
            break;
        char *up = weir__path_dirname(d);
        free(d);
        d = up;
        if (!d)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    free(d);
    return rc;
}

int weir__sink_unlink(const char *path, weir_error *err)
{
    if (unlink(path) < 0 && errno != ENOENT)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot remove %s: %s", path,
                        strerror(errno));
    return 0;
}

/* ---- text ------------------------------------------------------------------ */

void weir__sink_json_write(weir_buf *out, const weir_json *j)
{
    if (!j) {
        weir__buf_puts(out, "null");
        return;
    }
    switch (j->type) {
    case WEIR_JSON_NULL: weir__buf_puts(out, "null"); break;
    case WEIR_JSON_BOOL: weir__buf_puts(out, j->boolean ? "true" : "false"); break;
    case WEIR_JSON_NUMBER: weir__buf_put(out, j->text, j->text_len); break;
    case WEIR_JSON_STRING:
        weir__buf_put_json_stringn(out, j->text, j->text_len);
        break;
    case WEIR_JSON_ARRAY:
    case WEIR_JSON_OBJECT: {
        bool obj = j->type == WEIR_JSON_OBJECT;
        weir__buf_putc(out, obj ? '{' : '[');
        for (size_t i = 0; i < j->len; i++) {
            if (i)
                weir__buf_putc(out, ',');
            if (obj) {
                weir__buf_put_json_string(out, j->keys[i]);
                weir__buf_putc(out, ':');
            }
            weir__sink_json_write(out, j->items[i]);
        }
        weir__buf_putc(out, obj ? '}' : ']');
        break;
    }
    }
}

void weir__sink_put_uri_path(weir_buf *out, const char *path)
{
    for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
            (*c >= '0' && *c <= '9') || strchr("-_.~/=", *c))
            weir__buf_putc(out, (char)*c);
        else
            weir__buf_put_percent(out, *c);
    }
}

bool weir__sink_percent_decode(weir_buf *out, const char *s, size_t len)
{
    return weir__buf_put_percent_decoded(out, s, len, true);
}
