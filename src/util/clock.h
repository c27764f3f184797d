/*
 * Time and identity: wall-clock and monotonic microseconds, and random
 * UUIDs for update and event ids.
 */
#ifndef WEIR_UTIL_CLOCK_H
#define WEIR_UTIL_CLOCK_H

#include <stddef.h>
#include <stdint.h>

int64_t weir__now_us(void);       /* wall clock, microseconds since epoch */
int64_t weir__monotonic_us(void); /* for durations */
/* A random version-4 UUID as 36 characters + NUL (out needs 37 bytes). */
void weir__uuid(char out[37]);

#endif
