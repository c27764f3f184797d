/*
 * Spark's hash() and xxhash64() as DuckDB functions (see spark_hash.c);
 * private to src/store, registered with the instance in db.c.
 */
#ifndef WEIR_STORE_SPARK_HASH_H
#define WEIR_STORE_SPARK_HASH_H

#include <duckdb.h>

/* Register __weir_spark_hash and __weir_spark_xxhash64 on the instance
 * of c. 0 or WEIR_EENGINE. */
int weir__spark_hash_register(duckdb_connection c);

#endif
