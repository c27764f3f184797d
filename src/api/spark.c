/*
 * weir_pipeline_check_spark: what open-source Apache Spark 4.1 would reject
 * or run differently in the pipeline, from the spec (src/spec) and the
 * resolved graph (src/graph), in source order.
 */
#include "api/internal.h"

#include <stdlib.h>
#include <string.h>

/* Spec first, then by path, line and column; equal places keep their
 * order (the index breaks ties, qsort is not stable). */
typedef struct ranked {
    const weir_spark_finding *f;
    size_t index;
    bool spec;
} ranked;

static int compare(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->spec != y->spec)
        return x->spec ? -1 : 1;
    int c = strcmp(x->f->at.path, y->f->at.path);
    if (c)
        return c;
    if (x->f->at.line != y->f->at.line)
        return x->f->at.line < y->f->at.line ? -1 : 1;
    if (x->f->at.column != y->f->at.column)
        return x->f->at.column < y->f->at.column ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int sort_findings(weir__findings *f, size_t n_spec)
{
    if (f->len < 2)
        return 0;
    ranked *r = calloc(f->len, sizeof(*r));
    weir_spark_finding *sorted = calloc(f->len, sizeof(*sorted));
    if (!r || !sorted) {
        free(r);
        free(sorted);
        return WEIR_ENOMEM;
    }
    for (size_t i = 0; i < f->len; i++)
        r[i] = (ranked){ &f->items[i], i, i < n_spec };
    qsort(r, f->len, sizeof(*r), compare);
    for (size_t i = 0; i < f->len; i++)
        sorted[i] = *r[i].f;
    memcpy(f->items, sorted, f->len * sizeof(*sorted));
    free(r);
    free(sorted);
    return 0;
}

int weir_pipeline_check_spark(weir_pipeline *p, weir_spark_report *out,
                              weir_error *err)
{
    if (!p || !out)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "pipeline and out are required");
    if (!p->graph || !p->resolved)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "the graph has not been resolved: start a (dry) run "
                        "first");
    memset(out, 0, sizeof(*out));
    p->spark.len = 0;
    weir__arena_free(&p->spark_arena);
    int rc = p->spec ? weir__spec_spark_findings(&p->spark, &p->spark_arena,
                                                 p->spec)
                     : 0;
    size_t n_spec = p->spark.len;
    if (!rc)
        rc = weir__graph_spark_findings(&p->spark, &p->spark_arena, p->graph);
    if (!rc)
        rc = sort_findings(&p->spark, n_spec);
    if (rc)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    out->findings = p->spark.items;
    out->n_findings = p->spark.len;
    return 0;
}
