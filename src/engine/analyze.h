/*
 * Resolution of a validated graph against DuckDB: each flow's query is
 * translated with pipeline tables standing in as empty tables of their
 * resolved schemas, its output schema is read from DuckDB's binder, and
 * each dataset's schema is inferred (or checked against the declared one).
 * Errors are reported like Spark's UnresolvedPipelineException: each
 * failing flow with its cause and location, and the flows that fail only
 * because something upstream did.
 */
#ifndef WEIR_ENGINE_ANALYZE_H
#define WEIR_ENGINE_ANALYZE_H

#include "graph/graph.h"
#include "store/storage.h"

struct weir_infer_cache;
struct weir_watch;

/* What the problems found before an update runs make of it, one rule
 * for its sources (analysis) and sinks (a dry run's probes): a server that
 * did not answer (WEIR_EIO from the source or sink) fails the update, exit
 * 1; anything else (options, SQL, the graph) makes the pipeline invalid,
 * exit 2, whatever else was unreachable. weir__failures_code: 0 when
 * nothing was found, WEIR_EIO when only servers were unreachable, else
 * WEIR_EGRAPH. */
typedef struct weir_failures {
    size_t unreachable, invalid;
} weir_failures;
void weir__failures_add(weir_failures *f, bool unreachable);
int weir__failures_code(const weir_failures *f);

/* Fills flow and dataset schemas in g. Returns 0, or WEIR_EGRAPH or
 * WEIR_EIO (weir_failures; diags).
 * File schemas inferred go to infer (may be NULL) for the run to reuse.
 * input_tables: external tables are the real storage's (sample runs).
 * Once cancel (store/watch.h; may be NULL) is stopped, resolution stops
 * at its next type probe or flow: WEIR_ECANCELED. */
int weir__analyze(weir_graph *g, weir_storage *st, const char *root_dir,
                  bool input_tables, struct weir_infer_cache *infer,
                  const struct weir_watch *cancel, weir__diags *diags,
                  weir_error *err);

/* Whether id (spark.sql.session.timeZone) names a time zone: Spark's
 * forms (weir__sql_zone_duck), a region DuckDB's ICU knows. 0, or
 * INVALID_CONF_VALUE.TIME_ZONE (WEIR_ESQL) with Spark's message. */
int weir__check_time_zone(weir_conn *c, const char *id, weir_error *err);

#endif
