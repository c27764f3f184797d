/*
 * The csv sink: a folder of CSV files (folder.c), written with DuckDB's
 * COPY. Options as Spark's CSV writer names them: path, partitionBy,
 * compression (none, gzip, zstd), header (default false, as in Spark),
 * delimiter or sep (one character, default ','), quote, escape, nullValue.
 */
#include "sinks/internal.h"

#include <string.h>

#include "util/str.h"

static const char *const KEYS[] = { "path",   "partitionBy", "compression",
                                    "header", "delimiter",   "sep",
                                    "quote",  "escape",      "nullValue",
                                    NULL };
static const char *const CODECS[] = { "none", "uncompressed", "gzip", "zstd",
                                      NULL };

static int check(const weir_kvpair *options, size_t n, weir_error *err)
{
    int rc = weir__sink_check_choice(options, n, "compression", CODECS, err);
    bool header = false;
    if (!rc)
        rc = weir__sink_option_bool(options, n, "header", &header, err);
    static const char *const single[] = { "delimiter", "sep", "quote",
                                          "escape" };
    for (size_t i = 0; !rc && i < sizeof(single) / sizeof(*single); i++) {
        const char *v = weir__sink_option(options, n, single[i]);
        if (v && strlen(v) != 1)
            rc = WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                          "option %s = '%s' must be one character", single[i],
                          v);
    }
    if (!rc && weir__sink_option(options, n, "delimiter") &&
        weir__sink_option(options, n, "sep"))
        rc = WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                      "options delimiter and sep are the same option; give one");
    return rc;
}

static void put_option(weir_buf *out, const char *duck, const char *value)
{
    if (!value)
        return;
    weir__buf_printf(out, ", %s ", duck);
    weir__buf_put_sql_string(out, value);
}

static void copy_options(weir_buf *out, const weir_kvpair *options, size_t n)
{
    const char *codec = weir__sink_compression(options, n);
    bool header = false;
    weir__sink_option_bool(options, n, "header", &header, NULL);
    weir__buf_printf(out, ", HEADER %s", header ? "true" : "false");
    put_option(out, "COMPRESSION", codec ? codec : "uncompressed");
    const char *delim = weir__sink_option(options, n, "delimiter");
    put_option(out, "DELIMITER", delim ? delim
                                       : weir__sink_option(options, n, "sep"));
    put_option(out, "QUOTE", weir__sink_option(options, n, "quote"));
    put_option(out, "ESCAPE", weir__sink_option(options, n, "escape"));
    put_option(out, "NULLSTR", weir__sink_option(options, n, "nullValue"));
}

static const char *extension(const weir_kvpair *options, size_t n)
{
    const char *codec = weir__sink_compression(options, n);
    if (codec && weir__str_ieq(codec, "gzip"))
        return ".csv.gz";
    if (codec && weir__str_ieq(codec, "zstd"))
        return ".csv.zst";
    return ".csv";
}

static const weir_folder_format CSV = { "csv", "csv", KEYS, check,
                                        copy_options, extension };

static int validate(const weir_kvpair *options, size_t n, weir_error *err)
{
    return weir__folder_validate(&CSV, options, n, err);
}

static int stage(weir_conn *conn, const weir_sink_batch *b, const char *sql,
                 int64_t *rows, weir_error *err)
{
    return weir__folder_stage(&CSV, conn, b, sql, rows, err);
}

const weir_sink_format weir__sink_csv = {
    "csv", validate, stage, weir__folder_publish, weir__folder_discard
};
