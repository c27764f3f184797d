/*
 * Spark's byte-level string functions that DuckDB lacks, as DuckDB scalar
 * functions registered once per instance: __weir_spark_crc32(s) is
 * Spark's crc32() (the CRC-32 of the bytes of a string or binary, zlib's,
 * as a BIGINT) and __weir_spark_soundex(s) its soundex() (the American
 * Soundex code of an ASCII-letter-led string, four characters; any other
 * string comes back unchanged, as in Spark). NULL in, NULL out.
 */
#include "store/spark_text.h"

#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "weir.h"

/* The bytes of row `row` of a VARCHAR or BLOB vector. */
static const char *bytes_at(duckdb_vector v, idx_t row, uint32_t *len)
{
    duckdb_string_t *s = (duckdb_string_t *)duckdb_vector_get_data(v) + row;
    *len = duckdb_string_t_length(*s);
    return duckdb_string_t_data(s);
}

static bool null_at(duckdb_vector v, idx_t row)
{
    uint64_t *valid = duckdb_vector_get_validity(v);
    return valid && !duckdb_validity_row_is_valid(valid, row);
}

static void set_null(duckdb_vector out, idx_t row)
{
    duckdb_vector_ensure_validity_writable(out);
    duckdb_validity_set_row_invalid(duckdb_vector_get_validity(out), row);
}

static void crc32_fn(duckdb_function_info info, duckdb_data_chunk input,
                     duckdb_vector output)
{
    (void)info;
    duckdb_vector v = duckdb_data_chunk_get_vector(input, 0);
    int64_t *out = duckdb_vector_get_data(output);
    idx_t n = duckdb_data_chunk_get_size(input);
    for (idx_t row = 0; row < n; row++) {
        if (null_at(v, row)) {
            set_null(output, row);
            continue;
        }
        uint32_t len;
        const char *p = bytes_at(v, row, &len);
        out[row] = (int64_t)crc32(0L, (const Bytef *)p, len);
    }
}

/* The Soundex digit of each letter A..Z; '7' marks H and W, which do not
 * separate two letters of the same code, '0' the vowels (and Y), which do. */
static const char CODES[] = "01230127022455012623017202";

static char upper_letter(char c)
{
    if (c >= 'a' && c <= 'z')
        return (char)(c - 32);
    return c >= 'A' && c <= 'Z' ? c : 0;
}

/* The code of s (n bytes) into out[4]; false when s keeps itself. */
static bool soundex(const char *s, uint32_t n, char out[4])
{
    char first = n ? upper_letter(s[0]) : 0;
    if (!first)
        return false;
    memset(out, '0', 4);
    out[0] = first;
    int at = 1;
    char last = CODES[first - 'A'];
    for (uint32_t i = 1; i < n && at < 4; i++) {
        char c = upper_letter(s[i]);
        if (!c) {
            last = '0';
            continue;
        }
        char code = CODES[c - 'A'];
        if (code == '7')
            continue;
        if (code != '0' && code != last)
            out[at++] = code;
        last = code;
    }
    return true;
}

static void soundex_fn(duckdb_function_info info, duckdb_data_chunk input,
                       duckdb_vector output)
{
    (void)info;
    duckdb_vector v = duckdb_data_chunk_get_vector(input, 0);
    idx_t n = duckdb_data_chunk_get_size(input);
    for (idx_t row = 0; row < n; row++) {
        if (null_at(v, row)) {
            set_null(output, row);
            continue;
        }
        uint32_t len;
        const char *p = bytes_at(v, row, &len);
        char code[4];
        if (soundex(p, len, code))
            duckdb_vector_assign_string_element_len(output, row, code, 4);
        else
            duckdb_vector_assign_string_element_len(output, row, p, len);
    }
}

static int add(duckdb_connection c, const char *name, duckdb_type arg, duckdb_type ret,
               duckdb_scalar_function_t impl)
{
    duckdb_scalar_function fn = duckdb_create_scalar_function();
    duckdb_scalar_function_set_name(fn, name);
    duckdb_logical_type a = duckdb_create_logical_type(arg);
    duckdb_logical_type r = duckdb_create_logical_type(ret);
    duckdb_scalar_function_add_parameter(fn, a);
    duckdb_scalar_function_set_return_type(fn, r);
    duckdb_scalar_function_set_special_handling(fn); /* NULLs reach us */
    duckdb_scalar_function_set_function(fn, impl);
    duckdb_state st = duckdb_register_scalar_function(c, fn);
    duckdb_destroy_scalar_function(&fn);
    duckdb_destroy_logical_type(&a);
    duckdb_destroy_logical_type(&r);
    return st == DuckDBError ? WEIR_EENGINE : 0;
}

int weir__spark_text_register(duckdb_connection c)
{
    /* one name, two overloads: a string's bytes are its UTF-8 */
    duckdb_scalar_function_set set = duckdb_create_scalar_function_set("__weir_spark_crc32");
    int rc = 0;
    duckdb_type args[] = { DUCKDB_TYPE_VARCHAR, DUCKDB_TYPE_BLOB };
    for (size_t i = 0; i < 2 && !rc; i++) {
        duckdb_scalar_function fn = duckdb_create_scalar_function();
        duckdb_scalar_function_set_name(fn, "__weir_spark_crc32");
        duckdb_logical_type a = duckdb_create_logical_type(args[i]);
        duckdb_logical_type r = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
        duckdb_scalar_function_add_parameter(fn, a);
        duckdb_scalar_function_set_return_type(fn, r);
        duckdb_scalar_function_set_special_handling(fn);
        duckdb_scalar_function_set_function(fn, crc32_fn);
        if (duckdb_add_scalar_function_to_set(set, fn) == DuckDBError)
            rc = WEIR_EENGINE;
        duckdb_destroy_scalar_function(&fn);
        duckdb_destroy_logical_type(&a);
        duckdb_destroy_logical_type(&r);
    }
    if (!rc && duckdb_register_scalar_function_set(c, set) == DuckDBError)
        rc = WEIR_EENGINE;
    duckdb_destroy_scalar_function_set(&set);
    if (!rc)
        rc = add(c, "__weir_spark_soundex", DUCKDB_TYPE_VARCHAR, DUCKDB_TYPE_VARCHAR,
                 soundex_fn);
    return rc;
}
