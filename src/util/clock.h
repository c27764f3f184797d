/*
 * Time and identity: wall-clock and monotonic microseconds, UTC formatting,
 * sleeping, and random UUIDs for update and event ids.
 */
#ifndef WEIR_UTIL_CLOCK_H
#define WEIR_UTIL_CLOCK_H

#include <stddef.h>
#include <stdint.h>

int64_t weir__now_us(void);       /* wall clock, microseconds since epoch */
int64_t weir__monotonic_us(void); /* for durations */
void weir__sleep_us(int64_t us);
/* "YYYY-MM-DD HH:MM:SS" in UTC (out needs 20 bytes). */
void weir__format_time(char *out, size_t size, int64_t us);
/* ISO-8601 with microseconds and Z, e.g. 2026-01-05T10:00:00.123456Z. */
void weir__format_time_iso(char *out, size_t size, int64_t us);
/* A random version-4 UUID as 36 characters + NUL (out needs 37 bytes). */
void weir__uuid(char out[37]);

#endif
