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

static int move_catalog(weir_storage *st, const char *alias, const char *from,
                        const char *to, weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__checkpoint_put_relocate(&q, alias, from, to);
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
