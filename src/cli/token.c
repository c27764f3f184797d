/*
 * Session tokens for weir's network endpoints: random hex strings that
 * `weir serve` prints in its sc:// URL, `weir ui` in its http:// URL, and
 * that the Python import of definition files hands to its child; token
 * files; which bind addresses are loopback. Owns nothing beyond the
 * caller's buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

bool is_loopback(const char *host)
{
    return strcmp(host, "localhost") == 0 || strcmp(host, "::1") == 0 ||
           strncmp(host, "127.", 4) == 0;
}

/* The first line of path, trimmed, into buf. Returns 0 or an exit code
 * (message printed). */
int read_token_file(const cli *c, const char *path, char *buf,
                           size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        print_error(c, "cannot read the token file %s: %s", path,
                    strerror(errno));
        return EXIT_USAGE;
    }
    if (!fgets(buf, (int)size, f))
        buf[0] = '\0';
    fclose(f);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
                 buf[n - 1] == ' ' || buf[n - 1] == '\t'))
        buf[--n] = '\0';
    size_t lead = strspn(buf, " \t");
    memmove(buf, buf + lead, n - lead + 1);
    if (!buf[0]) {
        print_error(c, "the token file %s is empty", path);
        return EXIT_USAGE;
    }
    return 0;
}

