/*
 * Listing objects through DuckDB (see objects.h): glob() for the names
 * (the store's listing requests only), read_blob over named objects for
 * their sizes and times (a HEAD request each; no object is read), and
 * read_blob's content for the few small objects weir__objects_copy
 * brings into a local folder.
 */
#include "store/objects.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/fs.h"
#include "util/vec.h"

/* Append the rows (name[, size, epoch_us]) to out, folder markers left
 * out. */
static int collect(weir_rows *rows, weir_file_list *out, weir_error *err)
{
    for (size_t i = 0; i < rows->n_rows; i++) {
        const char *name = weir__rows_get(rows, i, 0);
        const char *size = rows->n_cols > 1 ? weir__rows_get(rows, i, 1) : NULL;
        const char *mtime = rows->n_cols > 2 ? weir__rows_get(rows, i, 2) : NULL;
        size_t n = name ? strlen(name) : 0;
        if (!n || name[n - 1] == '/') /* a folder's marker object */
            continue;
        weir_file_info fi = { strdup(name), size ? strtoull(size, NULL, 10) : 0,
                              mtime ? strtoll(mtime, NULL, 10) : 0 };
        if (!fi.path || weir__vec_grow((void **)&out->items, &out->cap,
                                       sizeof(*out->items), out->len + 1)) {
            free(fi.path);
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        }
        out->items[out->len++] = fi;
    }
    return 0;
}

static int run(weir_conn *c, weir_buf *sql, weir_file_list *out,
               weir_error *err)
{
    weir_rows *rows = NULL;
    int rc = weir__buf_failed(sql)
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                 : weir__conn_query(c, weir__buf_cstr(sql), &rows, err);
    weir__buf_free(sql);
    if (!rc)
        rc = collect(rows, out, err);
    weir__rows_free(rows);
    return rc;
}

int weir__objects_names(weir_conn *c, const char *pattern,
                        weir_file_list *out, weir_error *err)
{
    /* One object is looked up in its parent's listing: a lookup of a
     * missing object fails, and a failed statement would abort the
     * caller's transaction. */
    bool literal = !strpbrk(pattern, "*?[");
    const char *slash = strrchr(pattern, '/');
    weir_buf sql = WEIR_BUF_INIT;
    weir__buf_puts(&sql, "SELECT file FROM glob(");
    if (literal && slash) {
        weir_buf parent = WEIR_BUF_INIT;
        weir__buf_put(&parent, pattern, (size_t)(slash - pattern) + 1);
        weir__buf_putc(&parent, '*');
        weir__buf_put_sql_string(&sql, weir__buf_cstr(&parent));
        weir__buf_free(&parent);
        weir__buf_puts(&sql, ") WHERE file = ");
        weir__buf_put_sql_string(&sql, pattern);
    } else {
        weir__buf_put_sql_string(&sql, pattern);
        weir__buf_puts(&sql, ")");
    }
    weir__buf_puts(&sql, " ORDER BY file");
    return run(c, &sql, out, err);
}

int weir__objects_stat(weir_conn *c, const char *const *urls, size_t n,
                       weir_file_list *out, weir_error *err)
{
    if (!n)
        return 0;
    weir_buf sql = WEIR_BUF_INIT;
    weir__buf_puts(&sql, "SELECT filename, size, epoch_us(last_modified) "
                         "FROM read_blob([");
    for (size_t i = 0; i < n; i++) {
        /* A name with `*`, `?` or `[` is that object, not a pattern. */
        weir_buf lit = WEIR_BUF_INIT;
        weir__fs_put_glob_literal(&lit, urls[i]);
        if (i)
            weir__buf_puts(&sql, ", ");
        weir__buf_put_sql_string(&sql, weir__buf_cstr(&lit));
        if (weir__buf_failed(&lit))
            sql.failed = true;
        weir__buf_free(&lit);
    }
    weir__buf_puts(&sql, "]) ORDER BY filename");
    return run(c, &sql, out, err);
}

int weir__objects_list(weir_conn *c, const char *pattern, weir_file_list *out,
                       weir_error *err)
{
    weir_file_list names = { NULL, 0, 0 };
    int rc = weir__objects_names(c, pattern, &names, err);
    const char **urls = rc ? NULL : calloc(names.len + 1, sizeof(char *));
    if (!rc && !urls)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; !rc && i < names.len; i++)
        urls[i] = names.items[i].path;
    if (!rc)
        rc = weir__objects_stat(c, urls, names.len, out, err);
    free(urls);
    weir__fs_list_free(&names);
    return rc;
}

/* Write the objects named in urls (all under url + '/') into dir, each at
 * its path below url. */
static int copy_objects(weir_conn *c, const char *url,
                        const weir_file_list *objs, const char *dir,
                        weir_error *err)
{
    if (!objs->len)
        return 0;
    weir_buf sql = WEIR_BUF_INIT;
    weir__buf_puts(&sql, "SELECT filename, content FROM read_blob([");
    for (size_t i = 0; i < objs->len; i++) {
        weir_buf lit = WEIR_BUF_INIT;
        weir__fs_put_glob_literal(&lit, objs->items[i].path);
        weir__buf_puts(&sql, i ? ", " : "");
        weir__buf_put_sql_string(&sql, weir__buf_cstr(&lit));
        if (weir__buf_failed(&lit))
            sql.failed = true;
        weir__buf_free(&lit);
    }
    weir__buf_puts(&sql, "])");
    weir_db_cursor *k = NULL;
    int rc = weir__buf_failed(&sql)
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                 : weir__conn_cursor(c, weir__buf_cstr(&sql), &k, err);
    weir__buf_free(&sql);
    size_t n = 0, prefix = strlen(url) + 1;
    while (!rc && !(rc = weir__cursor_next(k, &n, err)) && n) {
        for (size_t r = 0; !rc && r < n; r++) {
            const void *name, *data;
            size_t name_len, len;
            if (!weir__cursor_bytes(k, 0, r, &name, &name_len) ||
                name_len <= prefix)
                continue;
            if (!weir__cursor_bytes(k, 1, r, &data, &len)) {
                data = "";
                len = 0;
            }
            weir_buf path = WEIR_BUF_INIT;
            weir__buf_printf(&path, "%s/%.*s", dir, (int)(name_len - prefix),
                             (const char *)name + prefix);
            char *parent = weir__buf_failed(&path)
                               ? NULL
                               : weir__path_dirname(weir__buf_cstr(&path));
            rc = parent ? weir__fs_mkdirs(parent, err)
                        : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            if (!rc)
                rc = weir__fs_write_atomic(weir__buf_cstr(&path), data, len, err);
            free(parent);
            weir__buf_free(&path);
        }
    }
    weir__cursor_free(k);
    return rc;
}

int weir__objects_copy(weir_conn *c, const char *url, const char *const *rel,
                       const char *dest, weir_error *err)
{
    weir_buf part = WEIR_BUF_INIT;
    weir__buf_printf(&part, "%s.part", dest);
    if (weir__buf_failed(&part))
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    const char *tmp = weir__buf_cstr(&part);
    int rc = weir__fs_remove_tree(tmp, err);
    if (!rc)
        rc = weir__fs_mkdirs(tmp, err);
    for (size_t i = 0; !rc && rel[i]; i++) {
        weir_file_list objs = { NULL, 0, 0 };
        weir_buf pattern = WEIR_BUF_INIT;
        weir__buf_printf(&pattern, "%s/%s", url, rel[i]);
        rc = weir__buf_failed(&pattern)
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                 : weir__objects_names(c, weir__buf_cstr(&pattern), &objs, err);
        if (!rc)
            rc = copy_objects(c, url, &objs, tmp, err);
        weir__buf_free(&pattern);
        weir__fs_list_free(&objs);
    }
    if (!rc)
        rc = weir__fs_remove_tree(dest, err);
    if (!rc && rename(tmp, dest) != 0)
        rc = WEIR_ERR(err, WEIR_EIO, NULL, "cannot rename %s to %s: %s", tmp,
                      dest, strerror(errno));
    char *parent = rc ? NULL : weir__path_dirname(dest);
    if (!rc)
        rc = parent ? weir__fs_sync_dir(parent, err)
                    : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    free(parent);
    weir__buf_free(&part);
    return rc;
}
