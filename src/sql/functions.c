/*
 * The Spark -> DuckDB function table: one row per Spark function (and
 * arity range) with either a DuckDB template or a custom handler
 * (fn_custom.c). Templates use $1..$9 for translated arguments, $* for all
 * of them, $D for "DISTINCT ", $I for " IGNORE NULLS", $F for the FILTER
 * clause and $O for the OVER clause (appended at the end when a template
 * does not place them). Functions missing from this table are refused
 * (UNSUPPORTED_SPARK_SQL): nothing is passed through on trust.
 */
#include "internal.h"
#include "functions.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/str.h"

#define AGG F_AGG
#define WIN F_WIN

/* Sorted by name for readability only; lookup is linear. */
static const fn_def FUNCS[] = {
    /* ---- conditional and null handling ---- */
    { "coalesce", 1, -1, 0, "coalesce($*)", NULL },
    { "nvl", 2, 2, 0, "coalesce($1, $2)", NULL },
    { "ifnull", 2, 2, 0, "coalesce($1, $2)", NULL },
    { "nvl2", 3, 3, 0, "CASE WHEN ($1) IS NOT NULL THEN $2 ELSE $3 END", NULL },
    { "nullif", 2, 2, 0, "nullif($1, $2)", NULL },
    { "if", 3, 3, 0, "CASE WHEN $1 THEN $2 ELSE $3 END", NULL },
    { "iff", 3, 3, 0, "CASE WHEN $1 THEN $2 ELSE $3 END", NULL },
    { "iif", 3, 3, 0, "CASE WHEN $1 THEN $2 ELSE $3 END", NULL },
    { "isnull", 1, 1, 0, "(($1) IS NULL)", NULL },
    { "isnotnull", 1, 1, 0, "(($1) IS NOT NULL)", NULL },
    { "equal_null", 2, 2, 0, "(($1) IS NOT DISTINCT FROM ($2))", NULL },
    { "nullifzero", 1, 1, 0, "nullif($1, 0)", NULL },
    { "zeroifnull", 1, 1, 0, "coalesce($1, 0)", NULL },
    { "greatest", 1, -1, 0, "greatest($*)", NULL },
    { "least", 1, -1, 0, "least($*)", NULL },
    { "isnan", 1, 1, 0, "isnan($1)", NULL },
    { "nanvl", 2, 2, 0, "CASE WHEN isnan($1) THEN $2 ELSE $1 END", NULL },
    { "decode", 2, 2, 0, "decode($1)", NULL },
    { "encode", 2, 2, 0, "encode($1)", NULL },
    { "decode", 3, -1, 0, NULL, weir__fn_decode },
    /* errors raised when a row is evaluated (DuckDB's error()) */
    { "raise_error", 1, 1, 0,
      "error('[USER_RAISED_EXCEPTION] ' || coalesce(CAST($1 AS VARCHAR), 'null'))",
      NULL },
    /* ---- math ---- */
    { "abs", 1, 1, 0, "abs($1)", NULL },
    /* outside their domains Spark's (Java's) functions give NaN where
     * DuckDB's raise */
    { "acos", 1, 1, 0, "CASE WHEN abs($1) > 1 THEN CAST('NaN' AS DOUBLE) ELSE acos($1) END", NULL },
    { "asin", 1, 1, 0, "CASE WHEN abs($1) > 1 THEN CAST('NaN' AS DOUBLE) ELSE asin($1) END", NULL },
    { "acosh", 1, 1, 0, "CASE WHEN ($1) < 1 THEN CAST('NaN' AS DOUBLE) ELSE acosh($1) END", NULL },
    { "asinh", 1, 1, 0, "asinh($1)", NULL },
    { "atanh", 1, 1, 0, "CASE WHEN abs($1) > 1 THEN CAST('NaN' AS DOUBLE) ELSE atanh($1) END", NULL },
    { "csc", 1, 1, 0, "(1 / sin(CAST($1 AS DOUBLE)))", NULL },
    { "sec", 1, 1, 0, "(1 / cos(CAST($1 AS DOUBLE)))", NULL },
    { "atan", 1, 1, 0, "atan($1)", NULL },
    { "atan2", 2, 2, 0, "atan2($1, $2)", NULL },
    { "cos", 1, 1, 0, "cos($1)", NULL },
    { "cosh", 1, 1, 0, "cosh($1)", NULL },
    { "sin", 1, 1, 0, "sin($1)", NULL },
    { "sinh", 1, 1, 0, "sinh($1)", NULL },
    { "tan", 1, 1, 0, "tan($1)", NULL },
    { "tanh", 1, 1, 0, "tanh($1)", NULL },
    { "cot", 1, 1, 0, "cot($1)", NULL },
    { "degrees", 1, 1, 0, "degrees($1)", NULL },
    { "radians", 1, 1, 0, "radians($1)", NULL },
    { "exp", 1, 1, 0, "exp($1)", NULL },
    { "cbrt", 1, 1, 0, "cbrt($1)", NULL },
    { "pi", 0, 0, 0, "pi()", NULL },
    { "e", 0, 0, 0, "exp(1)", NULL },
    { "sqrt", 1, 1, 0, "weir_sqrt($1)", NULL },
    { "ln", 1, 1, 0, "weir_ln($1)", NULL },
    { "log", 1, 1, 0, "weir_ln($1)", NULL },
    { "log", 2, 2, 0, "weir_log($1, $2)", NULL },
    { "log10", 1, 1, 0, "weir_log10($1)", NULL },
    { "log2", 1, 1, 0, "weir_log2($1)", NULL },
    { "pow", 2, 2, 0, "pow($1, $2)", NULL },
    { "power", 2, 2, 0, "pow($1, $2)", NULL },
    { "mod", 2, 2, 0, "weir_mod($1, $2)", NULL },
    { "pmod", 2, 2, 0, "weir_pmod($1, $2)", NULL },
    { "sign", 1, 1, 0, "CAST(sign($1) AS DOUBLE)", NULL },
    { "signum", 1, 1, 0, "CAST(sign($1) AS DOUBLE)", NULL },
    { "round", 1, 1, 0, "round($1)", NULL },
    { "round", 2, 2, 0, "round($1, $2)", NULL },
    { "bround", 1, 1, 0, "round_even($1, 0)", NULL },
    { "bround", 2, 2, 0, "round_even($1, $2)", NULL },
    { "floor", 1, 1, 0, "weir_floor($1)", NULL },
    { "ceil", 1, 1, 0, "weir_ceil($1)", NULL },
    { "ceiling", 1, 1, 0, "weir_ceil($1)", NULL },
    { "rand", 0, 0, 0, "random()", NULL },
    { "random", 0, 0, 0, "random()", NULL },
    { "factorial", 1, 1, 0,
      "CASE WHEN ($1) BETWEEN 0 AND 20 THEN CAST(factorial(CAST($1 AS INTEGER)) "
      "AS BIGINT) END", NULL },
    { "hash", 1, -1, 0, "__weir_spark_hash($*)", NULL },
    { "xxhash64", 1, -1, 0, "__weir_spark_xxhash64($*)", NULL },
    /* src/store/spark_text.c */
    { "crc32", 1, 1, 0, "__weir_spark_crc32($1)", NULL },
    { "soundex", 1, 1, 0, "__weir_spark_soundex($1)", NULL },
    { "conv", 3, 3, 0, "weir_conv(trim(CAST($1 AS VARCHAR)), $2, $3)", NULL },
    { "hex", 1, 1, 0, "hex($1)", NULL },
    { "unhex", 1, 1, 0, "from_hex($1)", NULL },
    /* ---- strings ---- */
    { "upper", 1, 1, 0, "upper($1)", NULL },
    { "ucase", 1, 1, 0, "upper($1)", NULL },
    { "lower", 1, 1, 0, "lower($1)", NULL },
    { "lcase", 1, 1, 0, "lower($1)", NULL },
    { "length", 1, 1, 0, "CAST(length($1) AS INTEGER)", NULL },
    { "len", 1, 1, 0, "CAST(length($1) AS INTEGER)", NULL },
    { "char_length", 1, 1, 0, "CAST(length($1) AS INTEGER)", NULL },
    { "character_length", 1, 1, 0, "CAST(length($1) AS INTEGER)", NULL },
    { "octet_length", 1, 1, 0, "CAST(octet_length(encode($1)) AS INTEGER)", NULL },
    { "bit_length", 1, 1, 0, "CAST(octet_length(encode($1)) * 8 AS INTEGER)", NULL },
    { "ascii", 1, 1, 0, "CASE WHEN ($1) = '' THEN 0 ELSE ascii($1) END", NULL },
    { "chr", 1, 1, 0,
      "CASE WHEN ($1) < 0 THEN '' ELSE chr(CAST(($1) % 256 AS INTEGER)) END",
      NULL },
    { "char", 1, 1, 0,
      "CASE WHEN ($1) < 0 THEN '' ELSE chr(CAST(($1) % 256 AS INTEGER)) END",
      NULL },
    { "concat", 0, -1, 0, NULL, weir__fn_concat },
    { "concat_ws", 1, -1, 0, NULL, weir__fn_concat_ws },
    { "substr", 2, 2, 0, "weir_substr($1, $2)", NULL },
    { "substr", 3, 3, 0, "weir_substr($1, $2, $3)", NULL },
    { "substring", 2, 2, 0, "weir_substr($1, $2)", NULL },
    { "substring", 3, 3, 0, "weir_substr($1, $2, $3)", NULL },
    { "left", 2, 2, 0, "left($1, greatest(CAST($2 AS BIGINT), 0))", NULL },
    { "right", 2, 2, 0, "right($1, greatest(CAST($2 AS BIGINT), 0))", NULL },
    { "instr", 2, 2, 0, "CAST(instr($1, $2) AS INTEGER)", NULL },
    { "locate", 2, 2, 0, "CAST(instr($2, $1) AS INTEGER)", NULL },
    { "locate", 3, 3, 0, "CAST(weir_locate($1, $2, $3) AS INTEGER)", NULL },
    { "lpad", 2, 2, 0, "lpad($1, CAST($2 AS INTEGER), ' ')", NULL },
    { "lpad", 3, 3, 0,
      "CASE WHEN ($3) = '' THEN left($1, greatest(CAST($2 AS INTEGER), 0)) "
      "ELSE lpad($1, CAST($2 AS INTEGER), $3) END", NULL },
    { "rpad", 2, 2, 0, "rpad($1, CAST($2 AS INTEGER), ' ')", NULL },
    { "rpad", 3, 3, 0,
      "CASE WHEN ($3) = '' THEN left($1, greatest(CAST($2 AS INTEGER), 0)) "
      "ELSE rpad($1, CAST($2 AS INTEGER), $3) END", NULL },
    { "trim", 1, 1, 0, "trim($1)", NULL },
    { "ltrim", 1, 1, 0, "ltrim($1)", NULL },
    { "rtrim", 1, 1, 0, "rtrim($1)", NULL },
    { "btrim", 1, 1, 0, "trim($1)", NULL },
    { "btrim", 2, 2, 0, "trim($1, $2)", NULL },
    { "replace", 2, 2, 0, "replace($1, $2, '')", NULL },
    { "replace", 3, 3, 0, "replace($1, $2, $3)", NULL },
    { "translate", 3, 3, 0, "translate($1, $2, $3)", NULL },
    { "repeat", 2, 2, 0, "repeat($1, CAST($2 AS BIGINT))", NULL },
    { "space", 1, 1, 0, "repeat(' ', CAST($1 AS BIGINT))", NULL },
    { "reverse", 1, 1, 0, "weir_reverse($1)", NULL },
    { "initcap", 1, 1, 0, "weir_initcap($1)", NULL },
    { "split", 2, 3, 0, NULL, weir__fn_split },
    { "split_part", 3, 3, 0, "split_part($1, $2, CAST($3 AS BIGINT))", NULL },
    { "substring_index", 3, 3, 0, "weir_substring_index($1, $2, $3)", NULL },
    { "startswith", 2, 2, 0, "starts_with($1, $2)", NULL },
    { "starts_with", 2, 2, 0, "starts_with($1, $2)", NULL },
    { "endswith", 2, 2, 0, "ends_with($1, $2)", NULL },
    { "ends_with", 2, 2, 0, "ends_with($1, $2)", NULL },
    { "contains", 2, 2, 0, "contains($1, $2)", NULL },
    { "levenshtein", 2, 2, 0, "CAST(levenshtein($1, $2) AS INTEGER)", NULL },
    { "format_string", 1, -1, 0, "printf($*)", NULL },
    { "printf", 1, -1, 0, "printf($*)", NULL },
    { "regexp_extract", 2, 3, 0, NULL, weir__fn_regexp_extract },
    { "regexp_extract_all", 2, 3, 0, NULL, weir__fn_regexp_extract },
    { "regexp_replace", 3, 4, 0, NULL, weir__fn_regexp_replace },
    { "rlike", 2, 2, 0, "regexp_matches($1, $2)", NULL },
    { "regexp", 2, 2, 0, "regexp_matches($1, $2)", NULL },
    { "regexp_like", 2, 2, 0, "regexp_matches($1, $2)", NULL },
    { "like", 2, 2, 0, "(($1) LIKE ($2) ESCAPE '\\')", NULL },
    { "ilike", 2, 2, 0, "(($1) ILIKE ($2) ESCAPE '\\')", NULL },
    { "md5", 1, 1, 0, "md5($1)", NULL },
    { "sha1", 1, 1, 0, "sha1($1)", NULL },
    { "sha", 1, 1, 0, "sha1($1)", NULL },
    { "sha2", 2, 2, 0, NULL, weir__fn_sha2 },
    { "base64", 1, 1, 0, "weir_base64($1)", NULL },
    { "unbase64", 1, 1, 0, "from_base64($1)", NULL },
    { "uuid", 0, 0, 0, "CAST(uuid() AS VARCHAR)", NULL },
    /* Java's URLEncoder: space as '+', '*' kept, '~' encoded */
    { "url_encode", 1, 1, 0,
      "replace(replace(replace(url_encode($1), '%20', '+'), '%2A', '*'), '~', "
      "'%7E')", NULL },
    { "url_decode", 1, 1, 0, "weir_url_decode($1, false)", NULL },
    { "parse_url", 2, 2, 0, "weir_parse_url($1, $2, false)", NULL },
    { "parse_url", 3, 3, 0, "weir_parse_url_key($1, $2, $3, false)", NULL },
    { "try_parse_url", 2, 2, 0, "weir_parse_url($1, $2, true)", NULL },
    { "try_parse_url", 3, 3, 0, "weir_parse_url_key($1, $2, $3, true)", NULL },
    { "try_url_decode", 1, 1, 0, "weir_url_decode($1, true)", NULL },
    /* DuckDB's strings are always valid UTF-8; binaries may not be */
    { "is_valid_utf8", 1, 1, 0, "weir_utf8_is($1)", NULL },
    { "make_valid_utf8", 1, 1, 0, "weir_utf8_str(($1), 'make')", NULL },
    { "validate_utf8", 1, 1, 0, "weir_utf8_str(($1), 'validate')", NULL },
    { "try_validate_utf8", 1, 1, 0, "weir_utf8_str(($1), 'try')", NULL },
    /* ---- added from the Spark differential tier ---- */
    { "hypot", 2, 2, 0, "sqrt(pow($1, 2) + pow($2, 2))", NULL },
    { "expm1", 1, 1, 0, "(exp($1) - 1)", NULL },
    { "log1p", 1, 1, 0, "weir_ln(1 + ($1))", NULL },
    { "rint", 1, 1, 0, "CAST(round_even(CAST($1 AS DOUBLE), 0) AS DOUBLE)", NULL },
    { "positive", 1, 1, 0, "(+ $1)", NULL },
    { "negative", 1, 1, 0, "(- $1)", NULL },
    { "bin", 1, 1, 0, "bin(CAST($1 AS BIGINT))", NULL },
    { "bit_count", 1, 1, 0, "CAST(bit_count($1) AS INTEGER)", NULL },
    { "shiftleft", 2, 2, 0, "(($1) << ($2))", NULL },
    { "shiftright", 2, 2, 0, "(($1) >> ($2))", NULL },
    { "getbit", 2, 2, 0, "weir_bit_get($1, $2)", NULL },
    { "bit_get", 2, 2, 0, "weir_bit_get($1, $2)", NULL },
    { "try_divide", 2, 2, 0, "CASE WHEN ($2) = 0 THEN NULL ELSE ($1) / ($2) END",
      NULL },
    { "try_mod", 2, 2, 0, "CASE WHEN ($2) = 0 THEN NULL ELSE ($1) % ($2) END",
      NULL },
    { "try_add", 2, 2, 0, "TRY(($1) + ($2))", NULL },
    { "try_subtract", 2, 2, 0, "TRY(($1) - ($2))", NULL },
    { "try_multiply", 2, 2, 0, "TRY(($1) * ($2))", NULL },
    { "elt", 2, -1, 0, NULL, weir__fn_elt },
    { "find_in_set", 2, 2, 0,
      "CASE WHEN contains($1, ',') THEN 0 ELSE CAST(coalesce(list_position("
      "string_split($2, ','), $1), 0) AS INTEGER) END", NULL },
    { "regexp_count", 2, 2, 0, "CAST(len(regexp_extract_all($1, $2)) AS INTEGER)",
      NULL },
    { "regexp_substr", 2, 2, 0, "nullif(regexp_extract($1, $2), '')", NULL },
    { "array_append", 2, 2, 0, "list_append($1, $2)", NULL },
    { "array_prepend", 2, 2, 0, "list_prepend($2, $1)", NULL },
    { "array_compact", 1, 1, 0, "list_filter($1, lambda x: x IS NOT NULL)", NULL },
    { "get", 2, 2, 0, "($1)[($2) + 1]", NULL },
    { "date_part", 2, 2, 0, NULL, weir__fn_date_part },
    { "datepart", 2, 2, 0, NULL, weir__fn_date_part },
    { "next_day", 2, 2, 0, NULL, weir__fn_next_day },
    { "kurtosis", 1, 1, AGG, "kurtosis_pop($D$1)", NULL },
    { "mode", 1, 1, AGG, "mode($1)", NULL },
    { "overlay", 3, 3, 0, "weir_overlay($1, $2, $3, -1)", NULL },
    { "overlay", 4, 4, 0, "weir_overlay($1, $2, $3, $4)", NULL },
    { "months_between", 2, 3, 0, NULL, weir__fn_months_between },
    { "format_number", 2, 2, 0, NULL, weir__fn_format_number },
    { "skewness", 1, 1, AGG,
      "(skewness($D$1) * (count($D$1) - 2) / sqrt(count($D$1) * (count($D$1) - 1)))",
      NULL },
    { "regr_slope", 2, 2, AGG, "regr_slope($1, $2)", NULL },
    { "regr_intercept", 2, 2, AGG, "regr_intercept($1, $2)", NULL },
    { "regr_count", 2, 2, AGG, "regr_count($1, $2)", NULL },
    { "regr_r2", 2, 2, AGG, "regr_r2($1, $2)", NULL },
    { "regr_avgx", 2, 2, AGG, "regr_avgx($1, $2)", NULL },
    { "regr_avgy", 2, 2, AGG, "regr_avgy($1, $2)", NULL },
    { "regr_sxx", 2, 2, AGG, "regr_sxx($1, $2)", NULL },
    { "regr_sxy", 2, 2, AGG, "regr_sxy($1, $2)", NULL },
    { "regr_syy", 2, 2, AGG, "regr_syy($1, $2)", NULL },
    { "string_agg", 1, 2, AGG, NULL, weir__fn_string_agg },
    { "listagg", 1, 2, AGG, NULL, weir__fn_string_agg },
    { "map_filter", 2, 2, 0, NULL, weir__fn_map_filter },
    { "transform_values", 2, 2, 0, NULL, weir__fn_transform_values },
    { "transform_keys", 2, 2, 0, NULL, weir__fn_transform_keys },
    { "zip_with", 3, 3, 0, NULL, weir__fn_zip_with },
    { "typeof", 1, 1, 0, "weir_typeof($1)", NULL },
    { "quote", 1, 1, 0, "CAST(('''' || replace(CAST($1 AS VARCHAR), '''', '\\''') || '''') AS VARCHAR)", NULL },
    { "collate", 2, 2, 0, NULL, weir__fn_collate },
    { "mask", 1, 5, 0, NULL, weir__fn_mask },
    { "luhn_check", 1, 1, 0,
      "CASE WHEN NOT regexp_full_match($1, '[0-9]+') THEN false ELSE "
      "list_sum(list_transform(generate_series(1, length($1)), lambda __i: "
      "CASE WHEN __i % 2 = 1 THEN CAST(substr(reverse($1), __i, 1) AS INTEGER) "
      "WHEN CAST(substr(reverse($1), __i, 1) AS INTEGER) > 4 THEN "
      "2 * CAST(substr(reverse($1), __i, 1) AS INTEGER) - 9 ELSE "
      "2 * CAST(substr(reverse($1), __i, 1) AS INTEGER) END)) % 10 = 0 END",
      NULL },
    { "regexp_instr", 2, 3, 0, NULL, weir__fn_regexp_instr },
    { "arrays_zip", 1, -1, 0, NULL, weir__fn_arrays_zip },
    { "array_insert", 3, 3, 0, NULL, weir__fn_array_insert },
    { "shuffle", 1, 1, 0,
      "list_transform(list_sort(list_transform($1, lambda __x: struct_pack("
      "k := random(), v := __x))), lambda __s: __s.v)", NULL },
    /* Spark's WidthBucket: NULL for a bad bucket count or range */
    { "width_bucket", 4, 4, 0,
      "CAST(CASE WHEN ($1) IS NULL OR ($2) IS NULL OR ($3) IS NULL OR ($4) IS "
      "NULL OR ($4) <= 0 OR isnan(CAST($1 AS DOUBLE)) OR isnan(CAST($2 AS "
      "DOUBLE)) OR isnan(CAST($3 AS DOUBLE)) OR isinf(CAST($2 AS DOUBLE)) OR "
      "isinf(CAST($3 AS DOUBLE)) OR ($2) = ($3) THEN NULL "
      "WHEN ($2) < ($3) THEN CASE WHEN ($1) < ($2) THEN 0 WHEN ($1) >= ($3) "
      "THEN ($4) + 1 ELSE trunc(CAST($4 AS DOUBLE) * (CAST($1 AS DOUBLE) - "
      "CAST($2 AS DOUBLE)) / (CAST($3 AS DOUBLE) - CAST($2 AS DOUBLE))) + 1 END "
      "ELSE CASE WHEN ($1) > ($2) THEN 0 WHEN ($1) <= ($3) THEN ($4) + 1 ELSE "
      "trunc(CAST($4 AS DOUBLE) * (CAST($2 AS DOUBLE) - CAST($1 AS DOUBLE)) / "
      "(CAST($2 AS DOUBLE) - CAST($3 AS DOUBLE))) + 1 END END AS BIGINT)",
      NULL },
    /* ---- casts as functions ---- */
    { "string", 1, 1, 0, "weir_to_str($1)", NULL },
    { "int", 1, 1, 0, "CAST(weir_trunc_for_int($1) AS INTEGER)", NULL },
    { "bigint", 1, 1, 0, "CAST(weir_trunc_for_int($1) AS BIGINT)", NULL },
    { "smallint", 1, 1, 0, "CAST(weir_trunc_for_int($1) AS SMALLINT)", NULL },
    { "tinyint", 1, 1, 0, "CAST(weir_trunc_for_int($1) AS TINYINT)", NULL },
    { "double", 1, 1, 0, "CAST($1 AS DOUBLE)", NULL },
    { "float", 1, 1, 0, "CAST($1 AS FLOAT)", NULL },
    { "boolean", 1, 1, 0, "CAST($1 AS BOOLEAN)", NULL },
    { "date", 1, 1, 0, "CAST($1 AS DATE)", NULL },
    { "timestamp", 1, 1, 0, "weir_to_ts($1)", NULL },
    { "binary", 1, 1, 0, "CAST(weir_to_bin($1) AS BLOB)", NULL },
    { "decimal", 1, 1, 0, "CAST($1 AS DECIMAL(10,0))", NULL },
    /* ---- collections ---- */
    { "array", 0, -1, 0, NULL, weir__fn_array },
    { "map", 0, -1, 0, NULL, weir__fn_map },
    { "named_struct", 0, -1, 0, NULL, weir__fn_named_struct },
    { "struct", 1, -1, 0, NULL, weir__fn_struct },
    { "size", 1, 1, 0, NULL, weir__fn_size },
    { "cardinality", 1, 1, 0, NULL, weir__fn_size },
    { "array_size", 1, 1, 0, "CAST(len($1) AS INTEGER)", NULL },
    { "element_at", 2, 2, 0, "weir_element_at($1, $2)", NULL },
    { "try_element_at", 2, 2, 0, "($1)[$2]", NULL },
    { "array_contains", 2, 2, 0, "weir_array_contains($1, $2)", NULL },
    { "array_distinct", 1, 1, 0, "weir_array_distinct($1)", NULL },
    { "array_union", 2, 2, 0, "weir_array_distinct(list_concat($1, $2))", NULL },
    { "array_intersect", 2, 2, 0, "weir_array_intersect($1, $2)", NULL },
    { "array_except", 2, 2, 0, "weir_array_except($1, $2)", NULL },
    { "arrays_overlap", 2, 2, 0, "list_has_any($1, $2)", NULL },
    { "array_join", 2, 2, 0, "array_to_string($1, $2)", NULL },
    { "array_join", 3, 3, 0,
      "array_to_string(list_transform($1, lambda __x: coalesce(__x, $3)), $2)",
      NULL },
    { "array_position", 2, 2, 0, "weir_array_position($1, $2)", NULL },
    { "array_remove", 2, 2, 0, "weir_array_remove($1, $2)", NULL },
    { "array_max", 1, 1, 0, "list_max($1)", NULL },
    { "array_min", 1, 1, 0, "list_min($1)", NULL },
    { "array_repeat", 2, 2, 0,
      "list_transform(range(CAST($2 AS BIGINT)), lambda __i: $1)", NULL },
    { "slice", 3, 3, 0, "weir_slice($1, $2, $3)", NULL },
    { "flatten", 1, 1, 0, "flatten($1)", NULL },
    { "sort_array", 1, 2, 0, NULL, weir__fn_sort_array },
    { "array_sort", 1, 1, 0, "list_sort($1, 'ASC', 'NULLS LAST')", NULL },
    { "sequence", 2, 2, 0, "weir_sequence($1, $2)", NULL },
    { "sequence", 3, 3, 0, "weir_sequence($1, $2, $3)", NULL },
    { "transform", 2, 2, 0, NULL, weir__fn_transform },
    { "filter", 2, 2, 0, NULL, weir__fn_filter },
    { "exists", 2, 2, 0, NULL, weir__fn_exists },
    { "forall", 2, 2, 0, NULL, weir__fn_forall },
    { "aggregate", 3, 4, 0, NULL, weir__fn_aggregate },
    { "reduce", 3, 4, 0, NULL, weir__fn_aggregate },
    { "map_keys", 1, 1, 0, "map_keys($1)", NULL },
    { "map_values", 1, 1, 0, "map_values($1)", NULL },
    { "map_entries", 1, 1, 0, "map_entries($1)", NULL },
    { "map_from_arrays", 2, 2, 0, "map($1, $2)", NULL },
    { "map_from_entries", 1, 1, 0, "map_from_entries($1)", NULL },
    { "map_concat", 1, -1, 0, "map_concat($*)", NULL },
    { "map_contains_key", 2, 2, 0, "map_contains($1, $2)", NULL },
    { "str_to_map", 1, 1, 0, "weir_str_to_map($1, ',', ':')", NULL },
    { "str_to_map", 2, 2, 0, "weir_str_to_map($1, $2, ':')", NULL },
    { "str_to_map", 3, 3, 0, "weir_str_to_map($1, $2, $3)", NULL },
    /* ---- dates and times ---- */
    { "current_date", 0, 0, 0, "CAST($[CAST(current_timestamp AS TIMESTAMP)$] AS DATE)", NULL },
    { "curdate", 0, 0, 0, "CAST($[CAST(current_timestamp AS TIMESTAMP)$] AS DATE)", NULL },
    { "current_timestamp", 0, 0, 0, "CAST(current_timestamp AS TIMESTAMP)", NULL },
    { "now", 0, 0, 0, "CAST(current_timestamp AS TIMESTAMP)", NULL },
    { "localtimestamp", 0, 0, 0, "CAST(current_timestamp AS TIMESTAMP)", NULL },
    { "current_timezone", 0, 0, 0, "$Q", NULL },
    /* the user running weir (Spark: SPARK_USER, else the OS user) */
    { "current_user", 0, 0, 0, "$U", NULL },
    { "user", 0, 0, 0, "$U", NULL },
    { "session_user", 0, 0, 0, "$U", NULL },
    { "year", 1, 1, 0, "CAST(year($W1) AS INTEGER)", NULL },
    { "quarter", 1, 1, 0, "CAST(quarter($W1) AS INTEGER)", NULL },
    { "month", 1, 1, 0, "CAST(month($W1) AS INTEGER)", NULL },
    { "day", 1, 1, 0, "CAST(day($W1) AS INTEGER)", NULL },
    { "dayofmonth", 1, 1, 0, "CAST(day($W1) AS INTEGER)", NULL },
    { "dayofyear", 1, 1, 0, "CAST(dayofyear($W1) AS INTEGER)", NULL },
    { "dayofweek", 1, 1, 0, "CAST((dayofweek($W1) + 1) AS INTEGER)", NULL },
    { "dayname", 1, 1, 0, "strftime($W1, '%a')", NULL },
    { "monthname", 1, 1, 0, "strftime($W1, '%b')", NULL },
    { "weekday", 1, 1, 0, "CAST((isodow($W1) - 1) AS INTEGER)", NULL },
    { "weekofyear", 1, 1, 0, "CAST(weekofyear($W1) AS INTEGER)", NULL },
    { "hour", 1, 1, 0, "CAST(hour($W1) AS INTEGER)", NULL },
    { "minute", 1, 1, 0, "CAST(minute($W1) AS INTEGER)", NULL },
    { "second", 1, 1, 0, "CAST(second($W1) AS INTEGER)", NULL },
    { "last_day", 1, 1, 0, "last_day($Y1)", NULL },
    { "make_date", 3, 3, 0, "make_date($1, $2, $3)", NULL },
    { "make_timestamp", 6, 6, 0, "$<make_timestamp($1, $2, $3, $4, $5, $6)$>", NULL },
    /* years, months, weeks, days, hours, minutes, seconds (0 when left out) */
    { "make_interval", 0, 0, 0, "weir_make_interval(0, 0, 0, 0, 0, 0, 0)", NULL },
    { "make_interval", 1, 1, 0, "weir_make_interval($1, 0, 0, 0, 0, 0, 0)", NULL },
    { "make_interval", 2, 2, 0, "weir_make_interval($1, $2, 0, 0, 0, 0, 0)", NULL },
    { "make_interval", 3, 3, 0, "weir_make_interval($1, $2, $3, 0, 0, 0, 0)", NULL },
    { "make_interval", 4, 4, 0, "weir_make_interval($1, $2, $3, $4, 0, 0, 0)", NULL },
    { "make_interval", 5, 5, 0, "weir_make_interval($1, $2, $3, $4, $5, 0, 0)", NULL },
    { "make_interval", 6, 6, 0, "weir_make_interval($1, $2, $3, $4, $5, $6, 0)", NULL },
    { "make_interval", 7, 7, 0, "weir_make_interval($1, $2, $3, $4, $5, $6, $7)", NULL },
    /* Spark's day-time and year-month intervals: parts of make_interval */
    { "make_dt_interval", 0, 0, 0, "weir_make_interval(0, 0, 0, 0, 0, 0, 0)", NULL },
    { "make_dt_interval", 1, 1, 0, "weir_make_interval(0, 0, 0, $1, 0, 0, 0)", NULL },
    { "make_dt_interval", 2, 2, 0, "weir_make_interval(0, 0, 0, $1, $2, 0, 0)", NULL },
    { "make_dt_interval", 3, 3, 0, "weir_make_interval(0, 0, 0, $1, $2, $3, 0)", NULL },
    { "make_dt_interval", 4, 4, 0, "weir_make_interval(0, 0, 0, $1, $2, $3, $4)", NULL },
    { "make_ym_interval", 0, 0, 0, "weir_make_interval(0, 0, 0, 0, 0, 0, 0)", NULL },
    { "make_ym_interval", 1, 1, 0, "weir_make_interval($1, 0, 0, 0, 0, 0, 0)", NULL },
    { "make_ym_interval", 2, 2, 0, "weir_make_interval($1, $2, 0, 0, 0, 0, 0)", NULL },
    { "date_add", 2, 2, 0,
      "CAST($Y1 + CAST($2 AS INTEGER) AS DATE)", NULL },
    { "date_add", 3, 3, 0, NULL, weir__fn_timestampadd },
    { "dateadd", 2, 2, 0,
      "CAST($Y1 + CAST($2 AS INTEGER) AS DATE)", NULL },
    { "dateadd", 3, 3, 0, NULL, weir__fn_timestampadd },
    { "timestampadd", 3, 3, 0, NULL, weir__fn_timestampadd },
    { "date_sub", 2, 2, 0,
      "CAST($Y1 - CAST($2 AS INTEGER) AS DATE)", NULL },
    { "datediff", 2, 2, 0,
      "CAST(date_diff('day', $Y2, $Y1) AS INTEGER)",
      NULL },
    { "date_diff", 2, 2, 0,
      "CAST(date_diff('day', $Y2, $Y1) AS INTEGER)",
      NULL },
    { "datediff", 3, 3, 0, NULL, weir__fn_timestampdiff },
    { "date_diff", 3, 3, 0, NULL, weir__fn_timestampdiff },
    { "timestampdiff", 3, 3, 0, NULL, weir__fn_timestampdiff },
    { "add_months", 2, 2, 0,
      "CAST($Y1 + to_months(CAST($2 AS INTEGER)) AS DATE)", NULL },
    { "date_trunc", 2, 2, 0, NULL, weir__fn_date_trunc },
    { "trunc", 2, 2, 0, NULL, weir__fn_trunc },
    { "to_date", 1, 2, 0, NULL, weir__fn_to_date },
    { "try_to_date", 1, 2, 0, NULL, weir__fn_to_date },
    { "to_timestamp", 1, 2, 0, NULL, weir__fn_to_timestamp },
    { "to_timestamp_ntz", 1, 2, 0, NULL, weir__fn_to_timestamp },
    { "to_timestamp_ltz", 1, 2, 0, NULL, weir__fn_to_timestamp },
    { "try_to_timestamp", 1, 2, 0, NULL, weir__fn_to_timestamp },
    { "date_format", 2, 2, 0, NULL, weir__fn_date_format },
    { "from_unixtime", 1, 2, 0, NULL, weir__fn_from_unixtime },
    { "unix_timestamp", 0, 2, 0, NULL, weir__fn_unix_timestamp },
    { "to_unix_timestamp", 1, 2, 0, NULL, weir__fn_unix_timestamp },
    { "timestamp_seconds", 1, 1, 0,
      "make_timestamp(CAST(CAST($1 AS DECIMAL(38,6)) * 1000000 AS BIGINT))", NULL },
    { "timestamp_millis", 1, 1, 0,
      "make_timestamp(CAST($1 AS BIGINT) * 1000)", NULL },
    { "timestamp_micros", 1, 1, 0, "make_timestamp(CAST($1 AS BIGINT))", NULL },
    { "unix_seconds", 1, 1, 0, "CAST(floor(epoch($T1)) AS BIGINT)", NULL },
    { "unix_millis", 1, 1, 0, "epoch_ms($T1)", NULL },
    { "unix_micros", 1, 1, 0, "epoch_us($T1)", NULL },
    { "unix_date", 1, 1, 0,
      "CAST(date_diff('day', DATE '1970-01-01', $Y1) AS INTEGER)",
      NULL },
    { "date_from_unix_date", 1, 1, 0,
      "CAST(DATE '1970-01-01' + CAST($1 AS INTEGER) AS DATE)", NULL },
    { "from_utc_timestamp", 2, 2, 0,
      "timezone($2, CAST($T1 AS TIMESTAMPTZ))", NULL },
    { "to_utc_timestamp", 2, 2, 0,
      "CAST(timezone($2, $T1) AS TIMESTAMP)", NULL },
    /* convert_timezone([source,] target, wall clock): the wall clock read
     * in source (the session zone when absent) as target's */
    { "convert_timezone", 2, 3, 0, NULL, weir__fn_convert_timezone },
    { "window", 2, 4, 0, NULL, weir__fn_window },
    { "session_window", 2, 2, 0, NULL, weir__fn_session_window },
    /* the last instant of a time window: its end less a microsecond */
    { "window_time", 1, 1, 0,
      "(struct_extract($1, 'end') - INTERVAL 1 MICROSECOND)", NULL },
    /* ---- JSON ---- */
    { "get_json_object", 2, 2, 0,
      "CASE WHEN json_valid($1) THEN json_extract_string($1, $2) END", NULL },
    { "from_json", 2, 3, 0, NULL, weir__fn_from_json },
    { "to_json", 1, 1, 0, "weir_json_strip_nulls(CAST(to_json($1) AS VARCHAR))", NULL },
    { "json_array_length", 1, 1, 0,
      "CASE WHEN json_valid($1) AND json_type($1) = 'ARRAY' THEN "
      "CAST(json_array_length($1) AS INTEGER) END", NULL },
    { "json_object_keys", 1, 1, 0,
      "CASE WHEN json_valid($1) AND json_type($1) = 'OBJECT' THEN "
      "json_keys($1) END", NULL },
    /* ---- aggregates ---- */
    { "count", 0, -1, AGG, NULL, weir__fn_count },
    { "sum", 1, 1, AGG, NULL, weir__fn_sum },
    { "avg", 1, 1, AGG, "avg($D$1)", NULL },
    { "try_sum", 1, 1, AGG, NULL, weir__fn_sum },
    { "try_avg", 1, 1, AGG, "avg($D$1)", NULL },
    { "mean", 1, 1, AGG, "avg($D$1)", NULL },
    { "min", 1, 1, AGG, "min($1)", NULL },
    { "max", 1, 1, AGG, "max($1)", NULL },
    { "first", 1, 2, AGG, NULL, weir__fn_first_last },
    { "last", 1, 2, AGG, NULL, weir__fn_first_last },
    { "first_value", 1, 2, AGG | WIN, NULL, weir__fn_first_last },
    { "last_value", 1, 2, AGG | WIN, NULL, weir__fn_first_last },
    { "any_value", 1, 2, AGG, "any_value($1)", NULL },
    { "count_if", 1, 1, AGG, "CAST(count_if($1)$F$O AS BIGINT)", NULL },
    { "max_by", 2, 2, AGG, "arg_max($1, $2)", NULL },
    { "min_by", 2, 2, AGG, "arg_min($1, $2)", NULL },
    { "stddev", 1, 1, AGG, "stddev_samp($D$1)", NULL },
    { "std", 1, 1, AGG, "stddev_samp($D$1)", NULL },
    { "stddev_samp", 1, 1, AGG, "stddev_samp($D$1)", NULL },
    { "stddev_pop", 1, 1, AGG, "stddev_pop($D$1)", NULL },
    { "variance", 1, 1, AGG, "var_samp($D$1)", NULL },
    { "var_samp", 1, 1, AGG, "var_samp($D$1)", NULL },
    { "var_pop", 1, 1, AGG, "var_pop($D$1)", NULL },
    { "corr", 2, 2, AGG, "corr($1, $2)", NULL },
    { "covar_pop", 2, 2, AGG, "covar_pop($1, $2)", NULL },
    { "covar_samp", 2, 2, AGG, "covar_samp($1, $2)", NULL },
    { "median", 1, 1, AGG, "median($1)", NULL },
    { "percentile", 2, 2, AGG, "quantile_cont($1, $2)", NULL },
    { "percentile_approx", 2, 3, AGG, "quantile_disc($1, $2)", NULL },
    { "approx_percentile", 2, 3, AGG, "quantile_disc($1, $2)", NULL },
    { "approx_count_distinct", 1, 2, AGG, "approx_count_distinct($1)", NULL },
    { "bool_and", 1, 1, AGG, "bool_and($1)", NULL },
    { "every", 1, 1, AGG, "bool_and($1)", NULL },
    { "bool_or", 1, 1, AGG, "bool_or($1)", NULL },
    { "some", 1, 1, AGG, "bool_or($1)", NULL },
    { "any", 1, 1, AGG, "bool_or($1)", NULL },
    { "bit_and", 1, 1, AGG, "bit_and($1)", NULL },
    { "bit_or", 1, 1, AGG, "bit_or($1)", NULL },
    { "bit_xor", 1, 1, AGG, "bit_xor($1)", NULL },
    { "collect_list", 1, 1, AGG, NULL, weir__fn_collect },
    { "array_agg", 1, 1, AGG, NULL, weir__fn_collect },
    { "collect_set", 1, 1, AGG, NULL, weir__fn_collect },
    { "grouping", 1, 1, 0, "CAST(grouping($1) AS TINYINT)", NULL },
    { "grouping_id", 1, -1, 0, "CAST(grouping($*) AS BIGINT)", NULL },
    /* ---- window functions ---- */
    { "row_number", 0, 0, WIN, "CAST(row_number()$O AS INTEGER)", NULL },
    { "rank", 0, 0, WIN, "CAST(rank()$O AS INTEGER)", NULL },
    { "dense_rank", 0, 0, WIN, "CAST(dense_rank()$O AS INTEGER)", NULL },
    { "percent_rank", 0, 0, WIN, "percent_rank()", NULL },
    { "cume_dist", 0, 0, WIN, "cume_dist()", NULL },
    { "ntile", 1, 1, WIN, "CAST(ntile($1)$O AS INTEGER)", NULL },
    { "lag", 1, 3, WIN, "lag($*$I)", NULL },
    { "lead", 1, 3, WIN, "lead($*$I)", NULL },
    { "nth_value", 2, 2, WIN, "nth_value($1, $2$I)", NULL },
    { "monotonically_increasing_id", 0, 0, 0,
      "(row_number() OVER () - 1)", NULL },
    { NULL, 0, 0, 0, NULL, NULL }
};

static const char *const GENERATORS[] = {
    "explode", "explode_outer", "posexplode", "posexplode_outer", "inline",
    "inline_outer", "json_tuple", "stack", NULL
};

bool weir__sql_is_generator(const char *name)
{
    for (int i = 0; GENERATORS[i]; i++)
        if (weir__str_ieq(name, GENERATORS[i]))
            return true;
    return false;
}

bool weir__sql_is_aggregate(const char *name)
{
    for (int i = 0; FUNCS[i].name; i++)
        if ((FUNCS[i].flags & F_AGG) && !(FUNCS[i].flags & F_WIN) &&
            weir__str_ieq(FUNCS[i].name, name))
            return true;
    return false;
}

const char *weir__fn_string_literal(const weir_sql_expr *a)
{
    return a && a->kind == EX_LIT && a->lit == LIT_STRING ? a->text : NULL;
}

int weir__fn_need_literal(sql_tx *t, const weir_sql_expr *e, size_t i,
                          const char *what)
{
    const weir_sql_expr *a = i < e->n ? e->list[i] : NULL;
    return weir__sql_tx_error(t, a ? a->pos : e->pos, e->src,
                              "%s() needs a literal %s; a computed value cannot "
                              "be translated",
                              e->name, what);
}

int weir__fn_arg(sql_tx *t, weir_buf *out, const weir_sql_expr *e, size_t i)
{
    return weir__sql_tx_expr(t, out, e->list[i]);
}

void weir__fn_args_free(weir_buf *args, size_t n)
{
    if (!args)
        return;
    for (size_t i = 0; i < n; i++)
        weir__buf_free(&args[i]);
    free(args);
}

int weir__fn_args(sql_tx *t, weir_buf **out, const weir_sql_expr *e)
{
    *out = NULL;
    if (e->n == 0)
        return 0;
    weir_buf *a = calloc(e->n, sizeof(*a));
    if (!a)
        return WEIR_ERR(t->err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < e->n; i++) {
        int rc = weir__sql_tx_expr(t, &a[i], e->list[i]);
        if (rc) {
            weir__fn_args_free(a, e->n);
            return rc;
        }
    }
    *out = a;
    return 0;
}

/* FILTER (WHERE ...) and OVER (...) of an aggregate or window call. */
int weir__fn_filter_clause(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                           const char *extra)
{
    if (!e->filter && !extra)
        return 0;
    weir__buf_puts(out, " FILTER (WHERE ");
    if (extra)
        weir__buf_puts(out, extra);
    if (extra && e->filter)
        weir__buf_puts(out, " AND ");
    if (e->filter) {
        weir__buf_putc(out, '(');
        int rc = weir__sql_tx_expr(t, out, e->filter);
        if (rc)
            return rc;
        weir__buf_putc(out, ')');
    }
    weir__buf_putc(out, ')');
    return 0;
}

int weir__fn_over_clause(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    if (!e->over)
        return 0;
    return weir__sql_tx_window(t, out, e->over, e);
}

/* $Wn: argument n as the session zone's wall clock (a TIMESTAMP, for its
 * fields); $Yn: as a DATE in the zone; $Tn: as a TIMESTAMP instant (a
 * string or a date read in the zone). In UTC, plain casts. */
static void zoned_arg(sql_tx *t, weir_buf *out, char c, const char *a)
{
    if (!t->zone) {
        weir__buf_printf(out, "CAST(%s AS %s)", a, c == 'Y' ? "DATE" : "TIMESTAMP");
        return;
    }
    if (c == 'T') {
        weir__sql_tz_instant(t, out, a, false);
        return;
    }
    weir__buf_printf(out, "%s(%s, ", c == 'W' ? "weir_tz_wall" : "weir_tz_date", a);
    weir__sql_tz_put_zone(t, out);
    weir__buf_putc(out, ')');
}

/* $U: the name of the user running weir, as Spark names its own:
 * SPARK_USER when set, else the OS account's. */
static void put_user(weir_buf *out)
{
    const char *name = getenv("SPARK_USER");
    struct passwd pw, *found = NULL;
    char buf[1024];
    if ((!name || !*name) && getpwuid_r(geteuid(), &pw, buf, sizeof buf, &found) == 0 &&
        found)
        name = found->pw_name;
    weir__buf_put_sql_string(out, name ? name : "");
}

static int expand(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                  const char *tmpl)
{
    weir_buf *a;
    int rc = weir__fn_args(t, &a, e);
    if (rc)
        return rc;
    bool put_f = false, put_o = false;
    for (const char *p = tmpl; !rc && *p; p++) {
        if (*p != '$' || !p[1]) {
            weir__buf_putc(out, *p);
            continue;
        }
        char c = *++p;
        if ((c == 'W' || c == 'Y' || c == 'T') && p[1] >= '1' && p[1] <= '9') {
            size_t i = (size_t)(*++p - '1');
            if (i < e->n)
                zoned_arg(t, out, c, weir__buf_cstr(&a[i]));
        } else if (c == 'Z') {
            weir__sql_tz_put_zone(t, out);
        } else if (c == 'Q') {
            weir__buf_put_sql_string(out, t->zone_id ? t->zone_id : "UTC");
        } else if (c == 'U') {
            put_user(out);
        } else if (c == '<' || c == '[') {
            if (t->zone)
                weir__buf_puts(out, c == '<' ? "weir_tz_utc(" : "weir_tz_local(");
        } else if (c == '>' || c == ']') {
            if (t->zone) {
                weir__buf_puts(out, ", ");
                weir__sql_tz_put_zone(t, out);
                weir__buf_putc(out, ')');
            }
        } else if (c >= '1' && c <= '9') {
            size_t i = (size_t)(c - '1');
            if (i < e->n)
                weir__buf_puts(out, weir__buf_cstr(&a[i]));
        } else if (c == '*') {
            for (size_t i = 0; i < e->n; i++) {
                if (i)
                    weir__buf_puts(out, ", ");
                weir__buf_puts(out, weir__buf_cstr(&a[i]));
            }
        } else if (c == 'D') {
            if (e->distinct)
                weir__buf_puts(out, "DISTINCT ");
        } else if (c == 'I') {
            if (e->ignore_nulls == 1)
                weir__buf_puts(out, " IGNORE NULLS");
        } else if (c == 'F') {
            put_f = true;
            rc = weir__fn_filter_clause(t, out, e, NULL);
        } else if (c == 'O') {
            put_o = true;
            rc = weir__fn_over_clause(t, out, e);
        } else {
            weir__buf_putc(out, c);
        }
    }
    if (!rc && !put_f)
        rc = weir__fn_filter_clause(t, out, e, NULL);
    if (!rc && !put_o)
        rc = weir__fn_over_clause(t, out, e);
    weir__fn_args_free(a, e->n);
    return rc;
}

static const fn_def *lookup(const char *name, size_t n, bool *name_known)
{
    *name_known = false;
    for (int i = 0; FUNCS[i].name; i++) {
        if (!weir__str_ieq(FUNCS[i].name, name))
            continue;
        *name_known = true;
        if ((int)n >= FUNCS[i].min && (FUNCS[i].max < 0 || (int)n <= FUNCS[i].max))
            return &FUNCS[i];
    }
    return NULL;
}

/* Whether e's result type depends on its first argument's type (a
 * DECIMAL's): sum, avg and the roundings, when the resolver can tell. */
static bool typed_by_argument(const sql_tx *t, const char *name,
                              const weir_sql_expr *e)
{
    static const char *const NAMES[] = { "sum",   "avg",     "mean",  "floor",
                                         "ceil",  "ceiling", "round", "bround",
                                         "try_sum", "try_avg" };
    if (e->n < 1 || !t->resolver || !t->resolver->expr_type)
        return false;
    for (size_t i = 0; i < sizeof(NAMES) / sizeof(NAMES[0]); i++)
        if (strcmp(name, NAMES[i]) == 0)
            return true;
    return false;
}

/* Spark's result type of sum() and avg() of a DECIMAL(p,s) (Sum and
 * Average in Catalyst): DECIMAL(p+10,s) and DECIMAL(p+4,s+4), at most 38
 * digits. DuckDB's are DECIMAL(38,s) and DOUBLE, so the call is cast when
 * the argument's type is known. */
static bool spark_decimal_result(sql_tx *t, const char *name,
                                 const weir_sql_expr *e, int *prec, int *scale)
{
    bool sum = strcmp(name, "sum") == 0 || strcmp(name, "try_sum") == 0;
    if ((!sum && strcmp(name, "avg") != 0 && strcmp(name, "mean") != 0 &&
         strcmp(name, "try_avg") != 0) ||
        e->n != 1 || !t->resolver || !t->resolver->expr_type)
        return false;
    weir_error saved = *t->err;
    weir_buf x = WEIR_BUF_INIT;
    int p, s;
    bool integral;
    const char *arg = NULL;
    bool ok = weir__sql_tx_expr(t, &x, e->list[0]) == 0 && !x.failed &&
              (arg = weir__buf_cstr(&x)) &&
              weir__sql_tx_decimal_of(t, &arg, 1, &p, &s, &integral) &&
              p > 0;
    *t->err = saved;
    weir__buf_free(&x);
    if (!ok || integral)
        return false; /* integral arguments keep their own sum/avg types */
    *prec = sum ? p + 10 : p + 4;
    *scale = sum ? s : s + 4;
    if (*prec > 38)
        *prec = 38;
    if (*scale > 38)
        *scale = 38;
    return true;
}

/* The DECIMAL(p,s) type of e's first argument, when the resolver can tell
 * and it is a DECIMAL (not an integral type); its DuckDB text into x. */
static bool decimal_arg(sql_tx *t, const weir_sql_expr *e, weir_buf *x, int *p,
                        int *s)
{
    if (e->n < 1 || !t->resolver || !t->resolver->expr_type)
        return false;
    weir_error saved = *t->err;
    bool integral;
    const char *arg = NULL;
    bool ok = weir__sql_tx_expr(t, x, e->list[0]) == 0 && !x->failed &&
              (arg = weir__buf_cstr(x)) &&
              weir__sql_tx_decimal_of(t, &arg, 1, p, s, &integral) && *p > 0 &&
              !integral;
    *t->err = saved;
    return ok;
}

/* The integer literal of argument i (0 when absent), false when it is
 * something else. */
static bool int_literal_arg(const weir_sql_expr *e, size_t i, int *out)
{
    if (i >= e->n) {
        *out = 0;
        return true;
    }
    const weir_sql_expr *a = e->list[i];
    bool neg = false;
    if (a->kind == EX_UNARY && a->op && strcmp(a->op, "-") == 0 && a->a) {
        neg = true;
        a = a->a;
    }
    if (a->kind != EX_LIT || a->lit != LIT_INT || !a->text)
        return false;
    long v = strtol(a->text, NULL, 10);
    if (v > 38 || v < -38)
        return false;
    *out = neg ? -(int)v : (int)v;
    return true;
}

/* 10^k as an exact DuckDB decimal literal (1000, 0.001). */
static void pow10_literal(weir_buf *out, int k)
{
    if (k >= 0) {
        weir__buf_putc(out, '1');
        for (int i = 0; i < k; i++)
            weir__buf_putc(out, '0');
        return;
    }
    weir__buf_puts(out, "0.");
    for (int i = 1; i < -k; i++)
        weir__buf_putc(out, '0');
    weir__buf_putc(out, '1');
}

/* floor, ceil, round and bround of a DECIMAL(p,s) with Spark's result
 * types (RoundBase, Floor/Ceil in Catalyst): DECIMAL(p-s+1,0) for floor
 * and ceil, DECIMAL(p-s+max(d,0)+1, min(s,max(d,0))) for round(x, d) and
 * bround(x, d). DuckDB's round is exact HALF_UP; HALF_EVEN is computed on
 * the exact decimal too (DuckDB's round_even goes through a DOUBLE).
 * Returns 1 when it wrote the call, 0 when the argument is no DECIMAL. */
static int spark_rounding(sql_tx *t, weir_buf *out, const char *name,
                          const weir_sql_expr *e)
{
    bool fl = strcmp(name, "floor") == 0,
         ce = strcmp(name, "ceil") == 0 || strcmp(name, "ceiling") == 0,
         ro = strcmp(name, "round") == 0, br = strcmp(name, "bround") == 0;
    int d, p, s;
    if (!fl && !ce && !ro && !br)
        return 0;
    if ((fl || ce) && e->n != 1)
        return 0;
    if (!int_literal_arg(e, 1, &d))
        return 0;
    weir_buf x = WEIR_BUF_INIT;
    if (!decimal_arg(t, e, &x, &p, &s)) {
        weir__buf_free(&x);
        return 0;
    }
    int ds = d > 0 ? d : 0;
    int scale = fl || ce ? 0 : (s < ds ? s : ds);
    int prec = p - s + scale + 1;
    if (prec > 38)
        prec = 38;
    const char *xs = weir__buf_cstr(&x);
    weir__buf_puts(out, "CAST(");
    if (fl || ce) {
        weir__buf_printf(out, "%s(%s)", fl ? "floor" : "ceil", xs);
    } else if (ro) {
        weir__buf_printf(out, "round(%s, %d)", xs, d);
    } else {
        /* y = x * 10^d exactly; ties to the even neighbour of trunc(y).
         * y is a lambda's parameter: written once, so that nested calls
         * do not multiply the text. */
        weir__buf_printf(out, "(list_transform([(%s) * ", xs);
        pow10_literal(out, d);
        weir__buf_puts(out,
                       "], lambda \"__weir_y\": CASE WHEN abs(\"__weir_y\" - "
                       "trunc(\"__weir_y\")) = 0.5 AND trunc(\"__weir_y\") % 2 "
                       "= 0 THEN trunc(\"__weir_y\") ELSE round(\"__weir_y\") "
                       "END)[1] * ");
        pow10_literal(out, -d);
        weir__buf_putc(out, ')');
    }
    weir__buf_printf(out, " AS DECIMAL(%d,%d))", prec, scale);
    weir__buf_free(&x);
    return 1;
}

void weir__sql_exact_avg(weir_buf *out, const char *sum, const char *count,
                         int p, int s)
{
    /* The unscaled sum, a HUGEINT: twice it times 10^4 fits up to p = 23. */
    weir_buf u = WEIR_BUF_INIT;
    weir__buf_printf(&u, "CAST(%s * ", sum);
    pow10_literal(&u, s);
    weir__buf_puts(&u, " AS HUGEINT)");
    const char *us = weir__buf_cstr(&u);
    weir__buf_printf(out,
                     "CAST(CAST(CASE WHEN %s = 0 THEN NULL ELSE sign(%s) * "
                     "((abs(%s) * 20000 + %s) // (2 * %s)) END AS DECIMAL(38,0)) * ",
                     count, us, us, count, count);
    pow10_literal(out, -(s + 4));
    weir__buf_printf(out, " AS DECIMAL(%d,%d))", p + 4, s + 4);
    weir__buf_free(&u);
}

/* avg() of a DECIMAL(p,s) as Spark computes it: the exact sum divided by
 * the count, rounded HALF_UP to scale s+4 (DuckDB's avg goes through a
 * DOUBLE, wrong past 15 digits), in HUGEINT arithmetic on the unscaled
 * sum: up to p = 23. Returns 1 when it wrote the call. */
static int exact_avg(sql_tx *t, weir_buf *out, const char *name,
                     const weir_sql_expr *e)
{
    int p, s;
    if ((strcmp(name, "avg") != 0 && strcmp(name, "mean") != 0 &&
         strcmp(name, "try_avg") != 0) || e->n != 1)
        return 0;
    weir_buf x = WEIR_BUF_INIT, fo = WEIR_BUF_INIT, sum = WEIR_BUF_INIT,
             n = WEIR_BUF_INIT;
    int done = 0;
    if (!decimal_arg(t, e, &x, &p, &s) || p > 23)
        goto out;
    if (weir__fn_filter_clause(t, &fo, e, NULL) || weir__fn_over_clause(t, &fo, e))
        goto out;
    const char *d = e->distinct ? "DISTINCT " : "";
    weir__buf_printf(&sum, "sum(%s%s)%s", d, weir__buf_cstr(&x),
                     weir__buf_cstr(&fo));
    weir__buf_printf(&n, "count(%s%s)%s", d, weir__buf_cstr(&x), weir__buf_cstr(&fo));
    weir__sql_exact_avg(out, weir__buf_cstr(&sum), weir__buf_cstr(&n), p, s);
    done = 1;
out:
    weir__buf_free(&x);
    weir__buf_free(&fo);
    weir__buf_free(&sum);
    weir__buf_free(&n);
    return done;
}

/* Functions whose second argument is a Java regular expression. */
static bool regex_function(const char *name)
{
    static const char *const NAMES[] = { "rlike", "regexp", "regexp_like",
                                         "regexp_extract", "regexp_extract_all",
                                         "regexp_replace", "regexp_count",
                                         "regexp_substr", "regexp_instr",
                                         "split" };
    for (size_t i = 0; i < sizeof(NAMES) / sizeof(NAMES[0]); i++)
        if (strcmp(name, NAMES[i]) == 0)
            return true;
    return false;
}

const weir_sql_expr *weir__sql_tx_regex_arg(sql_tx *t, const weir_sql_expr *e,
                                            size_t arg)
{
    const weir_sql_expr *pat = arg == (size_t)-1 ? e->b
                               : arg < e->n      ? e->list[arg]
                                                 : NULL;
    if (!pat || pat->kind != EX_LIT || pat->lit != LIT_STRING || !pat->text)
        return e;
    weir_buf re = WEIR_BUF_INIT;
    const char *bad = NULL;
    char bad_buf[96];
    if (weir__sql_java_regex(&re, pat->text, &bad, bad_buf, sizeof(bad_buf))) {
        weir__buf_free(&re);
        weir__sql_tx_error(t, pat->pos, e->src,
                           "The regular expression '%s' uses %s, which Spark's "
                           "Java regex engine accepts and DuckDB's RE2 engine "
                           "does not",
                           pat->text, bad);
        return NULL;
    }
    if (re.failed || strcmp(weir__buf_cstr(&re), pat->text) == 0) {
        weir__buf_free(&re);
        return e;
    }
    weir_sql_expr *copy = weir__arena_alloc(t->arena, sizeof(*copy));
    weir_sql_expr *lit = weir__arena_alloc(t->arena, sizeof(*lit));
    weir_sql_expr **list = arg == (size_t)-1
                               ? NULL
                               : weir__arena_array(t->arena, e->n, sizeof(*list));
    char *text = weir__arena_strdup(t->arena, weir__buf_cstr(&re));
    weir__buf_free(&re);
    if (!copy || !lit || !text || (arg != (size_t)-1 && !list))
        return e; /* out of memory: the pattern as written */
    *copy = *e;
    *lit = *pat;
    lit->text = text;
    if (arg == (size_t)-1) {
        copy->b = lit;
    } else {
        memcpy(list, e->list, e->n * sizeof(*list));
        list[arg] = lit;
        copy->list = list;
    }
    return copy;
}

/* Functions that are casts; the session zone changes these three. */
static const struct {
    const char *name;
    sql_type_kind kind;
} CAST_FUNCS[] = { { "string", TY_STRING },
                   { "date", TY_DATE },
                   { "timestamp", TY_TIMESTAMP } };

int weir__sql_tx_func(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    char name[96];
    weir__str_copy(name, sizeof(name), e->name);
    weir__str_lower(name);
    if (weir__sql_is_generator(name))
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "Generator %s() is only supported as a "
                                  "top-level select item, in LATERAL VIEW or in "
                                  "FROM",
                                  name);
    if (strchr(name, '.'))
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "Qualified function name %s is not supported",
                                  e->name);
    bool known;
    const fn_def *d = lookup(name, e->n, &known);
    if (!d) {
        if (known)
            return weir__sql_tx_error(t, e->pos, e->src,
                                      "Function %s() does not accept %zu "
                                      "argument(s)",
                                      name, e->n);
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "Function %s() is not supported by weir (no "
                                  "DuckDB translation with Spark's semantics)",
                                  name);
    }
    if (e->n_names && d->handler != weir__fn_struct)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "Named arguments are not supported for %s()",
                                  name);
    if (!(d->flags & (F_AGG | F_WIN))) {
        if (e->over || e->filter || e->distinct || e->n_within)
            return weir__sql_tx_error(t, e->pos, e->src,
                                      "%s() is not an aggregate or window "
                                      "function",
                                      name);
    }
    if ((d->flags & F_WIN) && !(d->flags & F_AGG) && !e->over)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "Window function %s() requires an OVER clause",
                                  name);
    if (e->n_within && d->handler != weir__fn_string_agg)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "WITHIN GROUP is not supported for %s()", name);
    if (e->ignore_nulls == 1 && !strstr(d->tmpl ? d->tmpl : "$I", "$I") &&
        d->handler != weir__fn_first_last)
        return weir__sql_tx_error(t, e->pos, e->src,
                                  "IGNORE NULLS is not supported for %s()", name);
    if (regex_function(name) && !(e = weir__sql_tx_regex_arg(t, e, 1)))
        return WEIR_ESQL;
    if (t->zone && e->n == 1 && !e->over)
        for (size_t i = 0; i < sizeof(CAST_FUNCS) / sizeof(CAST_FUNCS[0]); i++)
            if (strcmp(name, CAST_FUNCS[i].name) == 0) {
                /* string(x) is CAST(x AS STRING): the zone's rules */
                weir_sql_type ty = { .kind = CAST_FUNCS[i].kind };
                weir_sql_expr cast = *e;
                cast.kind = EX_CAST;
                cast.a = e->list[0];
                cast.type = &ty;
                cast.flag = false;
                return weir__sql_tx_expr(t, out, &cast);
            }
    if (!typed_by_argument(t, name, e))
        return d->handler ? d->handler(t, out, e) : expand(t, out, e, d->tmpl);
    /* Its first argument is translated once, for its type and the call. */
    weir_buf arg = WEIR_BUF_INIT;
    int rc = weir__sql_tx_expr(t, &arg, e->list[0]);
    if (!rc && arg.failed)
        rc = WEIR_ERR(t->err, WEIR_ENOMEM, NULL, "out of memory");
    const weir_sql_expr *done = t->done;
    const char *done_text = t->done_text;
    t->done = e->list[0];
    t->done_text = weir__buf_cstr(&arg);
    int prec, scale;
    if (rc || spark_rounding(t, out, name, e) || exact_avg(t, out, name, e)) {
        /* written, or failed */
    } else if (spark_decimal_result(t, name, e, &prec, &scale)) {
        weir__buf_puts(out, "CAST(");
        rc = d->handler ? d->handler(t, out, e) : expand(t, out, e, d->tmpl);
        weir__buf_printf(out, " AS DECIMAL(%d,%d))", prec, scale);
    } else {
        rc = d->handler ? d->handler(t, out, e) : expand(t, out, e, d->tmpl);
    }
    t->done = done;
    t->done_text = done_text;
    weir__buf_free(&arg);
    return rc;
}
