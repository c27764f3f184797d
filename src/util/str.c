/*
 * String helpers (see str.h).
 */
#include "str.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

int weir__str_icmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = lower((unsigned char)*a), cb = lower((unsigned char)*b);
        if (ca != cb || !ca)
            return ca - cb;
    }
}

bool weir__str_ieq(const char *a, const char *b)
{
    return weir__str_icmp(a, b) == 0;
}

bool weir__str_ieqn(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int ca = lower((unsigned char)a[i]), cb = lower((unsigned char)b[i]);
        if (ca != cb)
            return false;
        if (!ca)
            return true;
    }
    return true;
}

bool weir__str_starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool weir__str_istarts(const char *s, const char *prefix)
{
    return weir__str_ieqn(s, prefix, strlen(prefix));
}

bool weir__str_ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

size_t weir__str_copy(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (size) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(dst, src, k);
        dst[k] = '\0';
    }
    return n;
}

void weir__str_lower(char *s)
{
    for (; *s; s++)
        *s = (char)lower((unsigned char)*s);
}

bool weir__str_is_identifier(const char *s)
{
    if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

bool weir__str_parse_bool(const char *s, bool *out)
{
    if (weir__str_ieq(s, "true")) {
        *out = true;
        return true;
    }
    if (weir__str_ieq(s, "false")) {
        *out = false;
        return true;
    }
    return false;
}

bool weir__str_parse_duration(const char *v, double bare_unit, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || !(x >= 0) || x > 1e12 || *v == ' ')
        return false;
    while (*end == ' ')
        end++;
    double unit = !*end                                                 ? bare_unit
                  : weir__str_ieq(end, "s") || weir__str_ieq(end, "sec") ? 1
                  : weir__str_ieq(end, "ms")                             ? 1e-3
                  : weir__str_ieq(end, "m") || weir__str_ieq(end, "min") ? 60
                  : weir__str_ieq(end, "h")                              ? 3600
                                                                         : -1;
    if (unit < 0)
        return false;
    *out = x * unit;
    return true;
}

bool weir__str_parse_u64(const char *s, unsigned long long *out)
{
    if (!*s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

int weir__str_hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
