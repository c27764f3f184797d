/*
 * Scans (see scan.h): the table function __weir_scan(id) over the scans
 * that connections add. The registry of live scans belongs to the
 * function (DuckDB frees it with the instance); a mutex guards it, as
 * several connections of one instance run queries at once.
 */
#include "store/scan.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duckdb.h>

typedef struct scan_entry {
    int64_t id;
    const weir_conn *conn;
    const weir_db_column *cols;
    size_t n_cols;
    const weir_scan_ops *ops;
    void *payload;
    bool lanes;         /* its readers may have several */
    bool failed;        /* a reader failed: err is its error */
    weir_error err;
    struct scan_entry *next;
} scan_entry;

struct weir_scans {
    pthread_mutex_t lock;
    int64_t last_id;
    scan_entry *live;
    unsigned threads; /* DuckDB's, 0: unknown */
};

static void scans_free(void *p)
{
    weir_scans *s = p;
    while (s->live) {
        scan_entry *e = s->live;
        s->live = e->next;
        free(e);
    }
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* Entry id, under s->lock. */
static scan_entry *find(weir_scans *s, int64_t id)
{
    for (scan_entry *e = s->live; e; e = e->next)
        if (e->id == id)
            return e;
    return NULL;
}

static duckdb_type type_of(const char *t)
{
    return !strcmp(t, "BLOB")        ? DUCKDB_TYPE_BLOB
           : !strcmp(t, "VARCHAR")   ? DUCKDB_TYPE_VARCHAR
           : !strcmp(t, "INTEGER")   ? DUCKDB_TYPE_INTEGER
           : !strcmp(t, "BIGINT")    ? DUCKDB_TYPE_BIGINT
           : !strcmp(t, "TIMESTAMP") ? DUCKDB_TYPE_TIMESTAMP
                                     : DUCKDB_TYPE_INVALID;
}

/* ---- the table function -------------------------------------------------- */

typedef struct bound {
    weir_scans *scans;
    int64_t id;
} bound;

/* One read of a scan. */
typedef struct reading {
    weir_scans *scans;
    int64_t id;
    const weir_scan_ops *ops;
    void *reader;
    size_t n_cols;
    int *out_col;  /* the scan's column -> the output vector, or -1 */
    pthread_mutex_t mu; /* guards next_lane */
    size_t n_lanes, next_lane; /* lanes, and the first not taken yet */
} reading;

/* A thread's part of a read: the lane it fills, if any. */
typedef struct reading_thread {
    size_t lane;
    bool has_lane;
} reading_thread;

struct weir_scan_chunk {
    duckdb_data_chunk chunk;
    const reading *r;
    size_t rows, cap;
    duckdb_vector *vecs; /* by the scan's column; NULL: not read */
};

static void bind_fn(duckdb_bind_info info)
{
    weir_scans *s = duckdb_bind_get_extra_info(info);
    duckdb_value v = duckdb_bind_get_parameter(info, 0);
    int64_t id = v ? duckdb_get_int64(v) : 0;
    if (v)
        duckdb_destroy_value(&v);
    pthread_mutex_lock(&s->lock);
    scan_entry *e = find(s, id);
    bool ok = e != NULL;
    for (size_t i = 0; ok && i < e->n_cols; i++) {
        duckdb_type t = type_of(e->cols[i].type);
        duckdb_logical_type lt =
            t == DUCKDB_TYPE_INVALID ? NULL : duckdb_create_logical_type(t);
        if (!lt) {
            ok = false;
            break;
        }
        duckdb_bind_add_result_column(info, e->cols[i].name, lt);
        duckdb_destroy_logical_type(&lt);
    }
    pthread_mutex_unlock(&s->lock);
    if (!ok) {
        duckdb_bind_set_error(info, "__weir_scan: no such scan (it exists "
                                    "only while weir runs the query)");
        return;
    }
    bound *b = malloc(sizeof(*b));
    if (!b) {
        duckdb_bind_set_error(info, "out of memory");
        return;
    }
    b->scans = s;
    b->id = id;
    duckdb_bind_set_bind_data(info, b, free);
}

static void reading_free(void *p)
{
    reading *r = p;
    if (r->reader)
        r->ops->close(r->reader);
    pthread_mutex_destroy(&r->mu);
    free(r->out_col);
    free(r);
}

/* A reader's error: kept for the query's caller, and DuckDB's text. */
static const char *keep_error(weir_scans *s, int64_t id, const weir_error *err)
{
    pthread_mutex_lock(&s->lock);
    scan_entry *e = find(s, id);
    if (e && !e->failed) {
        e->failed = true;
        weir__error_copy(&e->err, err);
    }
    pthread_mutex_unlock(&s->lock);
    return err->message[0] ? err->message : "reading a scan failed";
}

static void init_fn(duckdb_init_info info)
{
    const bound *b = duckdb_init_get_bind_data(info);
    reading *r = calloc(1, sizeof(*r));
    if (!r) {
        duckdb_init_set_error(info, "out of memory");
        return;
    }
    r->scans = b->scans;
    r->id = b->id;
    pthread_mutex_init(&r->mu, NULL);
    pthread_mutex_lock(&b->scans->lock);
    scan_entry *e = find(b->scans, b->id);
    void *payload = e ? e->payload : NULL;
    r->ops = e ? e->ops : NULL;
    r->n_cols = e ? e->n_cols : 0;
    size_t threads = b->scans->threads ? b->scans->threads : 1;
    size_t max_lanes = e && e->lanes ? threads : 1;
    pthread_mutex_unlock(&b->scans->lock);
    if (!e) {
        free(r);
        duckdb_init_set_error(info, "__weir_scan: the scan was removed");
        return;
    }
    r->out_col = malloc((r->n_cols + 1) * sizeof(int));
    if (!r->out_col) {
        reading_free(r);
        duckdb_init_set_error(info, "out of memory");
        return;
    }
    for (size_t i = 0; i < r->n_cols; i++)
        r->out_col[i] = -1;
    idx_t n = duckdb_init_get_column_count(info);
    for (idx_t i = 0; i < n; i++) {
        idx_t col = duckdb_init_get_column_index(info, i);
        if (col < r->n_cols)
            r->out_col[col] = (int)i;
    }
    weir_error err;
    memset(&err, 0, sizeof(err));
    r->n_lanes = 1;
    if (r->ops->open(payload, max_lanes, &r->reader, &r->n_lanes, &err)) {
        r->reader = NULL;
        const char *msg = keep_error(r->scans, r->id, &err);
        reading_free(r);
        duckdb_init_set_error(info, msg);
        return;
    }
    if (r->n_lanes < 1 || r->n_lanes > max_lanes) {
        reading_free(r);
        duckdb_init_set_error(info, "__weir_scan: a reader asked for more "
                                    "lanes than its scan allows");
        return;
    }
    /* More lanes than threads: a thread takes another when its own ends. */
    duckdb_init_set_max_threads(info, r->n_lanes < threads ? r->n_lanes
                                                           : threads);
    duckdb_init_set_init_data(info, r, reading_free);
}

static void local_init_fn(duckdb_init_info info)
{
    reading_thread *t = calloc(1, sizeof(*t));
    if (!t) {
        duckdb_init_set_error(info, "out of memory");
        return;
    }
    duckdb_init_set_init_data(info, t, free);
}

/* A lane nobody fills yet, for this thread; false when none is left. */
static bool take_lane(reading *r, reading_thread *t)
{
    pthread_mutex_lock(&r->mu);
    t->has_lane = r->next_lane < r->n_lanes;
    if (t->has_lane)
        t->lane = r->next_lane++;
    pthread_mutex_unlock(&r->mu);
    return t->has_lane;
}

static void scan_fn(duckdb_function_info info, duckdb_data_chunk output)
{
    reading *r = duckdb_function_get_init_data(info);
    duckdb_vector vecs[16];
    weir_scan_chunk ch = { output, r, 0, duckdb_vector_size(), vecs };
    if (r->n_cols > 16) {
        duckdb_function_set_error(info, "__weir_scan: too many columns");
        return;
    }
    for (size_t i = 0; i < r->n_cols; i++)
        vecs[i] = r->out_col[i] < 0
                      ? NULL
                      : duckdb_data_chunk_get_vector(output, (idx_t)r->out_col[i]);
    reading_thread *t = duckdb_function_get_local_init_data(info);
    weir_error err;
    memset(&err, 0, sizeof(err));
    /* This thread's lane until it ends, then another: no rows returned
     * means the thread is done, so only when no lane is left. */
    while (ch.rows == 0 && (t->has_lane || take_lane(r, t))) {
        bool done = false;
        if (r->ops->fill(r->reader, t->lane, &ch, &done, &err)) {
            duckdb_data_chunk_set_size(output, 0);
            duckdb_function_set_error(info, keep_error(r->scans, r->id, &err));
            return;
        }
        t->has_lane = !done;
    }
    duckdb_data_chunk_set_size(output, ch.rows);
}

int weir__scans_install(void *duck, weir_scans **out, weir_error *err)
{
    *out = NULL;
    weir_scans *s = calloc(1, sizeof(*s));
    if (!s)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    pthread_mutex_init(&s->lock, NULL);
    duckdb_table_function f = duckdb_create_table_function();
    duckdb_table_function_set_name(f, "__weir_scan");
    duckdb_logical_type bigint = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
    duckdb_table_function_add_parameter(f, bigint);
    duckdb_destroy_logical_type(&bigint);
    duckdb_table_function_set_extra_info(f, s, scans_free);
    duckdb_table_function_set_bind(f, bind_fn);
    duckdb_table_function_set_init(f, init_fn);
    duckdb_table_function_set_local_init(f, local_init_fn);
    duckdb_table_function_set_function(f, scan_fn);
    duckdb_table_function_supports_projection_pushdown(f, true);
    duckdb_state st = duckdb_register_table_function((duckdb_connection)duck, f);
    duckdb_destroy_table_function(&f);
    if (st == DuckDBError) /* DuckDB freed s with the function */
        return WEIR_ERR(err, WEIR_EENGINE, NULL,
                        "cannot register DuckDB table function __weir_scan");
    *out = s;
    return 0;
}

void weir__scans_set_threads(weir_scans *s, unsigned threads)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->threads = threads;
    pthread_mutex_unlock(&s->lock);
}

/* ---- the chunk --------------------------------------------------------------- */

size_t weir__scan_room(const weir_scan_chunk *ch)
{
    return ch->cap - ch->rows;
}

void weir__scan_col_bytes(weir_scan_chunk *ch, size_t col, const void *v,
                          size_t len)
{
    duckdb_vector vec = ch->vecs[col];
    if (!vec)
        return;
    if (!v) {
        weir__scan_col_null(ch, col);
        return;
    }
    duckdb_vector_assign_string_element_len(vec, ch->rows, v, len);
}

void weir__scan_col_i32(weir_scan_chunk *ch, size_t col, int32_t v)
{
    if (ch->vecs[col])
        ((int32_t *)duckdb_vector_get_data(ch->vecs[col]))[ch->rows] = v;
}

void weir__scan_col_i64(weir_scan_chunk *ch, size_t col, int64_t v)
{
    if (ch->vecs[col])
        ((int64_t *)duckdb_vector_get_data(ch->vecs[col]))[ch->rows] = v;
}

void weir__scan_col_null(weir_scan_chunk *ch, size_t col)
{
    duckdb_vector vec = ch->vecs[col];
    if (!vec)
        return;
    duckdb_vector_ensure_validity_writable(vec);
    duckdb_validity_set_row_invalid(duckdb_vector_get_validity(vec), ch->rows);
}

void weir__scan_end_row(weir_scan_chunk *ch)
{
    ch->rows++;
}

/* ---- scans of a connection --------------------------------------------------- */

int weir__scan_add(weir_conn *c, const weir_db_column *cols, size_t n_cols,
                   const weir_scan_ops *ops, void *payload, bool lanes,
                   int64_t *id, weir_error *err)
{
    *id = 0;
    weir_scans *s = weir__conn_scans(c);
    if (!s)
        return WEIR_ERR(err, WEIR_EENGINE, NULL, "no scans on this connection");
    for (size_t i = 0; i < n_cols; i++)
        if (type_of(cols[i].type) == DUCKDB_TYPE_INVALID)
            return WEIR_ERR(err, WEIR_EINVAL, NULL,
                            "a scan cannot have a column of type %s",
                            cols[i].type);
    if (n_cols > 16)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "a scan has at most 16 columns");
    scan_entry *e = calloc(1, sizeof(*e));
    if (!e)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    /* Lanes keep their own order, not one across them (scan.h). */
    int rc = lanes ? weir__conn_exec(c, "SET SESSION preserve_insertion_order "
                                        "= false", NULL, err)
                   : 0;
    if (rc) {
        free(e);
        return rc;
    }
    e->lanes = lanes;
    e->conn = c;
    e->cols = cols;
    e->n_cols = n_cols;
    e->ops = ops;
    e->payload = payload;
    pthread_mutex_lock(&s->lock);
    e->id = ++s->last_id;
    e->next = s->live;
    s->live = e;
    pthread_mutex_unlock(&s->lock);
    *id = e->id;
    return 0;
}

void weir__scan_remove(weir_conn *c, int64_t id)
{
    weir_scans *s = weir__conn_scans(c);
    if (!s || !id)
        return;
    pthread_mutex_lock(&s->lock);
    bool lanes = false, others = false;
    for (scan_entry **p = &s->live; *p;) {
        if ((*p)->id == id) {
            scan_entry *e = *p;
            lanes = e->lanes;
            *p = e->next;
            free(e);
            continue;
        }
        others |= (*p)->conn == c && (*p)->lanes;
        p = &(*p)->next;
    }
    pthread_mutex_unlock(&s->lock);
    /* The connection's statements preserve insertion order again (in an
     * aborted transaction this fails: the next scan sets it anyway). */
    if (lanes && !others)
        weir__conn_exec(c, "RESET SESSION preserve_insertion_order", NULL,
                        NULL);
}

void weir__scan_sql(weir_buf *out, int64_t id)
{
    weir__buf_printf(out, "__weir_scan(%lld)", (long long)id);
}

bool weir__scans_take_error(weir_scans *s, const weir_conn *c, weir_error *err)
{
    if (!s)
        return false;
    bool found = false;
    pthread_mutex_lock(&s->lock);
    for (scan_entry *e = s->live; e && !found; e = e->next)
        if (e->conn == c && e->failed) {
            weir__error_copy(err, &e->err);
            e->failed = false;
            found = true;
        }
    pthread_mutex_unlock(&s->lock);
    return found;
}

bool weir__scans_live(weir_scans *s, const weir_conn *c)
{
    if (!s)
        return false;
    bool found = false;
    pthread_mutex_lock(&s->lock);
    for (scan_entry *e = s->live; e && !found; e = e->next)
        found = e->conn == c;
    pthread_mutex_unlock(&s->lock);
    return found;
}
