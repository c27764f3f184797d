/*
 * The parquet sink: a folder of Parquet files (folder.c), written with
 * DuckDB's COPY. Options: path, partitionBy, compression (snappy, the
 * default, gzip, zstd, lz4, brotli, none).
 */
#include "sinks/internal.h"

static const char *const KEYS[] = { "path", "partitionBy", "compression",
                                    NULL };
static const char *const CODECS[] = { "snappy", "gzip", "zstd",
                                      "lz4",    "brotli", "none",
                                      "uncompressed", NULL };

static int check(const weir_kv *options, size_t n, weir_error *err)
{
    return weir__sink_check_choice(options, n, "compression", CODECS, err);
}

static void copy_options(weir_buf *out, const weir_kv *options, size_t n)
{
    const char *codec = weir__sink_compression(options, n);
    if (codec) {
        weir__buf_puts(out, ", COMPRESSION ");
        weir__buf_put_sql_string(out, codec);
    }
}

static const char *extension(const weir_kv *options, size_t n)
{
    (void)options;
    (void)n;
    return ".parquet";
}

static const weir_folder_format PARQUET = { "parquet", "parquet", KEYS, check,
                                            copy_options, extension };

static int validate(const weir_kv *options, size_t n, weir_error *err)
{
    return weir__folder_validate(&PARQUET, options, n, err);
}

static int stage(weir_conn *conn, const weir_sink_batch *b, const char *sql,
                 int64_t *rows, weir_sink_pending **pending, weir_error *err)
{
    (void)pending; /* nothing kept between stage and publish */
    return weir__folder_stage(&PARQUET, conn, b, sql, rows, err);
}

static int publish(const weir_sink_batch *b, weir_sink_pending *pending,
                   weir_error *err)
{
    (void)pending;
    return weir__folder_publish(&PARQUET, b, err);
}

const weir_sink_format weir__sink_parquet = {
    .name = "parquet",
    .validate = validate,
    .check_columns = weir__sink_check_columns,
    .stage = stage,
    .publish = publish,
    .discard = weir__folder_discard,
};
