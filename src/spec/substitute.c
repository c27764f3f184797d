/*
 * Variable substitution in SQL files, as Spark's
 * spark.sql.variable.substitute: `${key}`, `${spark:key}`,
 * `${sparkconf:key}`, `${hiveconf:key}` and `${hivevar:key}` are replaced by
 * the value of `key` in the pipeline configuration. Textual over the whole
 * file, string literals and comments included (as Spark). Unlike Spark, an
 * unbound variable is an error (UNBOUND_SQL_VARIABLE) at the `$`'s
 * file:line:col (docs/testing.md).
 */
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "util/str.h"

static const char *lookup(const weir_spec_conf *conf, size_t n,
                          const char *key, size_t len)
{
    const char *v = NULL;
    for (size_t i = 0; i < n; i++)
        if (strlen(conf[i].key) == len && memcmp(conf[i].key, key, len) == 0)
            v = conf[i].value;
    return v;
}

static const char *const PREFIXES[] = { "spark:", "sparkconf:", "hiveconf:",
                                        "hivevar:", NULL };

bool weir__spec_substitution_on(const weir_spec_conf *conf, size_t n)
{
    const char *k = "spark.sql.variable.substitute";
    const char *v = lookup(conf, n, k, strlen(k));
    return !v || !weir__str_ieq(v, "false");
}

int weir__spec_substitute(char **out, size_t *out_len, const char *text,
                          size_t len, const weir_spec_conf *conf, size_t n,
                          const char *file, weir__diags *diags,
                          weir_error *err)
{
    size_t cap = len + 1, o = 0;
    char *buf = malloc(cap);
    int bad = 0;
    *out = NULL;
    if (!buf)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < len;) {
        const char *end = i + 2 < len && text[i] == '$' && text[i + 1] == '{'
                              ? memchr(text + i + 2, '}', len - i - 2)
                              : NULL;
        const char *v = NULL;
        size_t take = 1;
        if (end) {
            const char *key = text + i + 2;
            size_t klen = (size_t)(end - key);
            for (const char *const *p = PREFIXES; *p; p++) {
                size_t pl = strlen(*p);
                if (klen > pl && memcmp(key, *p, pl) == 0) {
                    key += pl;
                    klen -= pl;
                    break;
                }
            }
            /* As Spark's pattern: a reference has a key of non-blank
             * characters; anything else stays as written. */
            bool ref = klen > 0;
            for (size_t j = 0; j < klen && ref; j++)
                ref = !strchr(" \t\r\n\f\v", key[j]);
            v = ref ? lookup(conf, n, key, klen) : NULL;
            if (!ref) {
                end = NULL;
            } else if (!v) {
                weir_error e;
                WEIR_ERR(&e, WEIR_ESQL, "UNBOUND_SQL_VARIABLE",
                         "The variable `%.*s` in `%.*s` is not set: give it "
                         "in the spec's `configuration`, the environment or "
                         "--conf %.*s=VALUE.",
                         (int)klen, key, (int)(end - text - i + 1), text + i,
                         (int)klen, key);
                weir__error_at_offset(&e, file, text, len, i);
                if (diags)
                    weir__diags_add(diags, &e);
                if (!bad)
                    weir__error_copy(err, &e);
                bad = 1;
            }
            if (end)
                take = (size_t)(end - text - i + 1);
        }
        const char *src = v ? v : text + i;
        size_t sl = v ? strlen(v) : take;
        if (o + sl + 1 > cap) {
            cap = (o + sl + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            }
            buf = nb;
        }
        memcpy(buf + o, src, sl);
        o += sl;
        i += take;
    }
    buf[o] = '\0';
    if (bad) {
        free(buf);
        return WEIR_ESQL;
    }
    *out = buf;
    *out_len = o;
    return 0;
}
