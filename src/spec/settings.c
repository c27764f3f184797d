/*
 * The configuration keys weir reads: its own, `weir.duckdb.*` (which exist
 * and which values they take), and the Spark keys it acts on
 * (`pipelines.*`, `spark.sql.pipelines.*`, a few `spark.sql.*`: which
 * values they take). The one place that says so: the spec loader reports a
 * bad value at its line and column, a SQL file's SET at the statement,
 * the graph a flow's own conf (Python, the C API) at the flow,
 * weir_pipeline_create and weir_session_open refuse one given through the
 * C API, and the engine reads values with the parsers here, so it only
 * ever sees values checked here. Other keys are Spark's, passed through.
 */
#include "spec/spec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

#define MAX_THREADS 1024
#define MIN_MEMORY (4ull << 20) /* 16 of DuckDB's 256 KiB blocks */
#define MAX_MEMORY (1ull << 50)  /* 1 PiB */

static bool parse_threads(const char *v, char *why, size_t n)
{
    unsigned long long u;
    if (!weir__str_parse_u64(v, &u) || u == 0 || u > MAX_THREADS) {
        snprintf(why, n,
                 "weir.duckdb.threads must be a whole number of threads "
                 "from 1 to %d, got '%.64s'",
                 MAX_THREADS, v);
        return false;
    }
    return true;
}

/* DuckDB's size units, as its memory_limit setting spells them. */
static unsigned long long unit_bytes(const char *u)
{
    static const struct {
        const char *name;
        unsigned long long bytes;
    } units[] = { { "b", 1 },          { "bytes", 1 },        { "k", 1000 },
                  { "kb", 1000 },      { "kib", 1ull << 10 }, { "m", 1000000 },
                  { "mb", 1000000 },   { "mib", 1ull << 20 }, { "g", 1000000000 },
                  { "gb", 1000000000 },{ "gib", 1ull << 30 }, { "t", 1000000000000ull },
                  { "tb", 1000000000000ull }, { "tib", 1ull << 40 } };
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (weir__str_ieq(u, units[i].name))
            return units[i].bytes;
    return 0;
}

/* "<number>[.<fraction>] <unit>", e.g. 512MB, 1.5 GiB. */
static bool parse_size(const char *v, unsigned long long *out)
{
    const char *p = v;
    while (*p == ' ')
        p++;
    double x = 0;
    bool digits = false;
    for (; *p >= '0' && *p <= '9'; p++, digits = true)
        x = x * 10 + (*p - '0');
    if (*p == '.') {
        double f = 0.1;
        for (p++; *p >= '0' && *p <= '9'; p++, digits = true, f /= 10)
            x += (*p - '0') * f;
    }
    if (!digits || x > 1e18)
        return false;
    while (*p == ' ')
        p++;
    char unit[8];
    size_t k = 0;
    while (((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') && k + 1 < sizeof(unit))
        unit[k++] = *p++;
    unit[k] = '\0';
    while (*p == ' ')
        p++;
    unsigned long long u = unit_bytes(unit);
    if (*p || !u || x * (double)u > 2e18)
        return false;
    *out = (unsigned long long)(x * (double)u);
    return true;
}

static bool check_memory(const char *v, char *why, size_t n)
{
    unsigned long long bytes = 0;
    if (!parse_size(v, &bytes)) {
        snprintf(why, n,
                 "weir.duckdb.memory_limit must be a size with a unit "
                 "(B, KB, MB, GB, TB or KiB, MiB, GiB, TiB), e.g. '4GB', got "
                 "'%.64s'",
                 v);
        return false;
    }
    if (bytes < MIN_MEMORY || bytes > MAX_MEMORY) {
        snprintf(why, n,
                 "weir.duckdb.memory_limit must be from 4MiB to 1PiB, got "
                 "'%.64s'",
                 v);
        return false;
    }
    return true;
}

bool weir__spec_setting_seconds(const char *v, double *out)
{
    return weir__str_parse_duration(v, 1, out);
}

bool weir__spec_setting_count(const char *v, long long max, long long *out)
{
    unsigned long long u;
    if (!weir__str_parse_u64(v, &u) || u > (unsigned long long)max)
        return false;
    *out = (long long)u;
    return true;
}

/* The Spark keys weir acts on, and what their values must be. */
typedef enum { V_BOOL, V_COUNT, V_POSITIVE, V_SECONDS, V_MILLIS } value_kind;

static const struct {
    const char *key;
    value_kind kind;
    long long max; /* V_COUNT, V_POSITIVE */
    const char *what;
} KEYS[] = {
    { "pipelines.incremental", V_BOOL, 0, NULL },
    { "pipelines.incremental.minInputRows", V_COUNT, WEIR_SETTING_MAX_ROWS,
      "a whole number of rows" },
    { "pipelines.incompatibleViewCheck.enabled", V_BOOL, 0, NULL },
    { "spark.sql.pipelines.execution.maxConcurrentFlows", V_POSITIVE,
      WEIR_SETTING_MAX_COUNT, "a whole number of flows" },
    { "spark.sql.pipelines.maxFlowRetryAttempts", V_COUNT,
      WEIR_SETTING_MAX_COUNT, "a whole number of retries" },
    { "spark.sql.pipelines.execution.watchdog.minRetryTime", V_SECONDS, 0, NULL },
    { "spark.sql.pipelines.execution.watchdog.maxRetryTime", V_SECONDS, 0, NULL },
    { "spark.sql.ansi.enabled", V_BOOL, 0, NULL },
    { "spark.sql.ansi.enforceReservedKeywords", V_BOOL, 0, NULL },
    { "spark.sql.allowAutoGeneratedAliasForView", V_BOOL, 0, NULL },
    { "spark.sql.variable.substitute", V_BOOL, 0, NULL },
    /* Hadoop's S3A keys weir passes to httpfs (store/credentials.c), in
     * their fs.s3a.* spelling (spark.hadoop. is taken off) */
    { "fs.s3a.retry.limit", V_COUNT, 100, "a whole number of retries" },
    { "fs.s3a.retry.interval", V_MILLIS, 0, NULL },
    { "fs.s3a.connection.timeout", V_MILLIS, 0, NULL },
};

static int check_spark_key(const char *key, const char *v, char *why, size_t n)
{
    if (weir__str_istarts(key, "spark.hadoop.fs.s3a."))
        key += strlen("spark.hadoop.");
    for (size_t i = 0; i < sizeof(KEYS) / sizeof(KEYS[0]); i++) {
        if (!weir__str_ieq(key, KEYS[i].key))
            continue;
        bool b;
        long long c;
        double s;
        switch (KEYS[i].kind) {
        case V_BOOL:
            if (weir__str_parse_bool(v, &b))
                return 0;
            snprintf(why, n, "%s must be true or false, got '%.64s'",
                     KEYS[i].key, v);
            return 1;
        case V_COUNT:
        case V_POSITIVE: {
            long long lo = KEYS[i].kind == V_POSITIVE ? 1 : 0;
            if (weir__spec_setting_count(v, KEYS[i].max, &c) && c >= lo)
                return 0;
            snprintf(why, n, "%s must be %s from %lld to %lld, got '%.64s'",
                     KEYS[i].key, KEYS[i].what, lo, KEYS[i].max, v);
            return 1;
        }
        case V_SECONDS:
            if (weir__spec_setting_seconds(v, &s))
                return 0;
            snprintf(why, n,
                     "%s must be a duration: a number of seconds, or with a "
                     "unit ms, s, m or h (e.g. '500ms', '5s'), got '%.64s'",
                     KEYS[i].key, v);
            return 1;
        case V_MILLIS:
            if (weir__str_parse_duration(v, 1e-3, &s))
                return 0;
            snprintf(why, n,
                     "%s must be a duration: a number of milliseconds, or "
                     "with a unit ms, s, m or h (e.g. '500ms', '5s'), got "
                     "'%.64s'",
                     KEYS[i].key, v);
            return 1;
        }
    }
    return 0;
}

int weir__spec_check_setting(const char *key, const char *value, char *why,
                             size_t n)
{
    const char *v = value ? value : "";
    if (!weir__str_istarts(key, "weir.duckdb."))
        return check_spark_key(key, v, why, n);
    if (weir__str_ieq(key, "weir.duckdb.threads"))
        return parse_threads(v, why, n) ? 0 : 1;
    if (weir__str_ieq(key, "weir.duckdb.memory_limit"))
        return check_memory(v, why, n) ? 0 : 1;
    snprintf(why, n,
             "unknown setting %.100s: weir knows weir.duckdb.threads and "
             "weir.duckdb.memory_limit",
             key);
    return 2;
}
