/*
 * The range source, STREAM range(start, end[, step]) with literal
 * integers: a fixed sequence whose position is a row number, so the first
 * batch reads it all and later batches nothing.
 */
#include "sources/source.h"

#include <stdlib.h>

/* The bounds of range(...) with literal integer arguments: rows start,
 * start + step, ... below end. False when an argument is not one. */
static bool bounds(const weir_sql_tvf *call, long long *start, long long *end,
                   long long *step)
{
    long long v[3] = { 0, 0, 1 };
    size_t n = call->n_args > 3 ? 3 : call->n_args;
    if (n < 1)
        return false;
    for (size_t i = 0; i < n; i++) {
        const weir_sql_arg *a = &call->args[i];
        if (a->kind != WEIR_SQL_ARG_NUMBER || !a->text)
            return false;
        char *endp;
        long long x = strtoll(a->text, &endp, 10);
        if (*endp && *endp != 'L' && *endp != 'l')
            return false;
        v[n == 1 ? 1 : i] = x;
    }
    if (v[2] == 0)
        return false;
    *start = v[0];
    *end = v[1];
    *step = v[2];
    return true;
}

static int not_literal(weir_error *err)
{
    return WEIR_ERR(err, WEIR_ESQL, "UNSUPPORTED_STREAMING_SOURCE",
                    "STREAM range(...) needs literal integer arguments");
}

static bool accepts(const weir_input *in)
{
    return in->source == WEIR_INPUT_RANGE;
}

static const char *key(weir_arena *a, const weir_graph *g,
                       const weir_input *in, const char *root_dir)
{
    (void)a;
    (void)g;
    (void)root_dir;
    return in->external;
}

static int plan(const weir_source_ctx *c, const weir_input *in,
                weir_source_batch *b)
{
    long long start, end, step;
    if (!bounds(in->tvf, &start, &end, &step))
        return not_literal(c->err);
    long long n = step > 0 ? (end - start + step - 1) / step
                           : (start - end - step - 1) / -step;
    b->end = n > 0 ? n : 0;
    bool none;
    int64_t epoch;
    int rc = weir__checkpoint_source_end(c->cp, c->gen, b->key, &b->start,
                                         &epoch, &none);
    if (!rc && b->start > b->end)
        b->start = b->end;
    return rc;
}

/* The rows [b->start, b->end) of the sequence. */
static int render(weir_buf *out, const weir_source_read *r,
                  const weir_source_batch *b, weir_error *err)
{
    long long start, end, step;
    if (!bounds(r->in->tvf, &start, &end, &step))
        return not_literal(err);
    (void)end;
    weir__buf_printf(out,
                     "(SELECT \"range\" AS \"id\" FROM range(%lld, %lld, %lld))",
                     start + (long long)b->start * step,
                     start + (long long)b->end * step, step);
    return 0;
}

const weir_source_kind weir__source_range = {
    .name = "range",
    .accepts = accepts,
    .key = key,
    .plan = plan,
    .render = render,
    .progress = weir__source_progress_offsets,
};
