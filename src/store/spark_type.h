/*
 * __weir_spark_type(duckdb_type_name) as a DuckDB function (see
 * spark_type.c); private to src/store, registered with the instance in
 * db.c.
 */
#ifndef WEIR_STORE_SPARK_TYPE_H
#define WEIR_STORE_SPARK_TYPE_H

#include <duckdb.h>

/* Register __weir_spark_type on the instance of c. 0 or WEIR_EENGINE. */
int weir__spark_type_register(duckdb_connection c);

#endif
