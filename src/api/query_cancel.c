/*
 * Cancelling a query (weir_pipeline_set_query_cancel): while a query of a
 * pipeline with a cancel callback runs, a watch (store/watch.h) asks the
 * callback; once it says yes, query.c sees the query stopped between
 * statements and before every table reference and type probe of the
 * translation, and the watch interrupts DuckDB's statement on the query
 * connection. Owns the pipeline's callback and its running query's watch.
 */
#include "api/internal.h"
#include "store/watch.h"

int weir__query_watch_start(weir_pipeline *p, weir_error *err)
{
    p->qwatch = NULL;
    if (!p->query_cancelled)
        return 0;
    return weir__watch_start(&p->qwatch, p->query_cancelled,
                             p->query_cancel_payload, err);
}

void weir__query_watch_conn(weir_pipeline *p, weir_conn *conn)
{
    weir__watch_conn(p->qwatch, conn);
}

bool weir__query_cancelled(const weir_pipeline *p)
{
    return weir__watch_stopped(p->qwatch);
}

int weir__query_cancel_error(weir_error *err)
{
    return WEIR_ERR(err, WEIR_ECANCELED, "OPERATION_CANCELED",
                    "Operation has been canceled: the query was stopped "
                    "before it finished.");
}

int weir__query_watch_end(weir_pipeline *p, int rc, weir_error *err)
{
    if (!p->qwatch)
        return rc;
    bool stopped = weir__watch_end(p->qwatch);
    p->qwatch = NULL;
    /* A statement the interrupt stopped fails with DuckDB's own words. */
    if (rc && rc != WEIR_ECANCELED && stopped)
        rc = weir__query_cancel_error(err);
    return rc;
}

int weir_pipeline_set_query_cancel(weir_pipeline *p,
                                   bool (*cancelled)(void *payload),
                                   void *payload)
{
    if (!p)
        return WEIR_EINVAL;
    p->query_cancelled = cancelled;
    p->query_cancel_payload = cancelled ? payload : NULL;
    return 0;
}
