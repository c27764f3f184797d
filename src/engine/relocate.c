/*
 * Moving a project's file-source state along with the project (see
 * relocate.h and docs/storage.md).
 */
#include "engine/relocate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "util/buf.h"

#define ROOT_KEY "'project_root'"

/* col = new || the rest, for values at or under old (in prefix form:
 * "files:" for source keys, "" for paths). */
static void rewrite(weir_buf *q, const char *alias, const char *table,
                    const char *col, const char *prefix, const char *from,
                    const char *to)
{
    weir_buf old = WEIR_BUF_INIT, now = WEIR_BUF_INIT;
    weir__buf_printf(&old, "%s%s", prefix, from);
    weir__buf_printf(&now, "%s%s", prefix, to);
    weir__buf_puts(q, "UPDATE ");
    weir__buf_put_sql_ident(q, alias);
    weir__buf_printf(q, "._weir.%s SET %s = ", table, col);
    weir__buf_put_sql_string(q, weir__buf_cstr(&now));
    weir__buf_printf(q, " || substr(%s, %zu) WHERE %s = ", col, old.len + 1, col);
    weir__buf_put_sql_string(q, weir__buf_cstr(&old));
    weir__buf_printf(q, " OR starts_with(%s, ", col);
    weir__buf_putc(&old, '/');
    weir__buf_put_sql_string(q, weir__buf_cstr(&old));
    weir__buf_puts(q, ");\n");
    weir__buf_free(&old);
    weir__buf_free(&now);
}

static int move_catalog(weir_storage *st, const char *alias, const char *from,
                        const char *to, weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    rewrite(&q, alias, "checkpoints", "source", "files:", from, to);
    rewrite(&q, alias, "file_schemas", "source", "files:", from, to);
    rewrite(&q, alias, "files", "source", "files:", from, to);
    rewrite(&q, alias, "files", "path", "", from, to);
    int rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_begin(st->conn, err);
    if (!rc)
        rc = weir__conn_exec(st->conn, weir__buf_cstr(&q), NULL, err);
    if (!rc)
        rc = weir__storage_commit(st, st->conn, err);
    else
        weir__conn_rollback(st->conn);
    weir__buf_free(&q);
    return rc;
}

int weir__relocate(weir_storage *st, const char *root_dir, char **moved_from,
                   weir_error *err)
{
    *moved_from = NULL;
    if (!st->system_attached || !root_dir)
        return 0;
    char *old = NULL;
    int rc = weir__conn_scalar_text(st->conn,
                                    "SELECT value FROM weir.main.meta WHERE "
                                    "key = " ROOT_KEY,
                                    &old, err);
    if (rc)
        return rc;
    weir_buf q = WEIR_BUF_INIT;
    if (old && strcmp(old, root_dir) != 0) {
        /* Every catalog file, also those the graph no longer uses. */
        rc = weir__storage_attach_all(st, err);
        size_t it = 0;
        const char *alias;
        while (!rc && weir__map_next(&st->attached, &it, &alias, NULL))
            rc = move_catalog(st, alias, old, root_dir, err);
    }
    if (!rc && (!old || strcmp(old, root_dir) != 0)) {
        weir__buf_puts(&q, "INSERT OR REPLACE INTO weir.main.meta VALUES (" ROOT_KEY
                           ", ");
        weir__buf_put_sql_string(&q, root_dir);
        weir__buf_putc(&q, ')');
        rc = weir__exec_buf(st->conn, &q, err);
    }
    weir__buf_free(&q);
    if (!rc && old && strcmp(old, root_dir) != 0)
        *moved_from = old;
    else
        free(old);
    return rc;
}
