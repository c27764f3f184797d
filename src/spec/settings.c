/*
 * weir's own configuration keys, `weir.duckdb.*`: which exist and which
 * values they take. The one place that says so: the spec loader reports a
 * bad value at its line and column, weir_pipeline_create and
 * weir_session_open refuse one given through the C API, and the engine
 * only ever sees values checked here.
 */
#include "spec/spec.h"

#include <stdint.h>
#include <stdio.h>
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

int weir__spec_check_setting(const char *key, const char *value, char *why,
                             size_t n)
{
    if (!weir__str_istarts(key, "weir.duckdb."))
        return 0;
    const char *v = value ? value : "";
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
