/*
 * Java regular expressions (Spark's java.util.regex) as RE2 patterns
 * (DuckDB's engine). What RE2 expresses the same way is rewritten:
 * (?<name>..) groups, \Q..\E quoting, \e, and a possessive quantifier on a
 * one-character atom whose next atom cannot match that character (nothing
 * to backtrack into, so greedy is the same). Constructs RE2 lacks (other
 * possessive quantifiers, atomic groups, look-around, backreferences,
 * \G \Z \R \X \h \v \c, java character classes, flags other than i m s)
 * are refused with the construct named, so a flow fails at analysis
 * instead of at run time.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* A set of ASCII characters; full: the atom may match non-ASCII too. */
typedef struct charset {
    unsigned char bits[16];
    bool full;
} charset;

static void cs_add(charset *c, int ch)
{
    if (ch >= 0 && ch < 128)
        c->bits[ch >> 3] |= (unsigned char)(1u << (ch & 7));
}

static void cs_range(charset *c, int lo, int hi)
{
    for (int ch = lo; ch <= hi && ch < 128; ch++)
        cs_add(c, ch);
}

static void cs_invert(charset *c)
{
    for (int i = 0; i < 16; i++)
        c->bits[i] = (unsigned char)~c->bits[i];
    c->full = true;
}

static bool cs_disjoint(const charset *a, const charset *b)
{
    if (a->full && b->full)
        return false;
    for (int i = 0; i < 16; i++)
        if (a->bits[i] & b->bits[i])
            return false;
    return true;
}

/* \d \s \w and their negations into c; false for another letter. */
static bool cs_class_escape(charset *c, char e)
{
    char lower = (char)(e | 0x20);
    charset k;
    memset(&k, 0, sizeof(k));
    if (lower == 'd') {
        cs_range(&k, '0', '9');
    } else if (lower == 's') {
        cs_add(&k, ' ');
        cs_range(&k, '\t', '\r');
    } else if (lower == 'w') {
        cs_range(&k, 'a', 'z');
        cs_range(&k, 'A', 'Z');
        cs_range(&k, '0', '9');
        cs_add(&k, '_');
    } else {
        return false;
    }
    if (e != lower)
        cs_invert(&k);
    for (int i = 0; i < 16; i++)
        c->bits[i] |= k.bits[i];
    c->full |= k.full;
    return true;
}

typedef struct rx {
    const char *p;   /* the Java pattern */
    size_t i, n;
    weir_buf *out;
    const char *bad; /* the refused construct */
    char bad_buf[48];
} rx;

static int refuse(rx *r, const char *what)
{
    r->bad = what;
    return -1;
}

/* The character set of the one-character atom at p[*i] (advanced past
 * it); false if it is not one (a group, an anchor, a backreference...). */
static bool atom_set(const rx *r, size_t *i, charset *c)
{
    memset(c, 0, sizeof(*c));
    const char *p = r->p;
    size_t n = r->n, k = *i;
    if (k >= n)
        return false;
    unsigned char ch = (unsigned char)p[k];
    if (ch >= 128)
        return false;
    if (ch == '.') {
        cs_range(c, 0, 127);
        c->full = true;
        *i = k + 1;
        return true;
    }
    if (ch == '\\') {
        if (k + 1 >= n)
            return false;
        char e = p[k + 1];
        if (cs_class_escape(c, e)) {
            *i = k + 2;
            return true;
        }
        if (strchr(".[]{}()*+?^$|\\/-", e)) {
            cs_add(c, e);
            *i = k + 2;
            return true;
        }
        return false;
    }
    if (ch == '[') {
        size_t j = k + 1;
        bool neg = j < n && p[j] == '^';
        if (neg)
            j++;
        bool first = true;
        while (j < n && (p[j] != ']' || first)) {
            first = false;
            int lo = (unsigned char)p[j];
            if (lo >= 128 || p[j] == '[' || (p[j] == '&' && j + 1 < n && p[j + 1] == '&'))
                return false;
            if (p[j] == '\\') {
                if (j + 1 >= n)
                    return false;
                if (cs_class_escape(c, p[j + 1])) {
                    j += 2;
                    continue;
                }
                if (!strchr(".[]{}()*+?^$|\\/-", p[j + 1]))
                    return false;
                lo = (unsigned char)p[j + 1];
                j += 2;
            } else {
                j++;
            }
            if (j + 1 < n && p[j] == '-' && p[j + 1] != ']') {
                int hi = (unsigned char)p[j + 1];
                if (hi >= 128 || p[j + 1] == '\\' || p[j + 1] == '[')
                    return false;
                cs_range(c, lo, hi);
                j += 2;
            } else {
                cs_add(c, lo);
            }
        }
        if (j >= n)
            return false;
        if (neg)
            cs_invert(c);
        *i = j + 1;
        return true;
    }
    if (strchr("()|^$*+?{", (int)ch))
        return false;
    cs_add(c, ch);
    *i = k + 1;
    return true;
}

/* Whether p[i] starts a quantifier; *end just past it (without a trailing
 * '+' or '?'). */
static bool quantifier_at(const rx *r, size_t i, size_t *end)
{
    if (i >= r->n)
        return false;
    char ch = r->p[i];
    if (ch == '*' || ch == '+' || ch == '?') {
        *end = i + 1;
        return true;
    }
    if (ch != '{')
        return false;
    size_t j = i + 1;
    bool digits = false;
    while (j < r->n && ((r->p[j] >= '0' && r->p[j] <= '9') || r->p[j] == ',')) {
        digits |= r->p[j] != ',';
        j++;
    }
    if (!digits || j >= r->n || r->p[j] != '}')
        return false;
    *end = j + 1;
    return true;
}

/* A possessive quantifier X<q>+ at atom start a: greedy when the atom
 * after it cannot match what X matches (or nothing follows). */
static bool possessive_is_greedy(const rx *r, size_t a, size_t after)
{
    size_t i = a;
    charset x, next;
    if (!atom_set(r, &i, &x))
        return false;
    if (after >= r->n || (r->p[after] == '$' && after + 1 == r->n))
        return true;
    size_t j = after;
    if (!atom_set(r, &j, &next))
        return false;
    /* the next atom must be there: if it may match nothing, what follows
     * it could match X's characters */
    size_t q_end;
    if (quantifier_at(r, j, &q_end) &&
        (r->p[j] == '*' || r->p[j] == '?' ||
         (r->p[j] == '{' && r->p[j + 1] == '0')))
        return false;
    return cs_disjoint(&x, &next);
}

static void put_literal(weir_buf *out, char ch)
{
    if (strchr(".[]{}()*+?^$|\\", ch))
        weir__buf_putc(out, '\\');
    weir__buf_putc(out, ch);
}

static int convert(rx *r)
{
    const char *p = r->p;
    size_t atom = (size_t)-1; /* start of the last atom outside classes */
    for (size_t i = 0; i < r->n;) {
        char ch = p[i];
        size_t qend;
        if (quantifier_at(r, i, &qend) && atom != (size_t)-1) {
            weir__buf_put(r->out, p + i, qend - i);
            if (qend < r->n && p[qend] == '+') {
                if (!possessive_is_greedy(r, atom, qend + 1))
                    return refuse(r, "a possessive quantifier (e.g. x*+) "
                                     "that RE2 cannot rewrite");
                qend++;
            } else if (qend < r->n && p[qend] == '?') {
                weir__buf_putc(r->out, '?');
                qend++;
            }
            i = qend;
            atom = (size_t)-1;
            continue;
        }
        atom = i;
        if (ch == '\\') {
            if (i + 1 >= r->n)
                return refuse(r, "a trailing backslash");
            char e = p[i + 1];
            if (e >= '1' && e <= '9')
                return refuse(r, "a backreference (\\1)");
            if (e == 'k')
                return refuse(r, "a named backreference (\\k<name>)");
            if (strchr("GZRXhHvVc", e)) {
                snprintf(r->bad_buf, sizeof(r->bad_buf), "the escape \\%c", e);
                return refuse(r, r->bad_buf);
            }
            if ((e == 'p' || e == 'P') && i + 6 < r->n &&
                strncmp(p + i + 2, "{java", 5) == 0)
                return refuse(r, "a java character class (\\p{java...})");
            if ((e == 'p' || e == 'P') && i + 3 < r->n && p[i + 2] == '{' &&
                (strncmp(p + i + 3, "Is", 2) == 0 || strncmp(p + i + 3, "In", 2) == 0))
                return refuse(r, "a Unicode script or block class (\\p{Is...})");
            if (e == 'Q') {
                const char *end = strstr(p + i + 2, "\\E");
                size_t stop = end ? (size_t)(end - p) : r->n;
                for (size_t k = i + 2; k < stop; k++)
                    put_literal(r->out, p[k]);
                i = end ? stop + 2 : r->n;
                continue;
            }
            if (e == 'e') {
                weir__buf_puts(r->out, "\\x1B");
                i += 2;
                continue;
            }
            weir__buf_put(r->out, p + i, 2);
            i += 2;
            continue;
        }
        if (ch == '[') {
            /* Copied as is; what RE2 would read differently is refused. */
            size_t j = i + 1;
            if (j < r->n && p[j] == '^')
                j++;
            if (j < r->n && p[j] == ']')
                j++;
            while (j < r->n && p[j] != ']') {
                if (p[j] == '\\' && j + 1 < r->n) {
                    if (strchr("QEGZRXhHvVc", p[j + 1]) ||
                        (p[j + 1] >= '1' && p[j + 1] <= '9'))
                        return refuse(r, "an escape RE2 lacks inside a character class");
                    j += 2;
                    continue;
                }
                if (p[j] == '[')
                    return refuse(r, "a nested character class ([a[b]])");
                if (p[j] == '&' && j + 1 < r->n && p[j + 1] == '&')
                    return refuse(r, "a character class intersection (&&)");
                j++;
            }
            if (j >= r->n)
                return refuse(r, "an unclosed character class");
            weir__buf_put(r->out, p + i, j + 1 - i);
            i = j + 1;
            continue;
        }
        if (ch == '(' && i + 1 < r->n && p[i + 1] == '?') {
            const char *g = p + i + 2;
            if (*g == '=' || *g == '!')
                return refuse(r, "a look-ahead ((?=...) or (?!...))");
            if (*g == '<' && (g[1] == '=' || g[1] == '!'))
                return refuse(r, "a look-behind ((?<=...) or (?<!...))");
            if (*g == '>')
                return refuse(r, "an atomic group ((?>...))");
            if (*g == '<') {
                weir__buf_puts(r->out, "(?P<");
                i += 3;
                atom = (size_t)-1;
                continue;
            }
            /* inline flags (?imsx-imsx) or (?flags:...) */
            size_t j = i + 2;
            while (j < r->n && p[j] != ')' && p[j] != ':') {
                if (!strchr("ims-", p[j]) && p[j] != 'P') {
                    snprintf(r->bad_buf, sizeof(r->bad_buf), "the inline flag %c",
                             p[j]);
                    return refuse(r, r->bad_buf);
                }
                j++;
            }
        }
        if (ch == '(' || ch == '|')
            atom = (size_t)-1;
        weir__buf_putc(r->out, ch);
        i++;
    }
    return 0;
}

int weir__sql_java_regex(weir_buf *out, const char *pattern, const char **bad,
                         char *bad_buf, size_t bad_size)
{
    rx r;
    memset(&r, 0, sizeof(r));
    r.p = pattern;
    r.n = strlen(pattern);
    r.out = out;
    int rc = convert(&r);
    if (rc && bad) {
        snprintf(bad_buf, bad_size, "%s", r.bad);
        *bad = bad_buf;
    }
    return rc;
}
