/*
 * Clocks and UUIDs (see clock.h).
 */
#define _GNU_SOURCE
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

int64_t weir__now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t weir__monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void weir__uuid(char out[37])
{
    unsigned char b[16];
    size_t got = 0;
    while (got < sizeof(b)) {
        ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            /* Fall back to the clock: ids need only be unique, not secret. */
            int64_t t = weir__now_us() ^ weir__monotonic_us();
            for (size_t i = got; i < sizeof(b); i++, t >>= 3)
                b[i] = (unsigned char)(t * 2654435761u);
            break;
        }
        got += (size_t)n;
    }
    b[6] = (unsigned char)((b[6] & 0x0F) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3F) | 0x80);
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
             b[11], b[12], b[13], b[14], b[15]);
}
