/*
 * Session tokens for weir's network endpoints: random hex strings that
 * `weir serve` prints in its sc:// URL, `weir ui` in its http:// URL, and
 * that the Python import of definition files hands to its child; tokens
 * given in a file or an environment variable (not on the command line,
 * which /proc/PID/cmdline shows every local user); which bind addresses
 * are loopback. Owns nothing beyond the caller's buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

int endpoint_token(const cli *c, const char *token, const char *token_file,
                   const char *env_var, char *buf, size_t size, bool *given)
{
    const char *env = getenv(env_var);
    if (env && !*env)
        env = NULL; /* set but empty: not set */
    *given = token || token_file || env;
    if (token && token_file) {
        print_error(c, "--token and --token-file exclude each other");
        return EXIT_USAGE;
    }
    if (token_file)
        return read_token_file(c, token_file, buf, size);
    if (token || env) {
        const char *t = token ? token : env;
        if (strlen(t) >= size) {
            print_error(c, "the token%s%s is longer than %zu characters",
                        token ? "" : " in ", token ? "" : env_var, size - 2);
            return EXIT_USAGE;
        }
        snprintf(buf, size, "%s", t);
        return 0;
    }
    if (size < RANDOM_TOKEN_SIZE || !random_token(buf)) {
        print_error(c, "cannot read /dev/urandom for the token");
        return EXIT_FAILED;
    }
    return 0;
}
