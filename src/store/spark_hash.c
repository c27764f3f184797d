/*
 * Spark's hash functions as DuckDB scalar functions, registered once per
 * instance: __weir_spark_hash(x, ...) is Spark's hash() (Murmur3 x86_32,
 * seed 42, an INT) and __weir_spark_xxhash64(x, ...) its xxhash64() (XXH64,
 * seed 42, a BIGINT). Like Spark, each argument's value feeds the next
 * one's seed, a NULL leaves the seed as it is, and a value is hashed by its
 * Spark type: integers up to INT and DATE as an int, BIGINT, TIMESTAMP and
 * decimals of up to 18 digits (their unscaled value) as a long, doubles
 * and floats by their bits (-0.0 as 0.0), strings and binaries by their
 * bytes (Murmur3 with Spark's byte-at-a-time tail), wider decimals by the
 * big-endian bytes of their unscaled value; arrays and structs hash their
 * elements in order; a map is an error, as in Spark. Values must equal
 * Spark's: they are stored and compared across engines.
 */
#include "store/spark_hash.h"

#include <stdio.h>
#include <string.h>

#include "weir.h"

#define SEED 42

/* ---- Murmur3 x86_32 (Spark's Murmur3_x86_32) ---------------------------- */

static uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

static uint32_t mix_k1(uint32_t k1)
{
    return rotl32(k1 * 0xcc9e2d51u, 15) * 0x1b873593u;
}

static uint32_t mix_h1(uint32_t h1, uint32_t k1)
{
    return rotl32(h1 ^ k1, 13) * 5u + 0xe6546b64u;
}

static uint32_t fmix32(uint32_t h1, uint32_t len)
{
    h1 ^= len;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    return h1 ^ (h1 >> 16);
}

static uint32_t mm_int(uint32_t v, uint32_t seed)
{
    return fmix32(mix_h1(seed, mix_k1(v)), 4);
}

static uint32_t mm_long(uint64_t v, uint32_t seed)
{
    uint32_t h1 = mix_h1(seed, mix_k1((uint32_t)v));
    return fmix32(mix_h1(h1, mix_k1((uint32_t)(v >> 32))), 8);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint32_t mm_bytes(const unsigned char *p, size_t n, uint32_t seed)
{
    size_t aligned = n - n % 4;
    uint32_t h1 = seed;
    for (size_t i = 0; i < aligned; i += 4)
        h1 = mix_h1(h1, mix_k1(le32(p + i)));
    for (size_t i = aligned; i < n; i++) /* Spark: each byte, signed */
        h1 = mix_h1(h1, mix_k1((uint32_t)(int32_t)(signed char)p[i]));
    return fmix32(h1, (uint32_t)n);
}

/* ---- XXH64 (Spark's XXH64) ------------------------------------------------ */

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static uint64_t fmix64(uint64_t h)
{
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint64_t xx_int(uint32_t v, uint64_t seed)
{
    uint64_t h = seed + P5 + 4;
    h ^= (uint64_t)v * P1;
    return fmix64(rotl64(h, 23) * P2 + P3);
}

static uint64_t xx_long(uint64_t v, uint64_t seed)
{
    uint64_t h = seed + P5 + 8;
    h ^= rotl64(v * P2, 31) * P1;
    return fmix64(rotl64(h, 27) * P1 + P4);
}

static uint64_t xx_round(uint64_t acc, uint64_t v)
{
    return rotl64(acc + v * P2, 31) * P1;
}

static uint64_t xx_bytes(const unsigned char *p, size_t n, uint64_t seed)
{
    size_t i = 0;
    uint64_t h;
    if (n >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        for (; i + 32 <= n; i += 32) {
            v1 = xx_round(v1, le64(p + i));
            v2 = xx_round(v2, le64(p + i + 8));
            v3 = xx_round(v3, le64(p + i + 16));
            v4 = xx_round(v4, le64(p + i + 24));
        }
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        uint64_t v[4] = { v1, v2, v3, v4 };
        for (int k = 0; k < 4; k++)
            h = (h ^ xx_round(0, v[k])) * P1 + P4;
    } else {
        h = seed + P5;
    }
    h += n;
    for (; i + 8 <= n; i += 8)
        h = rotl64(h ^ xx_round(0, le64(p + i)), 27) * P1 + P4;
    for (; i + 4 <= n; i += 4)
        h = rotl64(h ^ (uint64_t)le32(p + i) * P1, 23) * P2 + P3;
    for (; i < n; i++)
        h = rotl64(h ^ (uint64_t)p[i] * P5, 11) * P1;
    return fmix64(h);
}

/* ---- values by type ----------------------------------------------------------- */

typedef struct hasher {
    bool xx;
    uint64_t h; /* Murmur3: the low 32 bits */
    const char *bad; /* a type Spark's hash has no rule for */
} hasher;

static void h_int(hasher *s, uint32_t v)
{
    s->h = s->xx ? xx_int(v, s->h) : mm_int(v, (uint32_t)s->h);
}

static void h_long(hasher *s, uint64_t v)
{
    s->h = s->xx ? xx_long(v, s->h) : mm_long(v, (uint32_t)s->h);
}

static void h_bytes(hasher *s, const unsigned char *p, size_t n)
{
    s->h = s->xx ? xx_bytes(p, n, s->h) : mm_bytes(p, n, (uint32_t)s->h);
}

/* An unscaled decimal wider than a long: Java's BigInteger.toByteArray,
 * the shortest big-endian two's complement. */
static void h_wide(hasher *s, duckdb_hugeint v)
{
    unsigned char b[16];
    for (int i = 0; i < 8; i++) {
        b[7 - i] = (unsigned char)((uint64_t)v.upper >> (8 * i));
        b[15 - i] = (unsigned char)(v.lower >> (8 * i));
    }
    int at = 0;
    while (at < 15 && ((b[at] == 0x00 && !(b[at + 1] & 0x80)) ||
                       (b[at] == 0xff && (b[at + 1] & 0x80))))
        at++;
    h_bytes(s, b + at, (size_t)(16 - at));
}

static void h_value(hasher *s, duckdb_vector v, duckdb_logical_type t, idx_t row);

static bool valid_at(duckdb_vector v, idx_t row)
{
    uint64_t *valid = duckdb_vector_get_validity(v);
    return !valid || duckdb_validity_row_is_valid(valid, row);
}

static void h_decimal(hasher *s, const void *data, duckdb_logical_type t,
                      idx_t row)
{
    duckdb_type in = duckdb_decimal_internal_type(t);
    int64_t x = in == DUCKDB_TYPE_SMALLINT  ? ((const int16_t *)data)[row]
                : in == DUCKDB_TYPE_INTEGER ? ((const int32_t *)data)[row]
                : in == DUCKDB_TYPE_BIGINT  ? ((const int64_t *)data)[row]
                                            : 0;
    if (duckdb_decimal_width(t) <= 18)
        h_long(s, (uint64_t)x);
    else
        h_wide(s, ((const duckdb_hugeint *)data)[row]);
}

static void h_nested(hasher *s, duckdb_vector v, duckdb_logical_type t,
                     duckdb_type id, idx_t row)
{
    if (id == DUCKDB_TYPE_STRUCT) {
        idx_t n = duckdb_struct_type_child_count(t);
        for (idx_t i = 0; i < n; i++) {
            duckdb_logical_type ct = duckdb_struct_type_child_type(t, i);
            h_value(s, duckdb_struct_vector_get_child(v, i), ct, row);
            duckdb_destroy_logical_type(&ct);
        }
        return;
    }
    const duckdb_list_entry *e = duckdb_vector_get_data(v);
    duckdb_vector child = duckdb_list_vector_get_child(v);
    duckdb_logical_type ct = duckdb_list_type_child_type(t);
    for (idx_t i = e[row].offset; i < e[row].offset + e[row].length; i++)
        h_value(s, child, ct, i);
    duckdb_destroy_logical_type(&ct);
}

static void h_value(hasher *s, duckdb_vector v, duckdb_logical_type t, idx_t row)
{
    if (!valid_at(v, row) || s->bad)
        return;
    duckdb_type id = duckdb_get_type_id(t);
    const void *d = duckdb_vector_get_data(v);
    switch (id) {
    case DUCKDB_TYPE_BOOLEAN: h_int(s, ((const bool *)d)[row] ? 1 : 0); break;
    case DUCKDB_TYPE_TINYINT: h_int(s, (uint32_t)((const int8_t *)d)[row]); break;
    case DUCKDB_TYPE_SMALLINT: h_int(s, (uint32_t)((const int16_t *)d)[row]); break;
    case DUCKDB_TYPE_INTEGER: h_int(s, (uint32_t)((const int32_t *)d)[row]); break;
    case DUCKDB_TYPE_DATE: h_int(s, (uint32_t)((const int32_t *)d)[row]); break;
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_TIMESTAMP:
    case DUCKDB_TYPE_TIMESTAMP_TZ: h_long(s, (uint64_t)((const int64_t *)d)[row]); break;
    case DUCKDB_TYPE_FLOAT: {
        float f = ((const float *)d)[row];
        uint32_t bits = 0x7fc00000u; /* Java's one NaN */
        if (f == 0.0f)
            bits = 0;
        else if (f == f)
            memcpy(&bits, &f, sizeof(bits));
        h_int(s, bits);
        break;
    }
    case DUCKDB_TYPE_DOUBLE: {
        double x = ((const double *)d)[row];
        uint64_t bits = 0x7ff8000000000000ull;
        if (x == 0.0)
            bits = 0;
        else if (x == x)
            memcpy(&bits, &x, sizeof(bits));
        h_long(s, bits);
        break;
    }
    case DUCKDB_TYPE_DECIMAL: h_decimal(s, d, t, row); break;
    case DUCKDB_TYPE_HUGEINT: h_wide(s, ((const duckdb_hugeint *)d)[row]); break;
    case DUCKDB_TYPE_VARCHAR:
    case DUCKDB_TYPE_BLOB: {
        duckdb_string_t str = ((const duckdb_string_t *)d)[row];
        h_bytes(s, (const unsigned char *)duckdb_string_t_data(&str),
                duckdb_string_t_length(str));
        break;
    }
    case DUCKDB_TYPE_LIST:
    case DUCKDB_TYPE_STRUCT: h_nested(s, v, t, id, row); break;
    case DUCKDB_TYPE_MAP: s->bad = "a map (Spark: DATATYPE_MISMATCH.HASH_MAP_TYPE)"; break;
    default: s->bad = "a value of this type"; break;
    }
}

static void hash_fn(duckdb_function_info info, duckdb_data_chunk input,
                    duckdb_vector output, bool xx)
{
    idx_t n = duckdb_data_chunk_get_size(input);
    idx_t cols = duckdb_data_chunk_get_column_count(input);
    void *out = duckdb_vector_get_data(output);
    for (idx_t row = 0; row < n; row++) {
        hasher s = { xx, SEED, NULL };
        for (idx_t c = 0; c < cols; c++) {
            duckdb_vector v = duckdb_data_chunk_get_vector(input, c);
            duckdb_logical_type t = duckdb_vector_get_column_type(v);
            h_value(&s, v, t, row);
            duckdb_destroy_logical_type(&t);
        }
        if (s.bad) {
            char msg[160];
            snprintf(msg, sizeof(msg), "%s() of %s is not supported by weir",
                     xx ? "xxhash64" : "hash", s.bad);
            duckdb_scalar_function_set_error(info, msg);
            return;
        }
        if (xx)
            ((int64_t *)out)[row] = (int64_t)s.h;
        else
            ((int32_t *)out)[row] = (int32_t)(uint32_t)s.h;
    }
}

static void murmur3_fn(duckdb_function_info info, duckdb_data_chunk input,
                       duckdb_vector output)
{
    hash_fn(info, input, output, false);
}

static void xxhash64_fn(duckdb_function_info info, duckdb_data_chunk input,
                        duckdb_vector output)
{
    hash_fn(info, input, output, true);
}

static int add(duckdb_connection c, const char *name, duckdb_type ret,
               duckdb_scalar_function_t fn_impl)
{
    duckdb_scalar_function fn = duckdb_create_scalar_function();
    duckdb_scalar_function_set_name(fn, name);
    duckdb_logical_type any = duckdb_create_logical_type(DUCKDB_TYPE_ANY);
    duckdb_logical_type r = duckdb_create_logical_type(ret);
    duckdb_scalar_function_set_varargs(fn, any);
    duckdb_scalar_function_set_return_type(fn, r);
    duckdb_scalar_function_set_special_handling(fn); /* NULLs reach us */
    duckdb_scalar_function_set_function(fn, fn_impl);
    duckdb_state st = duckdb_register_scalar_function(c, fn);
    duckdb_destroy_scalar_function(&fn);
    duckdb_destroy_logical_type(&any);
    duckdb_destroy_logical_type(&r);
    return st == DuckDBError ? WEIR_EENGINE : 0;
}

int weir__spark_hash_register(duckdb_connection c)
{
    if (add(c, "__weir_spark_hash", DUCKDB_TYPE_INTEGER, murmur3_fn) ||
        add(c, "__weir_spark_xxhash64", DUCKDB_TYPE_BIGINT, xxhash64_fn))
        return WEIR_EENGINE;
    return 0;
}
