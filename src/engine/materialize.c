/*
 * Table materialization before an update's flows run: create missing
 * tables, evolve streaming tables additively, reset fully refreshed ones
 * (new checkpoint generation, table recreated, epoch bumped), keep weir's
 * table metadata, and publish persisted views. weir's metadata is read
 * once, and only the tables of the datasets the update materializes are
 * looked up; each catalog's changes commit in one transaction, and a
 * dataset whose change is invalid (an incompatible type, changed
 * partitioning) fails alone.
 */
#include "engine/materialize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/resolve.h"
#include "engine/write.h"
#include "sinks/sink.h"
#include "state/tables.h"
#include "util/fs.h"
#include "util/str.h"
#include "util/vec.h"

/* ---- what the catalogs hold ---------------------------------------------- */

typedef struct column_list {
    bool exists;
    bool view; /* what exists is a view (the dataset was one before) */
    weir_db_column *cols;
    size_t n;
} column_list;

typedef struct snapshot {
    weir_arena arena;
    column_list *tables; /* by dataset index: the columns of its table */
    weir_table_records meta;
} snapshot;

/* weir's metadata of every attached catalog (one query); the datasets'
 * tables are looked up one by one (look_up), only those the update
 * materializes. */
static int load_snapshot(snapshot *s, weir_storage *st, size_t n_datasets,
                         weir_error *err)
{
    memset(s, 0, sizeof(*s));
    weir__arena_init(&s->arena);
    int rc = weir__tables_load(&s->meta, st, err);
    s->tables = calloc(n_datasets + 1, sizeof(*s->tables));
    if (!rc && !s->tables)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return rc;
}

/* Whether dataset di's table exists, and its columns. */
static int look_up(snapshot *s, weir_storage *st, const weir_graph *g, int di,
                   weir_error *err)
{
    const weir_gdataset *d = &g->datasets[di];
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), d->catalog);
    column_list *cl = &s->tables[di];
    return weir__conn_table_columns(st->conn, alias, d->database, d->name,
                                    &cl->exists, &cl->view, &cl->cols, &cl->n,
                                    &s->arena, err);
}

static void free_snapshot(snapshot *s)
{
    free(s->tables);
    weir__tables_free(&s->meta);
    weir__arena_free(&s->arena);
}

/* Dataset di's table, or NULL. */
static const column_list *existing(const snapshot *s, int di)
{
    return s->tables[di].exists && !s->tables[di].view ? &s->tables[di] : NULL;
}

/* A table dataset that was a persisted view: weir published that view;
 * the table takes its place. */
static void drop_view(weir_buf *q, const snapshot *s, int di,
                      const weir_gdataset *d)
{
    if (!s->tables[di].view)
        return;
    weir__buf_puts(q, "; DROP VIEW ");
    weir__phys(q, d);
}

/* A streaming table weir stored as a materialized view: its rows are the
 * view's result, not what its flows read, so it starts over as on a full
 * refresh (the view's rows can be computed again; nothing is lost). A
 * Delta one is judged on the record alone; a DuckDB one when its table
 * is still there (was_materialized_view). */
static bool was_view(const snapshot *s, const weir_gdataset *d)
{
    const weir_table_record *m = weir__tables_get(&s->meta, d);
    return d->kind == WEIR_STREAMING_TABLE && m && m->kind &&
           !strcmp(m->kind, weir__kind_name(WEIR_MATERIALIZED_VIEW));
}

static bool was_materialized_view(const snapshot *s, int di,
                                  const weir_gdataset *d)
{
    return existing(s, di) && was_view(s, d);
}

/* ---- statements ---------------------------------------------------------- */

/* The quarantine companion of a streaming table with QUARANTINE
 * expectations: its columns plus the failed expectations, update and time.
 * Created when missing (recreated on a full refresh); new columns added. */
static void quarantine_ddl(weir_buf *b, const weir_gdataset *d, bool recreate)
{
    if (!weir__has_quarantine(d) || d->kind != WEIR_STREAMING_TABLE)
        return;
    weir__buf_puts(b, recreate ? "; CREATE OR REPLACE TABLE "
                               : "; CREATE TABLE IF NOT EXISTS ");
    weir__quarantine_ref(b, d);
    weir__buf_puts(b, " (");
    for (size_t i = 0; i < d->schema.n; i++) {
        weir__buf_put_sql_ident(b, d->schema.cols[i].name);
        weir__buf_putc(b, ' ');
        weir__column_type(b, d->schema.cols[i].duck_type);
        weir__buf_puts(b, ", ");
    }
    weir__buf_puts(b, "\"_failed_expectations\" VARCHAR[], \"_update_id\" "
                      "VARCHAR, \"_quarantined_at\" TIMESTAMP)");
    for (size_t i = 0; !recreate && i < d->schema.n; i++) {
        weir__buf_puts(b, "; ALTER TABLE ");
        weir__quarantine_ref(b, d);
        weir__buf_puts(b, " ADD COLUMN IF NOT EXISTS ");
        weir__buf_put_sql_ident(b, d->schema.cols[i].name);
        weir__buf_putc(b, ' ');
        weir__column_type(b, d->schema.cols[i].duck_type);
    }
}

/* Normalise DuckDB type text for comparison: no quotes, no blanks, upper. */
static void norm_type(char *out, size_t size, const char *t)
{
    size_t o = 0;
    for (; *t && o + 1 < size; t++) {
        if (*t == '"' || *t == ' ')
            continue;
        out[o++] = (char)((*t >= 'a' && *t <= 'z') ? *t - 32 : *t);
    }
    out[o] = '\0';
}

/* Additive schema evolution of an existing streaming table. */
static int evolve(const column_list *cl, const weir_gdataset *d, weir_buf *ddl,
                  weir_error *err)
{
    for (size_t i = 0; i < d->schema.n; i++) {
        const weir_column *c = &d->schema.cols[i];
        const char *have = NULL;
        for (size_t r = 0; r < cl->n && !have; r++)
            if (weir__str_ieq(cl->cols[r].name, c->name))
                have = cl->cols[r].type;
        if (!have) {
            weir__buf_puts(ddl, "; ALTER TABLE ");
            weir__phys(ddl, d);
            weir__buf_puts(ddl, " ADD COLUMN ");
            weir__buf_put_sql_ident(ddl, c->name);
            weir__buf_putc(ddl, ' ');
            weir__column_type(ddl, c->duck_type);
            continue;
        }
        char a[512], b[512];
        norm_type(a, sizeof(a), have);
        norm_type(b, sizeof(b), c->duck_type);
        if (strcmp(a, b) == 0)
            continue;
        weir_buf sp = WEIR_BUF_INIT;
        weir__sql_duckdb_type_to_spark(&sp, have);
        WEIR_ERR(err, WEIR_ERROR, "CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE",
                 "Failed to merge incompatible data types %s and %s for "
                 "column %s of %s. The table's schema can only gain columns "
                 "in an incremental update; run a full refresh of %s "
                 "(weir run --full-refresh %s) to rebuild it with the new "
                 "schema.",
                 weir__buf_cstr(&sp), c->spark_type, c->name, d->display,
                 d->display, d->name);
        weir__buf_free(&sp);
        return WEIR_ERROR;
    }
    return 0;
}

/* A stored partition list (a,b) as Spark's message lists it (a, b). */
static void put_partition_list(weir_buf *b, const char *csv)
{
    for (; *csv; csv++) {
        if (*csv == ',')
            weir__buf_puts(b, ", ");
        else
            weir__buf_putc(b, *csv);
    }
}

/* The partitioning a table was created with is fixed, as in Spark
 * (DatasetManager: CANNOT_UPDATE_PARTITION_COLUMNS, its message's lists
 * joined by ", "). */
static int check_partitions(const weir_table_record *m, const weir_gdataset *d,
                            weir_error *err)
{
    if (!m)
        return 0;
    weir_buf want = WEIR_BUF_INIT, said = WEIR_BUF_INIT, had = WEIR_BUF_INIT;
    weir__tables_put_partitions(&want, d);
    const char *have = m->partitions ? m->partitions : "";
    int rc = 0;
    if (!weir__str_ieq(have, weir__buf_cstr(&want))) {
        put_partition_list(&said, weir__buf_cstr(&want));
        put_partition_list(&had, have);
        rc = WEIR_ERR(err, WEIR_ERROR, "CANNOT_UPDATE_PARTITION_COLUMNS",
                      "Declared partitioning %s conflicts with existing "
                      "table partitioning %s. Please delete the table or "
                      "change the declared partitioning to match its "
                      "partitions.",
                      weir__buf_cstr(&said), weir__buf_cstr(&had));
    }
    weir__buf_free(&want);
    weir__buf_free(&said);
    weir__buf_free(&had);
    return rc;
}

/* ---- one dataset ----------------------------------------------------------- */

typedef struct piece {
    int dataset;
    char alias[300];
    char *sql; /* statements, each starting with "; " */
} piece;

typedef WEIR_VEC(piece) piece_vec;

static int add_piece(piece_vec *v, int dataset, const char *catalog,
                     weir_buf *sql)
{
    if (!sql->len)
        return 0;
    piece p;
    p.dataset = dataset;
    weir__storage_catalog_alias(p.alias, sizeof(p.alias), catalog);
    p.sql = weir__buf_detach(sql);
    if (!p.sql || WEIR_VEC_PUSH(v, p)) {
        free(p.sql);
        return WEIR_ENOMEM;
    }
    return 0;
}

/* A new checkpoint generation for the dataset's flows. */
static int reset_checkpoints(piece_vec *v, const weir_graph *g, int di,
                             const char *update_id)
{
    const weir_gdataset *d = &g->datasets[di];
    const char *cat = weir__state_catalog(g, d);
    weir_buf q = WEIR_BUF_INIT;
    const char **flows = calloc(d->n_flows ? d->n_flows : 1, sizeof(*flows));
    if (!flows)
        return WEIR_ENOMEM;
    for (size_t i = 0; i < d->n_flows; i++)
        flows[i] = g->flows[d->flows[i]].display;
    weir__checkpoint_put_reset(&q, cat, d->display, flows, d->n_flows,
                               update_id);
    free(flows);
    return add_piece(v, di, cat, &q);
}

static int reset_dataset(piece_vec *v, const weir_graph *g, int di,
                         snapshot *s, const char *update_id, bool *created)
{
    const weir_gdataset *d = &g->datasets[di];
    weir_buf q = WEIR_BUF_INIT;
    int rc = reset_checkpoints(v, g, di, update_id);
    if (rc || d->kind == WEIR_SINK)
        return rc;
    const weir_table_record *m = weir__tables_get(&s->meta, d);
    /* A materialized view keeps its rows until its flow replaces them in
     * one transaction: a failed recomputation leaves the old contents. */
    bool keep = d->kind == WEIR_MATERIALIZED_VIEW && existing(s, di);
    if (!keep) {
        *created = true;
        drop_view(&q, s, di, d);
        weir__buf_puts(&q, "; DROP TABLE IF EXISTS ");
        weir__phys(&q, d);
        weir__buf_puts(&q, "; CREATE TABLE ");
        weir__phys(&q, d);
        weir__buf_putc(&q, ' ');
        weir__column_defs(&q, &d->schema);
        weir__comments(&q, d);
    }
    quarantine_ddl(&q, d, true);
    weir__tables_put(&q, d, (m ? m->epoch : 0) + 1, NULL, update_id);
    return add_piece(v, di, d->catalog, &q);
}

static int check_format(const weir_graph *g, const weir_gdataset *d,
                        const weir_table_record *m, weir_error *err);
static int run_script(weir_storage *st, weir_buf *sql, weir_error *err);

static int materialize_dataset(piece_vec *v, const weir_graph *g, int di,
                               snapshot *s, const char *update_id,
                               bool *created, weir_error *err)
{
    const weir_gdataset *d = &g->datasets[di];
    /* Partitioning together with clustering was rejected by the graph. */
    const column_list *cl = existing(s, di);
    const weir_table_record *m = weir__tables_get(&s->meta, d);
    weir_buf q = WEIR_BUF_INIT;
    int rc = check_format(g, d, m, err);
    if (rc)
        return rc;
    /* A streaming table an earlier update created, dropped behind weir's
     * back: recreating it empty would skip every row its flows already
     * read, and its streaming readers' offsets would point past new rows. */
    if (!cl && m && d->kind == WEIR_STREAMING_TABLE) {
        weir__cli_name(&q, g, d);
        rc = WEIR_ERR(err, WEIR_ERROR, "STREAMING_TABLE_MISSING",
                 "The streaming table %s was created by an earlier update but "
                 "is gone (dropped outside weir): the rows its flows already "
                 "processed are lost. Rebuild it from its sources with `weir "
                 "run --full-refresh %s` (its streaming readers then need a "
                 "full refresh too).",
                 d->display, weir__buf_cstr(&q));
        weir__buf_free(&q);
        return rc;
    }
    int64_t epoch = m ? m->epoch : 0;
    if (!cl) {
        *created = true;
        drop_view(&q, s, di, d);
        weir__buf_puts(&q, "; CREATE TABLE ");
        weir__phys(&q, d);
        weir__buf_putc(&q, ' ');
        weir__column_defs(&q, &d->schema);
        weir__comments(&q, d);
        /* A view's table gone behind weir's back is replaced by an empty
         * one: its streaming readers read it whole again, and what its
         * refreshes recorded is forgotten (its flow fills this table
         * without another epoch or a look at its checkpoint,
         * engine/mv.c). */
        if (m && d->kind == WEIR_MATERIALIZED_VIEW) {
            epoch++;
            if (reset_checkpoints(v, g, di, update_id))
                rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        }
    } else {
        rc = check_partitions(m, d, err);
        if (!rc && d->kind == WEIR_STREAMING_TABLE)
            rc = evolve(cl, d, &q, err);
    }
    if (!rc) {
        /* A new table (the first, or one whose dataset was a view in
         * between) starts a new quarantine table too. */
        quarantine_ddl(&q, d, !cl);
        weir__tables_put(&q, d, epoch, m, update_id);
        rc = add_piece(v, di, d->catalog, &q);
        if (rc)
            WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir__buf_free(&q);
    return rc;
}


/* ---- datasets stored as Delta tables --------------------------------------- */

static bool recorded_delta(const weir_table_record *m)
{
    return m && m->format && weir__str_ieq(m->format, "delta");
}

/* A dataset whose format changed since weir stored it: its rows are in
 * the other format, so only a full refresh (which rebuilds it from its
 * sources) may switch. */
static int check_format(const weir_graph *g, const weir_gdataset *d,
                        const weir_table_record *m, weir_error *err)
{
    bool delta = weir__dataset_delta(d);
    if (!m || delta == recorded_delta(m))
        return 0;
    weir_buf q = WEIR_BUF_INIT;
    weir__cli_name(&q, g, d);
    int rc = WEIR_ERR(err, WEIR_ERROR, "DATASET_FORMAT_CHANGED",
                      "The %s %s is stored as a %s table but is now declared "
                      "%s: its rows stay where they are until a full refresh "
                      "of it rebuilds it in the new format (`weir run "
                      "--full-refresh %s`). Nothing was changed.",
                      weir__kind_name(d->kind), d->display,
                      recorded_delta(m) ? "Delta" : "DuckDB",
                      delta ? "USING delta" : "without USING delta",
                      weir__buf_cstr(&q));
    weir__buf_free(&q);
    return rc;
}

/* The statements of a Delta dataset: its record (the epoch bumped on a
 * full refresh, with new checkpoint generations for its flows), a table
 * of the DuckDB format it replaces dropped. Its log and view follow once
 * they committed (delta_publish). */
static int materialize_delta(piece_vec *v, weir_storage *st,
                             const weir_graph *g, int di, snapshot *s,
                             bool reset, const char *update_id, bool *created,
                             weir_error *err)
{
    const weir_gdataset *d = &g->datasets[di];
    const weir_table_record *m = weir__tables_get(&s->meta, d);
    int rc = reset ? 0 : check_format(g, d, m, err);
    weir_buf q = WEIR_BUF_INIT;
    weir__storage_delta_dir(&q, st, d->location, d->catalog, d->database, d->name);
    weir__buf_puts(&q, "/_delta_log");
    bool have_log = weir__fs_exists(weir__buf_cstr(&q));
    weir__buf_clear(&q);
    if (!rc && !reset && m && !have_log && d->kind == WEIR_STREAMING_TABLE) {
        weir__cli_name(&q, g, d);
        rc = WEIR_ERR(err, WEIR_ERROR, "STREAMING_TABLE_MISSING",
                      "The Delta table of streaming table %s was created by "
                      "an earlier update but its log is gone (deleted "
                      "outside weir): the rows its flows already processed "
                      "are lost. Rebuild it from its sources with `weir run "
                      "--full-refresh %s`.",
                      d->display, weir__buf_cstr(&q));
        weir__buf_clear(&q);
    }
    if (!rc && reset)
        rc = reset_checkpoints(v, g, di, update_id);
    if (!rc && s->tables[di].exists && !s->tables[di].view) {
        weir__buf_puts(&q, "; DROP TABLE ");
        weir__phys(&q, d);
    }
    if (!rc) {
        *created = reset || !have_log;
        weir__tables_put(&q, d, (m ? m->epoch : 0) + (reset ? 1 : 0),
                         reset ? NULL : m, update_id);
        rc = add_piece(v, di, d->catalog, &q);
        if (rc)
            WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir__buf_free(&q);
    return rc;
}

/* After the records committed: the Delta table brought to the dataset's
 * schema and epoch, and the view its readers query (DuckDB's delta
 * extension reads the log's latest version). */
static int delta_publish(weir_storage *st, const weir_gdataset *d,
                         bool view_exists, weir_error *err)
{
    bool st_kind = d->kind == WEIR_STREAMING_TABLE;
    int64_t epoch = 0;
    int rc = weir__tables_epoch(st->conn, d, &epoch, err);
    weir_buf dir = WEIR_BUF_INIT;
    weir__storage_delta_dir(&dir, st, d->location, d->catalog, d->database, d->name);
    if (!rc)
        rc = weir__fs_mkdirs(weir__buf_cstr(&dir), err);
    if (!rc)
        rc = weir__delta_dataset_sync(weir__buf_cstr(&dir), d->schema.cols,
                                      d->schema.n,
                                      (const char *const *)d->def->partition_cols,
                                      d->def->n_partition_cols, epoch,
                                      st_kind, err);
    if (!rc)
        rc = weir__db_extension(weir__conn_db(st->conn), "delta",
                                "Delta datasets", err);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "BEGIN TRANSACTION");
    weir__delta_view(&q, st, d);
    weir__buf_puts(&q, "; COMMIT");
    /* A materialized view's refresh writes its rows, schema and view in
     * one go; until then the view reads the rows it has. */
    if (!rc && (st_kind || !view_exists))
        rc = run_script(st, &q, err);
    if (rc)
        weir__conn_rollback(st->conn);
    weir__buf_free(&q);
    weir__buf_free(&dir);
    return rc;
}

/* Run sql, a script that ends with COMMIT (weir__conn_exec_alone), after
 * the update's record (weir__storage_write_behind): nothing of an update
 * is committed before it. */
static int run_script(weir_storage *st, weir_buf *sql, weir_error *err)
{
    if (sql->failed)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int rc = weir__storage_write_wait(st, err);
    return rc ? rc : weir__conn_exec_alone(st->conn, weir__buf_cstr(sql), err);
}

/* Run the pieces of one catalog in one transaction; when that fails, run
 * them one by one so only the culprit fails. */
static void run_pieces(weir_storage *st, piece_vec *v, const char *alias,
                       weir_error *errs)
{
    weir_buf all = WEIR_BUF_INIT;
    weir__buf_puts(&all, "BEGIN TRANSACTION");
    for (size_t i = 0; i < v->len; i++)
        if (!strcmp(v->items[i].alias, alias) && !errs[v->items[i].dataset].code)
            weir__buf_puts(&all, v->items[i].sql);
    weir__buf_puts(&all, "; COMMIT");
    weir_error e;
    if (run_script(st, &all, &e) == 0) {
        weir__buf_free(&all);
        return;
    }
    weir__conn_rollback(st->conn);
    weir__buf_free(&all);
    for (size_t i = 0; i < v->len; i++) {
        piece *p = &v->items[i];
        if (strcmp(p->alias, alias) != 0 || errs[p->dataset].code)
            continue;
        weir_buf one = WEIR_BUF_INIT;
        weir__buf_printf(&one, "BEGIN TRANSACTION%s; COMMIT", p->sql);
        if (run_script(st, &one, &errs[p->dataset])) {
            weir__conn_rollback(st->conn);
            if (!errs[p->dataset].code)
                errs[p->dataset].code = WEIR_ERROR;
        }
        weir__buf_free(&one);
    }
}

int weir__materialize(weir_storage *st, const weir_graph *g,
                      const bool *selected, const bool *reset,
                      const char *update_id, bool *created, weir_error *errs,
                      weir_error *err)
{
    snapshot s;
    int rc = load_snapshot(&s, st, g->n_datasets, err);
    piece_vec v = WEIR_VEC_INIT;
    bool ignore = false;
    for (size_t k = 0; !rc && k < g->n_datasets; k++) {
        int di = g->dataset_order[k];
        const weir_gdataset *d = &g->datasets[di];
        bool *made = created ? &created[di] : &ignore;
        if (d->kind == WEIR_TEMPORARY_VIEW || d->kind == WEIR_PERSISTED_VIEW)
            continue;
        if ((reset[di] || selected[di]) && d->kind != WEIR_SINK &&
            (rc = look_up(&s, st, g, di, err)) != 0)
            break;
        bool again = reset[di] || (selected[di] && was_materialized_view(&s, di, d));
        if (weir__dataset_delta(d) && (reset[di] || selected[di]))
            rc = materialize_delta(&v, st, g, di, &s, again || was_view(&s, d),
                                   update_id, made, &errs[di]) == WEIR_ENOMEM
                     ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                     : 0;
        else if (again && reset_dataset(&v, g, di, &s, update_id, made))
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        else if (!again && selected[di] && d->kind != WEIR_SINK)
            rc = materialize_dataset(&v, g, di, &s, update_id, made,
                                     &errs[di]) == WEIR_ENOMEM
                     ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                     : 0;
    }
    /* One transaction per catalog. */
    for (size_t i = 0; !rc && i < v.len; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = !strcmp(v.items[k].alias, v.items[i].alias);
        if (!seen)
            run_pieces(st, &v, v.items[i].alias, errs);
    }
    for (size_t i = 0; !rc && i < g->n_datasets; i++)
        if (weir__dataset_delta(&g->datasets[i]) && (reset[i] || selected[i]) &&
            !errs[i].code)
            delta_publish(st, &g->datasets[i],
                          s.tables[i].exists && s.tables[i].view && !reset[i],
                          &errs[i]);
    for (size_t i = 0; i < v.len; i++)
        free(v.items[i].sql);
    WEIR_VEC_FREE(&v);
    free_snapshot(&s);
    for (size_t i = 0; created && i < g->n_datasets; i++)
        created[i] = created[i] && !rc && !errs[i].code;
    return rc;
}

/* ---- persisted views ----------------------------------------------------- */

/* Persistent copies of weir's Spark-function macros in the view's schema:
 * DuckDB binds a view's functions in the view's own schema, so the view
 * then also works in a stock DuckDB that opens the catalog file. */
static void persist_macros(weir_buf *sql, const weir_gdataset *d)
{
    static const char temp[] = "CREATE OR REPLACE TEMP MACRO ";
    const char *p = weir__sql_session_setup();
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), d->catalog);
    while ((p = strstr(p, temp))) {
        const char *end = strstr(p, ";\n");
        if (!end)
            end = p + strlen(p);
        p += sizeof(temp) - 1;
        weir__buf_puts(sql, "CREATE OR REPLACE MACRO ");
        weir__buf_put_sql_ident(sql, alias);
        weir__buf_putc(sql, '.');
        weir__buf_put_sql_ident(sql, d->database);
        weir__buf_putc(sql, '.');
        weir__buf_put(sql, p, (size_t)(end - p));
        weir__buf_puts(sql, ";\n");
        p = end;
    }
}

/* Spark's CreateViewCommand refuses a permanent view with a column it
 * would have to name itself (an unaliased expression), unless
 * spark.sql.allowAutoGeneratedAliasForView is set for the view's flow.
 * The dry run accepts such a view: only publishing it fails. */
static bool unaliased_column(const weir_gflow *f, const weir_gdataset *d,
                             weir_error *err)
{
    for (size_t i = f->n_conf; i-- > 0;)
        if (!strcmp(f->conf[i].key,
                    "spark.sql.allowAutoGeneratedAliasForView")) {
            bool allow = false;
            if (weir__str_parse_bool(f->conf[i].value, &allow) && allow)
                return false;
            break;
        }
    weir_buf name = WEIR_BUF_INIT;
    weir_sql_pos pos;
    if (!f->query || !weir__sql_query_unaliased(f->query, &name, &pos)) {
        weir__buf_free(&name);
        return false;
    }
    WEIR_ERR(err, WEIR_ESQL, "CREATE_PERMANENT_VIEW_WITHOUT_ALIAS",
             "Not allowed to create the permanent view `%s`.`%s`.`%s` "
             "without explicitly assigning an alias for the expression "
             "\"%s\".",
             d->catalog, d->database, d->name, weir__buf_cstr(&name));
    weir__buf_free(&name);
    const weir_sql_source *src = weir__sql_query_source(f->query);
    if (err && src && !src->at_path)
        weir__error_at(err, src->path, pos.line, pos.column);
    return true;
}

/* A persisted view whose name holds a table: the dataset was a table
 * before. A materialized view's table is dropped (its rows can be
 * computed again), a streaming table's only on a full refresh of the view
 * (its rows may be all that is left of what its flows read); the table's
 * metadata goes and its flows' checkpoints start a new generation, so a
 * table of that name later starts from its sources. Appends the
 * statements to sql, which then runs as one transaction. */
static int replace_table(weir_buf *sql, weir_storage *st, const weir_graph *g,
                         const weir_gdataset *d, bool reset,
                         const char *update_id, weir_error *err)
{
    char *kind = NULL;
    bool resettable = true;
    int rc = weir__tables_recorded_kind(st->conn, d, &kind, &resettable, err);
    const char *mv = weir__kind_name(WEIR_MATERIALIZED_VIEW);
    weir_buf name = WEIR_BUF_INIT;
    weir__cli_name(&name, g, d);
    if (!rc && !kind)
        rc = WEIR_ERR(err, WEIR_ERROR, "DATASET_KIND_CHANGED",
                      "%s is a view, but a table of that name that this "
                      "pipeline did not create is in its place; drop or "
                      "rename that table.",
                      d->display);
    else if (!rc && strcmp(kind, mv) && !resettable)
        rc = WEIR_ERR(err, WEIR_ERROR, "DATASET_KIND_CHANGED",
                      "%s is now a view, but it was a %s whose table "
                      "property pipelines.reset.allowed is false: weir does "
                      "not drop its table. Define it as that table again "
                      "with the property set to true and run an update, "
                      "then change it to a view and run `weir run "
                      "--full-refresh %s`.",
                      d->display, kind, weir__buf_cstr(&name));
    else if (!rc && strcmp(kind, mv) && !reset)
        rc = WEIR_ERR(err, WEIR_ERROR, "DATASET_KIND_CHANGED",
                      "%s is now a view, but it was a %s: its table holds "
                      "the rows its flows read, which dropping it would "
                      "lose. Run `weir run --full-refresh %s` to drop the "
                      "table and publish the view.",
                      d->display, kind, weir__buf_cstr(&name));
    weir__buf_free(&name);
    free(kind);
    if (!rc) {
        weir__buf_puts(sql, "BEGIN TRANSACTION; DROP TABLE ");
        weir__phys(sql, d);
        weir__tables_put_forget(sql, d);
        weir__checkpoint_put_reset_target(sql, weir__state_catalog(g, d),
                                          d->display, update_id);
        weir__buf_puts(sql, ";\n");
    }
    return rc;
}

int weir__view_publish(weir_storage *st, const weir_graph *g,
                       const weir_gdataset *d, const char *root_dir,
                       bool reset, const char *update_id, weir_error *err)
{
    if (!d->n_flows)
        return 0;
    const weir_gflow *f = &g->flows[d->flows[0]];
    if (unaliased_column(f, d, err))
        return err ? err->code : WEIR_ESQL;
    weir_resolve_ctx ctx = { .mode = WEIR_RESOLVE_EXECUTE, .g = g, .st = st,
                             .root_dir = root_dir, .probe = st->conn };
    weir_buf sql = WEIR_BUF_INIT;
    char alias[300];
    weir__storage_catalog_alias(alias, sizeof(alias), d->catalog);
    bool table = weir__conn_is_table(st->conn, alias, d->database, d->name);
    if (table) {
        int rc = replace_table(&sql, st, g, d, reset, update_id, err);
        if (rc) {
            weir__buf_free(&sql);
            return rc;
        }
    }
    persist_macros(&sql, d);
    weir__buf_puts(&sql, "CREATE OR REPLACE VIEW ");
    weir__phys(&sql, d);
    weir__buf_puts(&sql, " AS ");
    int rc = weir__resolve_flow_sql(&sql, &ctx, &g->flows[d->flows[0]], err);
    if (!rc && d->def->comment) {
        weir__buf_puts(&sql, "; COMMENT ON VIEW ");
        weir__phys(&sql, d);
        weir__buf_puts(&sql, " IS ");
        weir__buf_put_sql_string(&sql, d->def->comment);
    }
    if (!rc && table)
        weir__buf_puts(&sql, "; COMMIT");
    if (!rc) /* after the update's record, as run_script */
        rc = weir__storage_write_wait(st, err);
    if (!rc && table) { /* a commit to _weir: alone (store/db.c) */
        rc = sql.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                        : weir__conn_exec_alone(st->conn, weir__buf_cstr(&sql),
                                                err);
        if (rc)
            weir__conn_rollback(st->conn);
    } else if (!rc) {
        rc = weir__exec_buf(st->conn, &sql, err);
    }
    weir__buf_free(&sql);
    return rc;
}
