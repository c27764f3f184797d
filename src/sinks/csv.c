/*
 * The csv sink: a folder of CSV files (folder.c), written with DuckDB's
 * COPY. Options as Spark's CSV writer names them: path, partitionBy,
 * compression (none, gzip, zstd), header (default false, as in Spark),
 * delimiter or sep (one character, default ','), quote, escape, nullValue.
 */
#include "sinks/internal.h"

#include <stdio.h>
#include <string.h>

#include "util/str.h"

static const char *const KEYS[] = { "path",   "partitionBy", "compression",
                                    "header", "delimiter",   "sep",
                                    "quote",  "escape",      "nullValue",
                                    NULL };
static const char *const CODECS[] = { "none", "uncompressed", "gzip", "zstd",
                                      NULL };

/* The option as written, or its default (DuckDB's: ',' and '"' for both
 * the quote and the escape character). */
static const char *char_option(const weir_kv *options, size_t n,
                               const char *key, const char **name)
{
    const char *v = weir__kv_get(options, n, key);
    *name = key;
    if (!v && !strcmp(key, "delimiter")) {
        v = weir__kv_get(options, n, "sep");
        *name = v ? "sep" : "delimiter";
    }
    if (v)
        return v;
    *name = NULL; /* the default */
    return !strcmp(key, "delimiter") ? "," : "\"";
}

/* Say which option (or default) a character comes from. */
static void describe(char *out, size_t size, const char *name, const char *key,
                     const char *v)
{
    if (name)
        snprintf(out, size, "option %s = '%s'", name, v);
    else
        snprintf(out, size, "the default %s '%s'", key, v);
}

static int check(const weir_kv *options, size_t n, weir_error *err)
{
    int rc = weir__sink_check_choice(options, n, "compression", CODECS, err);
    bool header = false;
    if (!rc)
        rc = weir__sink_option_bool(options, n, "header", &header, err);
    static const char *const single[] = { "delimiter", "sep", "quote",
                                          "escape" };
    for (size_t i = 0; !rc && i < sizeof(single) / sizeof(*single); i++) {
        const char *v = weir__kv_get(options, n, single[i]);
        if (v && (strlen(v) != 1 || (unsigned char)v[0] >= 0x80))
            rc = WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                          "option %s = '%s' must be one ASCII character",
                          single[i], v);
        else if (v && (v[0] == '\n' || v[0] == '\r'))
            rc = WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                          "option %s must not be a line break: rows are "
                          "separated by line breaks",
                          single[i]);
    }
    if (!rc && weir__kv_get(options, n, "delimiter") &&
        weir__kv_get(options, n, "sep"))
        rc = WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                      "options delimiter and sep are the same option; give one");
    if (rc)
        return rc;
    /* A character with two roles makes the output unreadable (DuckDB
     * refuses it when the batch is written). */
    const char *dn, *qn, *en;
    const char *d = char_option(options, n, "delimiter", &dn);
    const char *q = char_option(options, n, "quote", &qn);
    const char *e = char_option(options, n, "escape", &en);
    const char *const other[2] = { q, e };
    const char *const other_name[2] = { qn, en };
    const char *const other_key[2] = { "quote", "escape" };
    for (int k = 0; k < 2; k++) {
        if (other[k][0] != d[0])
            continue;
        char a[64], b[64];
        describe(a, sizeof(a), dn, "delimiter", d);
        describe(b, sizeof(b), other_name[k], other_key[k], other[k]);
        return WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                        "%s is the same character as %s: the delimiter must "
                        "differ from the quote and escape characters",
                        a, b);
    }
    const char *nv = weir__kv_get(options, n, "nullValue");
    if (nv && (strchr(nv, '\n') || strchr(nv, '\r')))
        return WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                        "option nullValue must not hold a line break");
    const char *const all[3] = { d, q, e };
    const char *const all_name[3] = { dn, qn, en };
    const char *const all_key[3] = { "delimiter", "quote", "escape" };
    for (int k = 0; nv && k < 3; k++) {
        if (!strchr(nv, all[k][0]))
            continue;
        char a[64];
        describe(a, sizeof(a), all_name[k], all_key[k], all[k]);
        return WEIR_ERR(err, WEIR_EINVAL, "INVALID_SINK_OPTION",
                        "option nullValue = '%s' contains %s: a NULL would "
                        "read back as a value",
                        nv, a);
    }
    return 0;
}

static void put_option(weir_buf *out, const char *duck, const char *value)
{
    if (!value)
        return;
    weir__buf_printf(out, ", %s ", duck);
    weir__buf_put_sql_string(out, value);
}

static void copy_options(weir_buf *out, const weir_kv *options, size_t n)
{
    const char *codec = weir__sink_compression(options, n);
    bool header = false;
    weir__sink_option_bool(options, n, "header", &header, NULL);
    weir__buf_printf(out, ", HEADER %s", header ? "true" : "false");
    put_option(out, "COMPRESSION", codec ? codec : "uncompressed");
    const char *delim = weir__kv_get(options, n, "delimiter");
    put_option(out, "DELIMITER", delim ? delim
                                       : weir__kv_get(options, n, "sep"));
    put_option(out, "QUOTE", weir__kv_get(options, n, "quote"));
    put_option(out, "ESCAPE", weir__kv_get(options, n, "escape"));
    put_option(out, "NULLSTR", weir__kv_get(options, n, "nullValue"));
}

static const char *extension(const weir_kv *options, size_t n)
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

static int validate(const weir_kv *options, size_t n, weir_error *err)
{
    return weir__folder_validate(&CSV, options, n, err);
}

static int stage(weir_conn *conn, const weir_sink_batch *b, const char *sql,
                 int64_t *rows, weir_sink_pending **pending, weir_error *err)
{
    (void)pending; /* nothing kept between stage and publish */
    return weir__folder_stage(&CSV, conn, b, sql, rows, err);
}

static int publish(const weir_sink_batch *b, weir_sink_pending *pending,
                   weir_error *err)
{
    (void)pending;
    return weir__folder_publish(&CSV, b, err);
}

const weir_sink_format weir__sink_csv = {
    .name = "csv",
    .validate = validate,
    .check_columns = weir__sink_check_columns,
    .stage = stage,
    .publish = publish,
    .discard = weir__folder_discard,
};
