/*
 * Object storage credentials and endpoints: the DuckDB secrets weir
 * creates from a pipeline's configuration (Spark's Hadoop keys,
 * spark.hadoop.fs.s3a.*) or, without keys, from AWS's own chain
 * (environment variables, profiles) through DuckDB's aws extension, and
 * httpfs's retries and timeout from Hadoop's keys. Text
 * only: db.c runs the statements once httpfs is loaded. Secret values
 * never leave this module but inside the statements; messages mask them
 * (weir__credentials_mask). See docs/object-storage.md.
 */
#ifndef WEIR_STORE_CREDENTIALS_H
#define WEIR_STORE_CREDENTIALS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/kv.h"

/* The S3 settings of conf (n pairs, keys case-insensitive; Spark's
 * spark.hadoop.fs.s3a.* or Hadoop's fs.s3a.*, per bucket too) and of the
 * environment (AWS_ENDPOINT_URL[_S3], AWS_REGION, AWS_DEFAULT_REGION),
 * as kept by a DuckDB instance (malloc'd; NULL only on OOM). Without
 * keys, requests use AWS's chain when fs.s3a.aws.credentials.provider is
 * set (the whole chain, instance roles too) or the environment or
 * ~/.aws holds credentials (env and config providers only: no slow
 * probe of an instance metadata service); else they are anonymous. */
typedef struct weir_s3_conf weir_s3_conf;
weir_s3_conf *weir__credentials_s3(const weir_kv *conf, size_t n);
void weir__credentials_free(weir_s3_conf *c); /* NULL is fine */

/* Whether the settings use AWS's credential chain (no keys given), which
 * needs DuckDB's aws extension. */
bool weir__credentials_chain(const weir_s3_conf *c);

/* The statements creating the secrets (CREATE OR REPLACE SECRET ...;)
 * appended to out. */
void weir__credentials_sql(const weir_s3_conf *c, weir_buf *out);

/* The statements setting httpfs's retries and timeout for every request
 * (SET GLOBAL http_retries, http_retry_wait_ms, http_retry_backoff,
 * http_timeout) from fs.s3a.retry.limit, fs.s3a.retry.interval and
 * fs.s3a.connection.timeout (weir's defaults: 3 retries, waits of 100 ms
 * growing 4 times each, 30 s), appended to out. */
void weir__credentials_http_sql(const weir_s3_conf *c, weir_buf *out);

/* msg with every secret value of c replaced by "***" (into out). */
void weir__credentials_mask(const weir_s3_conf *c, const char *msg,
                            weir_buf *out);

#endif
