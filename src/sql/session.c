/*
 * The DuckDB statements weir runs on every connection: Spark's session
 * settings (UTC time zone, NULLS FIRST for ASC / LAST for DESC) and the
 * weir_* macros the translator emits for Spark functions DuckDB lacks or
 * spells with other semantics. Typed macro overloads dispatch on argument
 * types (e.g. an integral cast truncates doubles but keeps integers).
 */
#include "internal.h"

/* One long literal by design: callers run it as a single batch. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
#endif
static const char SETUP[] =
    "SET TimeZone = 'UTC';\n"
    "SET default_null_order = 'nulls_first_on_asc_last_on_desc';\n"
    /* CAST(x AS <integral>): Spark truncates fractions, DuckDB rounds. */
    "CREATE OR REPLACE TEMP MACRO weir_trunc_for_int"
    "(a TINYINT) AS a, (a SMALLINT) AS a, (a INTEGER) AS a, (a BIGINT) AS a,"
    " (a HUGEINT) AS a, (a UTINYINT) AS a, (a USMALLINT) AS a,"
    " (a UINTEGER) AS a, (a UBIGINT) AS a, (a DOUBLE) AS trunc(a),"
    " (a FLOAT) AS trunc(a), (a DECIMAL) AS trunc(a),"
    " (a BOOLEAN) AS CAST(a AS INTEGER),"
    " (a TIMESTAMP) AS floor(epoch(a)),"
    " (a DATE) AS error('Cannot cast a DATE to an integral type'),"
    " (a) AS a;\n"
    /* sum() of integers is BIGINT in Spark, HUGEINT in DuckDB. */
    "CREATE OR REPLACE TEMP MACRO weir_sum"
    "(a TINYINT) AS CAST(sum(a) AS BIGINT), (a SMALLINT) AS CAST(sum(a) AS BIGINT),"
    " (a INTEGER) AS CAST(sum(a) AS BIGINT), (a BIGINT) AS CAST(sum(a) AS BIGINT),"
    " (a) AS sum(a);\n"
    /* a div b: truncating integral division. */
    "CREATE OR REPLACE TEMP MACRO weir_div"
    "(a BIGINT, b BIGINT) AS a // b,"
    " (a, b) AS CAST(trunc(a / b) AS BIGINT);\n"
    /* x[i]: 0-based for arrays, by key for maps. */
    "CREATE OR REPLACE TEMP MACRO weir_at"
    "(a, i VARCHAR) AS a[i],"
    " (a, i TINYINT) AS CASE WHEN typeof(a) LIKE 'MAP(%' THEN a[i] ELSE a[i + 1] END,"
    " (a, i SMALLINT) AS CASE WHEN typeof(a) LIKE 'MAP(%' THEN a[i] ELSE a[i + 1] END,"
    " (a, i INTEGER) AS CASE WHEN typeof(a) LIKE 'MAP(%' THEN a[i] ELSE a[i + 1] END,"
    " (a, i BIGINT) AS CASE WHEN typeof(a) LIKE 'MAP(%' THEN a[i] ELSE a[i + 1] END,"
    " (a, i) AS a[i];\n"
    /* size(): arrays and maps (NULL for NULL, as Spark 4 with ANSI). */
    "CREATE OR REPLACE TEMP MACRO weir_size"
    "(a VARCHAR[]) AS len(a), (a INTEGER[]) AS len(a), (a BIGINT[]) AS len(a),"
    " (a DOUBLE[]) AS len(a), (a BOOLEAN[]) AS len(a), (a DATE[]) AS len(a),"
    " (a TIMESTAMP[]) AS len(a), (a SMALLINT[]) AS len(a),"
    " (a TINYINT[]) AS len(a), (a FLOAT[]) AS len(a),"
    " (a) AS CASE WHEN a IS NULL THEN NULL"
    " WHEN typeof(a) LIKE 'MAP(%' THEN len(json_keys(to_json(a)))"
    " ELSE json_array_length(to_json(a)) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_array_contains(a, v) AS"
    " CASE WHEN a IS NULL OR v IS NULL THEN NULL"
    " WHEN list_contains(a, v) THEN true"
    " WHEN list_position(a, NULL) IS NOT NULL THEN NULL ELSE false END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_array_distinct(a) AS"
    " list_filter(a, lambda x, i: list_position(a[1:i - 1], x) IS NULL);\n"
    "CREATE OR REPLACE TEMP MACRO weir_array_intersect(a, b) AS"
    " weir_array_distinct(list_filter(a, lambda x: list_position(b, x) IS NOT NULL));\n"
    "CREATE OR REPLACE TEMP MACRO weir_array_except(a, b) AS"
    " weir_array_distinct(list_filter(a, lambda x: list_position(b, x) IS NULL));\n"
    "CREATE OR REPLACE TEMP MACRO weir_array_position(a, v) AS"
    " CASE WHEN a IS NULL OR v IS NULL THEN NULL"
    " ELSE CAST(coalesce(list_position(a, v), 0) AS BIGINT) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_array_remove(a, v) AS"
    " CASE WHEN v IS NULL THEN NULL"
    " ELSE list_filter(a, lambda x: x IS DISTINCT FROM v) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_slice(a, s, l) AS"
    " CASE WHEN s = 0 THEN error('Unexpected value for start in function slice:"
    " SQL array indices start at 1.')"
    " WHEN l < 0 THEN error('Unexpected value for length in function slice:"
    " length must be greater than or equal to 0.')"
    " WHEN s > 0 THEN list_slice(a, s, s + l - 1)"
    " ELSE list_slice(a, len(a) + s + 1, len(a) + s + l) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_sequence"
    "(a DATE, b DATE) AS list_transform(generate_series(CAST(a AS TIMESTAMP),"
    " CAST(b AS TIMESTAMP), CASE WHEN a <= b THEN INTERVAL 1 DAY"
    " ELSE INTERVAL (-1) DAY END), lambda x: CAST(x AS DATE)),"
    " (a, b) AS generate_series(a, b, CASE WHEN a <= b THEN 1 ELSE -1 END),"
    " (a DATE, b DATE, s) AS list_transform(generate_series(CAST(a AS TIMESTAMP),"
    " CAST(b AS TIMESTAMP), s), lambda x: CAST(x AS DATE)),"
    " (a, b, s) AS generate_series(a, b, s);\n"
    /* substring with Spark's rules for position 0 and negative positions. */
    "CREATE OR REPLACE TEMP MACRO weir_substr_start(s, p) AS"
    " CASE WHEN p > 0 THEN CAST(p AS BIGINT) - 1"
    " WHEN p < 0 THEN length(s) + p ELSE 0 END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_substr"
    "(s, p, l) AS CASE WHEN s IS NULL OR p IS NULL OR l IS NULL THEN NULL"
    " WHEN greatest(weir_substr_start(s, p), 0) >= weir_substr_start(s, p) + l"
    " THEN '' ELSE substring(s, greatest(weir_substr_start(s, p), 0) + 1,"
    " weir_substr_start(s, p) + l - greatest(weir_substr_start(s, p), 0)) END,"
    " (s, p) AS CASE WHEN s IS NULL OR p IS NULL THEN NULL"
    " ELSE substring(s, greatest(weir_substr_start(s, p), 0) + 1) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_locate(sub, s, pos) AS"
    " CASE WHEN sub IS NULL OR s IS NULL THEN NULL"
    " WHEN pos IS NULL OR pos < 1 THEN 0"
    " WHEN instr(substring(s, pos), sub) = 0 THEN 0"
    " ELSE instr(substring(s, pos), sub) + pos - 1 END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_initcap(s) AS"
    " array_to_string(list_transform(string_split(lower(s), ' '),"
    " lambda w: upper(w[1]) || w[2:]), ' ');\n"
    "CREATE OR REPLACE TEMP MACRO weir_reverse"
    "(a VARCHAR) AS reverse(a), (a) AS list_reverse(a);\n"
    "CREATE OR REPLACE TEMP MACRO weir_base64"
    "(a VARCHAR) AS to_base64(encode(a)), (a BLOB) AS to_base64(a);\n"
    "CREATE OR REPLACE TEMP MACRO weir_substring_index(s, d, c) AS"
    " CASE WHEN c = 0 OR d = '' THEN ''"
    " WHEN c > 0 THEN list_reduce(string_split(s, d)[1:c], lambda x, y: x || d || y)"
    " ELSE list_reduce(string_split(s, d)[c:], lambda x, y: x || d || y) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_str_to_map(s, pd, kd) AS"
    " map_from_entries(list_transform(string_split(s, pd), lambda kv:"
    " struct_pack(k := CASE WHEN contains(kv, kd) THEN"
    " substring(kv, 1, instr(kv, kd) - 1) ELSE kv END,"
    " v := CASE WHEN contains(kv, kd) THEN"
    " substring(kv, instr(kv, kd) + length(kd)) END)));\n"
    "CREATE OR REPLACE TEMP MACRO weir_sqrt(x) AS"
    " CASE WHEN x < 0 THEN CAST('NaN' AS DOUBLE) ELSE sqrt(x) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_ln(x) AS"
    " CASE WHEN x <= 0 THEN NULL ELSE ln(x) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_log10(x) AS"
    " CASE WHEN x <= 0 THEN NULL ELSE log10(x) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_log2(x) AS"
    " CASE WHEN x <= 0 THEN NULL ELSE log2(x) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_log(b, x) AS"
    " CASE WHEN b <= 0 OR x <= 0 THEN NULL ELSE ln(x) / ln(b) END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_pmod(a, b) AS"
    " CASE WHEN a % b < 0 THEN (a % b + b) % b ELSE a % b END;\n"
    "CREATE OR REPLACE TEMP MACRO weir_floor"
    "(a DOUBLE) AS CAST(floor(a) AS BIGINT), (a FLOAT) AS CAST(floor(a) AS BIGINT),"
    " (a) AS floor(a);\n"
    "CREATE OR REPLACE TEMP MACRO weir_ceil"
    "(a DOUBLE) AS CAST(ceil(a) AS BIGINT), (a FLOAT) AS CAST(ceil(a) AS BIGINT),"
    " (a) AS ceil(a);\n"
    "CREATE OR REPLACE TEMP MACRO weir_unix_timestamp"
    "(a TIMESTAMP) AS CAST(floor(epoch(a)) AS BIGINT),"
    " (a DATE) AS CAST(floor(epoch(CAST(a AS TIMESTAMP))) AS BIGINT),"
    " (a VARCHAR) AS CAST(floor(epoch(strptime(a, '%Y-%m-%d %H:%M:%S'))) AS BIGINT);\n";

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

const char *weir__sql_session_setup(void)
{
    return SETUP;
}
