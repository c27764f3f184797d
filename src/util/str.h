/*
 * Small string helpers: ASCII case-insensitive comparison, trimming,
 * prefix/suffix tests, a bounded copy, hex digits.
 */
#ifndef WEIR_UTIL_STR_H
#define WEIR_UTIL_STR_H

#include <stdbool.h>
#include <stddef.h>

bool weir__str_ieq(const char *a, const char *b);
bool weir__str_ieqn(const char *a, const char *b, size_t n);
int weir__str_icmp(const char *a, const char *b);
bool weir__str_starts(const char *s, const char *prefix);
bool weir__str_istarts(const char *s, const char *prefix);
bool weir__str_ends(const char *s, const char *suffix);
/* Copy at most size-1 bytes and NUL-terminate; returns strlen(src). */
size_t weir__str_copy(char *dst, size_t size, const char *src);
/* Lower-case ASCII letters in place. */
void weir__str_lower(char *s);
/* The value of the hex digit c (either case), or -1. */
int weir__str_hex_value(char c);
/* Parse a boolean the way Spark does ("true"/"false", any case). */
bool weir__str_parse_bool(const char *s, bool *out);
/* Whether s is a plain identifier: an ASCII letter or underscore, then
 * letters, digits and underscores (NULL: false). */
bool weir__str_is_identifier(const char *s);
/* Parse a non-negative integer; false on junk or overflow. */
bool weir__str_parse_u64(const char *s, unsigned long long *out);
/* A duration ("500ms", "5s", "2m", "1h"; a bare number is in units of
 * bare_unit seconds: 1 for Spark's keys, 1e-3 for Hadoop's) in seconds,
 * from 0 to 1e12 units. */
bool weir__str_parse_duration(const char *s, double bare_unit, double *out);

#endif
