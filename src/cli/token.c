/*
 * Session tokens for weir's Spark Connect endpoint: random hex strings
 * that `weir serve` prints in its sc:// URL and that the Python import of
 * definition files hands to its child. Owns nothing beyond the caller's
 * buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

bool random_token(char *buf)
{
    unsigned char raw[32];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    size_t got = 0;
    while (fd >= 0 && got < sizeof raw) {
        ssize_t r = read(fd, raw + got, sizeof raw - got);
        if (r <= 0 && errno != EINTR)
            break;
        got += r > 0 ? (size_t)r : 0;
    }
    if (fd >= 0)
        close(fd);
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(buf + 2 * i, 3, "%02x", raw[i]);
    return got == sizeof raw;
}
