/*
 * Spark's crc32() and soundex() as DuckDB functions (see spark_text.c);
 * private to src/store, registered with the instance in db.c.
 */
#ifndef WEIR_STORE_SPARK_TEXT_H
#define WEIR_STORE_SPARK_TEXT_H

#include <duckdb.h>

/* Register __weir_spark_crc32 and __weir_spark_soundex on the instance of
 * c. 0 or WEIR_EENGINE. */
int weir__spark_text_register(duckdb_connection c);

#endif
