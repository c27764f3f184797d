/*
 * The json sink: a folder of newline-delimited JSON files (folder.c),
 * written with DuckDB's COPY. Options: path, compression (none, the
 * default, gzip, zstd). DuckDB cannot partition JSON output, so
 * partitionBy is not an option here.
 */
#include "sinks/internal.h"

#include "util/str.h"

static const char *const KEYS[] = { "path", "compression", NULL };
static const char *const CODECS[] = { "none", "uncompressed", "gzip", "zstd",
                                      NULL };

static int check(const weir_kv *options, size_t n, weir_error *err)
{
    return weir__sink_check_choice(options, n, "compression", CODECS, err);
}

static void copy_options(weir_buf *out, const weir_kv *options, size_t n)
{
    const char *codec = weir__sink_compression(options, n);
    weir__buf_puts(out, ", COMPRESSION ");
    weir__buf_put_sql_string(out, codec ? codec : "uncompressed");
}

static const char *extension(const weir_kv *options, size_t n)
{
    const char *codec = weir__sink_compression(options, n);
    if (codec && weir__str_ieq(codec, "gzip"))
        return ".json.gz";
    if (codec && weir__str_ieq(codec, "zstd"))
        return ".json.zst";
    return ".json";
}

static const weir_folder_format JSON = { "json", "json", KEYS, check,
                                         copy_options, extension };

static int validate(const weir_kv *options, size_t n, weir_error *err)
{
    return weir__folder_validate(&JSON, options, n, err);
}

static int stage(weir_conn *conn, const weir_sink_batch *b, const char *sql,
                 int64_t *rows, weir_sink_pending **pending, weir_error *err)
{
    (void)pending; /* nothing kept between stage and publish */
    return weir__folder_stage(&JSON, conn, b, sql, rows, err);
}

static int publish(const weir_sink_batch *b, weir_sink_pending *pending,
                   weir_error *err)
{
    (void)pending;
    return weir__folder_publish(&JSON, b, err);
}

const weir_sink_format weir__sink_json = {
    .name = "json",
    .validate = validate,
    .check_columns = weir__sink_check_columns,
    .stage = stage,
    .publish = publish,
    .discard = weir__folder_discard,
};
