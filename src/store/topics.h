/*
 * Local Kafka topics: a table of the storage standing in for Kafka
 * brokers when a run has weir_run_options.local_kafka (weir test). The
 * Kafka source reads its partitions, watermarks and messages from it, and
 * the Kafka sink appends to it in its flow's transaction (also in sample
 * runs, whose Kafka sources read the brokers); test fixtures
 * write topics into it and test expectations read it. One table,
 * weir_kafka.messages of the pipeline's default catalog, with the Kafka
 * source's columns; offsets are numbered from 0 per topic and partition.
 */
#ifndef WEIR_STORE_TOPICS_H
#define WEIR_STORE_TOPICS_H

#include "store/db.h"
#include "util/buf.h"
#include "util/error.h"

#define WEIR_TOPICS_DATABASE "weir_kafka"
#define WEIR_TOPICS_TABLE "messages"

/* Append the quoted DuckDB name of the local topics of a catalog. */
void weir__topics_ref(weir_buf *out, const char *catalog);

/* Create the table (and its schema) when missing. */
int weir__topics_create(weir_conn *c, const char *catalog, weir_error *err);

/* Every partition of the local topics: rows (topic, partition, low,
 * high), high being one past the last offset. A missing table is no
 * topic at all (an empty result). */
int weir__topics_partitions(weir_conn *c, const char *catalog, weir_rows **out,
                            weir_error *err);

#endif
