/*
 * What `weir query` may change. weir's own state (the `weir` catalog of
 * event log, updates and catalog registry; the `_weir` schema of each
 * catalog with checkpoints and file manifests) is read-only to queries, and
 * so are the datasets the pipeline manages (their rows come from their
 * flows; streaming readers keep offsets into them). Three layers:
 *
 * - each statement's target name is checked where it is written, against
 *   every reading DuckDB can give it: a one-part name against the current
 *   schema and the search path as DuckDB reports them now, `a.b` as
 *   catalog a or schema a, `c.s.t` as written;
 * - the `weir` catalog is attached read-only on the query connection, so
 *   DuckDB itself refuses any write to it, however it is named;
 * - a writing statement runs in a transaction that commits only when a
 *   print of the `_weir` schemas (their tables' oids and column counts,
 *   each table's row count and sum of row hashes) is the same after the
 *   statement as before it.
 *
 * The first layer gives the error at the name's location; the others hold
 * if it ever misses a spelling.
 */
#include "api/internal.h"

#include <stdlib.h>
#include <string.h>

#include "state/state.h"
#include "state/tables.h"
#include "store/db.h"
#include "util/str.h"

typedef struct place {
    const char *catalog, *schema; /* NULL: the current one */
} place;

typedef struct places {
    place items[24];
    size_t n;
    weir_arena arena;
    char *current_catalog, *current_schema, *search_path;
} places;

static bool same_part(const char *a, const char *b)
{
    return a == b || (a && b && weir__str_ieq(a, b));
}

static void add(places *ps, const char *catalog, const char *schema)
{
    for (size_t i = 0; i < ps->n; i++)
        if (same_part(ps->items[i].catalog, catalog) &&
            same_part(ps->items[i].schema, schema))
            return;
    if (ps->n < sizeof(ps->items) / sizeof(ps->items[0]))
        ps->items[ps->n++] = (place){ catalog, schema };
}

/* One identifier of a DuckDB search path entry: bare or "quoted". */
static const char *path_ident(places *ps, const char **s)
{
    weir_buf b = WEIR_BUF_INIT;
    const char *p = *s;
    while (*p == ' ')
        p++;
    if (*p == '"') {
        for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
            weir__buf_putc(&b, *p);
            if (*p == '"')
                p++;
        }
        if (*p == '"')
            p++;
    } else {
        for (; *p && *p != '.' && *p != ','; p++)
            weir__buf_putc(&b, *p);
    }
    *s = p;
    char *out = weir__arena_strdup(&ps->arena, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return out;
}

/* The schemas DuckDB searches for a one-part name: the current one and the
 * search path's entries (an entry of one part may be a schema of the
 * current catalog or a catalog). */
static void add_search_path(places *ps)
{
    add(ps, ps->current_catalog, ps->current_schema);
    const char *s = ps->search_path ? ps->search_path : "";
    while (*s) {
        const char *a = path_ident(ps, &s);
        const char *b = NULL;
        if (*s == '.') {
            s++;
            b = path_ident(ps, &s);
        }
        while (*s && *s != ',')
            s++;
        if (*s == ',')
            s++;
        if (!a)
            continue;
        if (b) {
            add(ps, a, b);
        } else {
            add(ps, ps->current_catalog, a);
            add(ps, a, "main");
        }
    }
}

static int load_current(places *ps, weir_conn *c, weir_error *err)
{
    weir_rows *r = NULL;
    int rc = weir__conn_query(c,
                              "SELECT current_database(), current_schema(), "
                              "current_setting('search_path')",
                              &r, err);
    if (!rc && r->n_rows == 1 && r->n_cols == 3) {
        const char *v[3];
        for (size_t i = 0; i < 3; i++)
            v[i] = weir__arena_strdup(&ps->arena,
                                      weir__rows_get(r, 0, i) ? weir__rows_get(r, 0, i)
                                                              : "");
        ps->current_catalog = (char *)v[0];
        ps->current_schema = (char *)v[1];
        ps->search_path = (char *)v[2];
    }
    weir__rows_free(r);
    if (!rc && (!ps->current_catalog || weir__arena_failed(&ps->arena)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return rc;
}

/* Every (catalog, schema) DuckDB may place the target in. Objects (tables,
 * views) carry the object name last; schema statements name a schema, and
 * USE a schema or a catalog. */
static void candidates(places *ps, weir_sql_action action, const weir_sql_name *n)
{
    bool schema_stmt = action == WEIR_SQL_USE || action == WEIR_SQL_CREATE_SCHEMA ||
                       action == WEIR_SQL_DROP_SCHEMA;
    size_t k = schema_stmt ? n->n : n->n - 1; /* parts before the object */
    if (k == 0) {
        add_search_path(ps);
    } else if (k == 1) {
        add(ps, n->parts[0], "main");
        add_search_path(ps);
        size_t m = ps->n;
        for (size_t i = 0; i < m; i++)
            add(ps, ps->items[i].catalog, n->parts[0]);
    } else {
        add(ps, n->parts[k - 2], n->parts[k - 1]);
    }
}

static bool protected_place(const place *pl)
{
    return (pl->catalog && weir__str_ieq(pl->catalog, WEIR_SYSTEM_ALIAS)) ||
           (pl->schema && weir__str_ieq(pl->schema, WEIR_META_SCHEMA));
}

static void name_text(weir_buf *b, const weir_sql_name *n)
{
    for (size_t i = 0; i < n->n; i++)
        weir__buf_printf(b, "%s%s", i ? "." : "", n->parts[i]);
}

static int state_read_only(const weir_sql_name *n, const place *pl,
                           weir_error *err)
{
    bool system = pl->catalog && weir__str_ieq(pl->catalog, WEIR_SYSTEM_ALIAS);
    weir_buf b = WEIR_BUF_INIT;
    name_text(&b, n);
    int rc = WEIR_ERR(err, WEIR_ESQL, "PIPELINE_STATE_READ_ONLY",
                      "%s %s weir's own state (%s), which queries may read "
                      "but not change; `weir run --full-refresh TABLE` resets "
                      "a table's state",
                      weir__buf_cstr(&b), n->n == 1 ? "resolves to" : "is",
                      system ? "the weir catalog" : "a _weir schema");
    weir__buf_free(&b);
    return rc;
}

/* The kind of the dataset the pipeline manages at catalog.schema.table (or
 * whose quarantine table it is), malloc'd in *kind; NULL when none. */
static int managed_kind(weir_storage *st, const char *catalog,
                        const char *schema, const char *table, char **kind,
                        weir_error *err)
{
    *kind = NULL;
    char alias[300];
    weir__str_copy(alias, sizeof(alias), catalog);
    weir__str_lower(alias);
    if (!weir__map_has(&st->attached, alias))
        return 0;
    return weir__tables_managed_kind(st->conn, alias, schema, table, kind,
                                     err);
}

static const char *verb(weir_sql_action a)
{
    switch (a) {
    case WEIR_SQL_REPLACE: return "CREATE OR REPLACE";
    case WEIR_SQL_DROP: return "DROP";
    case WEIR_SQL_DROP_SCHEMA: return "DROP SCHEMA";
    case WEIR_SQL_INSERT: return "INSERT INTO";
    case WEIR_SQL_OVERWRITE: return "INSERT OVERWRITE";
    case WEIR_SQL_DELETE: return "DELETE or TRUNCATE";
    case WEIR_SQL_UPDATE: return "UPDATE";
    case WEIR_SQL_ALTER: return "ALTER TABLE";
    default: return "this statement";
    }
}

static int dataset_read_only(weir_sql_action action, const weir_sql_name *n,
                             const char *kind, const char *table,
                             weir_error *err)
{
    weir_buf b = WEIR_BUF_INIT;
    name_text(&b, n);
    int rc = WEIR_ERR(err, WEIR_ESQL, "PIPELINE_DATASET_READ_ONLY",
                      "%s is a %s of the pipeline: its rows come from its "
                      "flows and only `weir run` changes them (%s here would "
                      "be undone by its next refresh, or make its streaming "
                      "readers skip rows without a word). Change its sources "
                      "or its definition and run `weir run --full-refresh %s`",
                      weir__buf_cstr(&b), kind, verb(action), table);
    weir__buf_free(&b);
    return rc;
}

static int schema_read_only(const weir_sql_name *n, const char *dataset,
                            weir_error *err)
{
    weir_buf b = WEIR_BUF_INIT;
    name_text(&b, n);
    int rc = WEIR_ERR(err, WEIR_ESQL, "PIPELINE_DATASET_READ_ONLY",
                      "schema %s holds datasets of the pipeline (%s), which "
                      "only `weir run` changes: DROP SCHEMA is refused. "
                      "Remove the datasets from the pipeline first",
                      weir__buf_cstr(&b), dataset);
    weir__buf_free(&b);
    return rc;
}

/* DROP SCHEMA of a schema holding datasets of the pipeline. */
static int managed_in_schema(weir_storage *st, const char *catalog,
                             const char *schema, char **name, weir_error *err)
{
    *name = NULL;
    char alias[300];
    weir__str_copy(alias, sizeof(alias), catalog);
    weir__str_lower(alias);
    if (!weir__map_has(&st->attached, alias))
        return 0;
    return weir__tables_managed_in_schema(st->conn, alias, schema, name, err);
}

int weir__guard_target(weir_storage *st, weir_sql_action action,
                       const weir_sql_name *n, weir_error *err)
{
    if (n->n == 0)
        return 0;
    places ps;
    memset(&ps, 0, sizeof(ps));
    weir__arena_init(&ps.arena);
    int rc = load_current(&ps, st->conn, err);
    if (!rc)
        candidates(&ps, action, n);
    for (size_t i = 0; !rc && i < ps.n; i++) {
        place pl = ps.items[i];
        if (!pl.catalog)
            pl.catalog = ps.current_catalog;
        if (protected_place(&pl))
            rc = state_read_only(n, &pl, err);
    }
    /* Datasets of the pipeline: anything but creating a new table. */
    bool object = action != WEIR_SQL_USE && action != WEIR_SQL_CREATE_SCHEMA &&
                  action != WEIR_SQL_DROP_SCHEMA && action != WEIR_SQL_CREATE;
    for (size_t i = 0; !rc && object && i < ps.n; i++) {
        const place *pl = &ps.items[i];
        char *kind = NULL;
        rc = managed_kind(st, pl->catalog ? pl->catalog : ps.current_catalog,
                          pl->schema, n->parts[n->n - 1], &kind, err);
        if (!rc && kind)
            rc = dataset_read_only(action, n, kind, n->parts[n->n - 1], err);
        free(kind);
    }
    for (size_t i = 0; !rc && action == WEIR_SQL_DROP_SCHEMA && i < ps.n; i++) {
        const place *pl = &ps.items[i];
        char *name = NULL;
        rc = managed_in_schema(st, pl->catalog ? pl->catalog : ps.current_catalog,
                               pl->schema, &name, err);
        if (!rc && name)
            rc = schema_read_only(n, name, err);
        free(name);
    }
    weir__arena_free(&ps.arena);
    return rc;
}

/* ---- the print of the state --------------------------------------------- */

int weir__guard_print(weir_storage *st, weir_guard_print *out, weir_error *err)
{
    weir__guard_print_free(out);
    int rc = weir__state_print_sql(st->conn, &out->sql, err);
    if (!rc)
        rc = weir__guard_reprint(st, out, err);
    if (rc)
        weir__guard_print_free(out);
    return rc;
}

int weir__guard_reprint(weir_storage *st, weir_guard_print *p, weir_error *err)
{
    free(p->text);
    p->text = NULL;
    int rc = weir__conn_scalar_text(st->conn, p->sql, &p->text, err);
    if (!rc && !p->text)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return rc;
}

bool weir__guard_unchanged(weir_storage *st, const weir_guard_print *before)
{
    weir_guard_print now = { before->sql, NULL, false };
    weir_error e;
    /* An error here (a table of the print dropped) is a change too. */
    bool same = weir__guard_reprint(st, &now, &e) == 0 &&
                strcmp(now.text, before->text) == 0;
    free(now.text);
    return same;
}

void weir__guard_print_free(weir_guard_print *p)
{
    free(p->sql);
    free(p->text);
    p->sql = p->text = NULL;
    p->current = false;
}
