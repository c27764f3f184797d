/*
 * Listing objects through DuckDB (see objects.h): glob() for the names
 * (the store's listing requests only), read_blob over named objects for
 * their sizes and times (a HEAD request each; no object is read).
 */
#include "store/objects.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
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
