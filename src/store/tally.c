/*
 * Tallies: counting a statement's rows by boolean flags while the
 * statement runs, through one volatile SQL function, __weir_tally(token,
 * keep, flag...), registered once per DuckDB instance. The function
 * returns keep and adds, per call (a data chunk), the rows it saw, the rows
 * with keep false and each flag's false rows to the open tally named by
 * token. Tallies live in a registry owned by the instance (weir_db), so
 * concurrent flows on their own connections count apart. The engine uses
 * it to evaluate expectations in the statement that writes the batch.
 */
#include "store/tally.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "weir.h"

struct weir_tally {
    weir_tallies *reg;
    int64_t token;
    size_t n_flags;
    int64_t rows, rejected;
    int64_t failed[]; /* n_flags */
};

struct weir_tallies {
    pthread_mutex_t mu;
    WEIR_VEC(weir_tally *) open;
    int64_t next_token;
};

int weir__tallies_new(weir_tallies **out)
{
    weir_tallies *r = calloc(1, sizeof(*r));
    if (!r || pthread_mutex_init(&r->mu, NULL)) {
        free(r);
        *out = NULL;
        return WEIR_ENOMEM;
    }
    r->next_token = 1;
    *out = r;
    return 0;
}

void weir__tallies_free(weir_tallies *r)
{
    if (!r)
        return;
    pthread_mutex_destroy(&r->mu);
    WEIR_VEC_FREE(&r->open);
    free(r);
}

/* The open tally with this token; the caller holds r->mu. */
static weir_tally *find(weir_tallies *r, int64_t token)
{
    for (size_t i = 0; i < r->open.len; i++)
        if (r->open.items[i]->token == token)
            return r->open.items[i];
    return NULL;
}

static bool flag_at(duckdb_vector v, const uint64_t *valid, idx_t row)
{
    const bool *data = (const bool *)duckdb_vector_get_data(v);
    return (!valid || duckdb_validity_row_is_valid((uint64_t *)valid, row)) &&
           data[row];
}

enum { MAX_FLAGS = 256 };

static void tally_fn(duckdb_function_info info, duckdb_data_chunk input,
                     duckdb_vector output)
{
    weir_tallies *r = duckdb_scalar_function_get_extra_info(info);
    idx_t n = duckdb_data_chunk_get_size(input);
    idx_t cols = duckdb_data_chunk_get_column_count(input);
    bool *keep_out = (bool *)duckdb_vector_get_data(output);
    if (cols < 2 || cols - 2 > MAX_FLAGS) {
        duckdb_scalar_function_set_error(info, "__weir_tally: bad arguments");
        return;
    }
    size_t n_flags = (size_t)(cols - 2);
    int64_t failed[MAX_FLAGS];
    memset(failed, 0, n_flags * sizeof(failed[0]));
    int64_t rejected = 0, token = 0;
    if (n) {
        duckdb_vector tv = duckdb_data_chunk_get_vector(input, 0);
        const uint64_t *tvalid = duckdb_vector_get_validity(tv);
        if (!tvalid || duckdb_validity_row_is_valid((uint64_t *)tvalid, 0))
            token = ((const int64_t *)duckdb_vector_get_data(tv))[0];
    }
    duckdb_vector kv = duckdb_data_chunk_get_vector(input, 1);
    const uint64_t *kvalid = duckdb_vector_get_validity(kv);
    for (idx_t row = 0; row < n; row++) {
        keep_out[row] = flag_at(kv, kvalid, row);
        rejected += !keep_out[row];
    }
    for (size_t f = 0; f < n_flags; f++) {
        duckdb_vector v = duckdb_data_chunk_get_vector(input, f + 2);
        const uint64_t *valid = duckdb_vector_get_validity(v);
        for (idx_t row = 0; row < n; row++)
            failed[f] += !flag_at(v, valid, row);
    }
    if (!n)
        return;
    pthread_mutex_lock(&r->mu);
    weir_tally *t = find(r, token);
    bool ok = t && t->n_flags == n_flags;
    if (ok) {
        t->rows += (int64_t)n;
        t->rejected += rejected;
        for (size_t f = 0; f < n_flags; f++)
            t->failed[f] += failed[f];
    }
    pthread_mutex_unlock(&r->mu);
    if (!ok)
        duckdb_scalar_function_set_error(
            info, "__weir_tally is weir's own function, for its writes only");
}

int weir__tallies_register(weir_tallies *r, duckdb_connection c)
{
    duckdb_scalar_function fn = duckdb_create_scalar_function();
    duckdb_scalar_function_set_name(fn, "__weir_tally");
    duckdb_logical_type big = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
    duckdb_logical_type boolean =
        duckdb_create_logical_type(DUCKDB_TYPE_BOOLEAN);
    duckdb_scalar_function_add_parameter(fn, big);
    duckdb_scalar_function_set_varargs(fn, boolean);
    duckdb_scalar_function_set_return_type(fn, boolean);
    /* Volatile: run once per row where it stands; DuckDB keeps filters on
     * its result above it instead of pushing them into the query. */
    duckdb_scalar_function_set_volatile(fn);
    duckdb_scalar_function_set_special_handling(fn);
    duckdb_scalar_function_set_extra_info(fn, r, NULL);
    duckdb_scalar_function_set_function(fn, tally_fn);
    duckdb_state s = duckdb_register_scalar_function(c, fn);
    duckdb_destroy_scalar_function(&fn);
    duckdb_destroy_logical_type(&big);
    duckdb_destroy_logical_type(&boolean);
    return s == DuckDBError ? WEIR_EENGINE : 0;
}

int weir__tally_open(weir_tally **out, weir_tallies *r, size_t n_flags)
{
    *out = NULL;
    if (n_flags > MAX_FLAGS)
        return WEIR_EINVAL;
    weir_tally *t = calloc(1, sizeof(*t) + n_flags * sizeof(int64_t));
    if (!t)
        return WEIR_ENOMEM;
    t->reg = r;
    t->n_flags = n_flags;
    pthread_mutex_lock(&r->mu);
    t->token = r->next_token;
    int rc = WEIR_VEC_PUSH(&r->open, t);
    if (!rc)
        r->next_token++;
    pthread_mutex_unlock(&r->mu);
    if (rc) {
        free(t);
        return rc;
    }
    *out = t;
    return 0;
}

int64_t weir__tally_token(const weir_tally *t)
{
    return t->token;
}

void weir__tally_read(weir_tally *t, int64_t *rows, int64_t *rejected,
                      int64_t *failed)
{
    pthread_mutex_lock(&t->reg->mu);
    *rows = t->rows;
    *rejected = t->rejected;
    memcpy(failed, t->failed, t->n_flags * sizeof(int64_t));
    pthread_mutex_unlock(&t->reg->mu);
}

void weir__tally_close(weir_tally *t)
{
    if (!t)
        return;
    weir_tallies *r = t->reg;
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < r->open.len; i++) {
        if (r->open.items[i] == t) {
            r->open.items[i] = r->open.items[--r->open.len];
            break;
        }
    }
    pthread_mutex_unlock(&r->mu);
    free(t);
}
