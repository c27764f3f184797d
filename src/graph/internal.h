/*
 * What the files of src/graph share while a graph is being built.
 */
#ifndef WEIR_GRAPH_INTERNAL_H
#define WEIR_GRAPH_INTERNAL_H

#include "graph/graph.h"

typedef struct builder {
    weir_graph *g;
    const weir_defs *defs;
    weir__diags *diags;
    int rc; /* WEIR_EGRAPH once an error was reported, or a hard error */
} builder;

/* Add a graph error located at o (or at pos in o's source). */
void weir__graph_report(builder *b, const weir_origin *o,
                        const weir_sql_pos *pos, const char *cls,
                        const char *fmt, ...) WEIR_PRINTF(5, 6);
/* Spark's quotedString of a display name: `cat`.`db`.`name`. */
const char *weir__graph_quoted(weir_arena *a, const char *display);

static inline bool weir__is_table(weir_dataset_kind k)
{
    return k == WEIR_STREAMING_TABLE || k == WEIR_MATERIALIZED_VIEW;
}

static inline bool weir__is_view(weir_dataset_kind k)
{
    return k == WEIR_TEMPORARY_VIEW || k == WEIR_PERSISTED_VIEW;
}

int weir__graph_dataset_expectations(builder *b, weir_gdataset *d);
/* What each definition holds: clauses its kind takes, unique columns,
 * partitioning, expectations (defs.c and define.c register anything). */
void weir__graph_validate_definitions(builder *b);
/* Catalog and database names the storage can hold apart from weir's own
 * state (src/store/storage.c maps catalogs to files). */
void weir__graph_validate_names(builder *b);
void weir__graph_validate_flow(builder *b, const weir_gflow *f);
void weir__graph_validate_datasets(builder *b);

#endif
