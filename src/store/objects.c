/*
 * Listing objects through DuckDB (see objects.h): read_blob over the
 * pattern, with only the name, size and time asked for, so no object is
 * read.
 */
#include "store/objects.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/vec.h"

int weir__objects_list(weir_conn *c, const char *pattern, weir_file_list *out,
                       weir_error *err)
{
    /* One object is looked up in its parent's listing: a read_blob of a
     * missing object fails, and a failed statement would abort the
     * caller's transaction. */
    bool literal = !strpbrk(pattern, "*?[");
    const char *slash = strrchr(pattern, '/');
    weir_buf sql = WEIR_BUF_INIT;
    weir__buf_puts(&sql, "SELECT filename, size, epoch_us(last_modified) "
                         "FROM read_blob(");
    if (literal && slash) {
        weir_buf parent = WEIR_BUF_INIT;
        weir__buf_put(&parent, pattern, (size_t)(slash - pattern) + 1);
        weir__buf_putc(&parent, '*');
        weir__buf_put_sql_string(&sql, weir__buf_cstr(&parent));
        weir__buf_free(&parent);
        weir__buf_puts(&sql, ") WHERE filename = ");
        weir__buf_put_sql_string(&sql, pattern);
    } else {
        weir__buf_put_sql_string(&sql, pattern);
        weir__buf_puts(&sql, ")");
    }
    weir__buf_puts(&sql, " ORDER BY filename");
    weir_rows *rows = NULL;
    int rc = weir__buf_failed(&sql)
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                 : weir__conn_query(c, weir__buf_cstr(&sql), &rows, err);
    weir__buf_free(&sql);
    if (rc)
        return rc;
    for (size_t i = 0; !rc && i < rows->n_rows; i++) {
        const char *name = weir__rows_get(rows, i, 0);
        const char *size = weir__rows_get(rows, i, 1);
        const char *mtime = weir__rows_get(rows, i, 2);
        size_t n = name ? strlen(name) : 0;
        if (!n || name[n - 1] == '/') /* a folder's marker object */
            continue;
        weir_file_info fi = { strdup(name), size ? strtoull(size, NULL, 10) : 0,
                              mtime ? strtoll(mtime, NULL, 10) : 0 };
        if (!fi.path || weir__vec_grow((void **)&out->items, &out->cap,
                                       sizeof(*out->items), out->len + 1)) {
            free(fi.path);
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        } else {
            out->items[out->len++] = fi;
        }
    }
    weir__rows_free(rows);
    return rc;
}
