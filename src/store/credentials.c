/*
 * Spark's S3A settings as DuckDB secrets (see credentials.h): one secret
 * for the pipeline's fs.s3a.* keys, one more per bucket that has
 * fs.s3a.bucket.<name>.* keys of its own (scoped to s3://<name>, with the
 * global values for what it leaves out), as Hadoop's per-bucket
 * configuration works.
 */
#include "store/credentials.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/str.h"

enum { K_ACCESS, K_SECRET, K_TOKEN, K_ENDPOINT, K_PATH_STYLE, K_REGION,
       K_SSL, N_KEYS };

/* Hadoop's names of the settings, after "fs.s3a." (or a bucket's). */
static const char *const NAMES[N_KEYS] = {
    "access.key", "secret.key", "session.token", "endpoint",
    "path.style.access", "endpoint.region", "connection.ssl.enabled",
};

typedef struct {
    char *bucket; /* NULL: every bucket */
    const char *v[N_KEYS]; /* borrowed from s3.values */
} scope;

/* httpfs's settings of every request (not per bucket: DuckDB's are
 * global), from Hadoop's fs.s3a.retry.limit, .retry.interval and
 * .connection.timeout; weir's defaults are DuckDB 1.4's, set explicitly. */
typedef struct {
    long long retries;  /* http_retries */
    long long wait_ms;  /* http_retry_wait_ms (first wait; then x backoff) */
    long long timeout_s; /* http_timeout */
} http_conf;

struct weir_s3_conf {
    http_conf http;
    const char *chain; /* AWS's chain for scopes without keys: NULL (none:
                          anonymous requests), "env;config", or "" (the
                          aws extension's default chain) */
    scope *scopes; /* [0] is the global one */
    size_t n;
    char **values; /* owned copies */
    size_t n_values;
};

/* The Hadoop key of a configuration key: without "spark.hadoop.", or
 * NULL when it is not an fs.s3a. key. */
static const char *s3a_key(const char *key)
{
    if (weir__str_istarts(key, "spark.hadoop."))
        key += strlen("spark.hadoop.");
    return weir__str_istarts(key, "fs.s3a.") ? key + strlen("fs.s3a.") : NULL;
}

static int name_index(const char *name)
{
    for (int i = 0; i < N_KEYS; i++)
        if (weir__str_ieq(name, NAMES[i]))
            return i;
    if (weir__str_ieq(name, "region")) /* older spelling */
        return K_REGION;
    return -1;
}

/* Whether the environment or the home folder holds AWS credentials for
 * the aws extension's env and config providers. */
static bool aws_env(void)
{
    static const char *const VARS[] = {
        "AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_CONFIG_FILE",
    };
    for (size_t i = 0; i < sizeof(VARS) / sizeof(VARS[0]); i++) {
        const char *v = getenv(VARS[i]);
        if (v && *v)
            return true;
    }
    const char *home = getenv("HOME");
    if (!home || !*home)
        return false;
    char path[4096];
    snprintf(path, sizeof(path), "%s/.aws/credentials", home);
    if (access(path, R_OK) == 0)
        return true;
    snprintf(path, sizeof(path), "%s/.aws/config", home);
    return access(path, R_OK) == 0;
}

static scope *scope_for(weir_s3_conf *c, const char *bucket, size_t len)
{
    for (size_t i = 1; i < c->n; i++)
        if (strlen(c->scopes[i].bucket) == len &&
            strncmp(c->scopes[i].bucket, bucket, len) == 0)
            return &c->scopes[i];
    scope *s = realloc(c->scopes, (c->n + 1) * sizeof(*s));
    if (!s)
        return NULL;
    c->scopes = s;
    memset(&s[c->n], 0, sizeof(*s));
    if (!(s[c->n].bucket = strndup(bucket, len)))
        return NULL;
    return &c->scopes[c->n++];
}

static const char *keep(weir_s3_conf *c, const char *v)
{
    char **vs = realloc(c->values, (c->n_values + 1) * sizeof(*vs));
    if (!vs)
        return NULL;
    c->values = vs;
    char *copy = strdup(v);
    if (copy)
        vs[c->n_values++] = copy;
    return copy;
}

/* A Hadoop retry or timeout key (rest: after "fs.s3a.") into c->http;
 * false when rest is not one. Values were checked where they were set
 * (spec/settings.c); one that does not parse keeps the default. */
static bool add_http_key(weir_s3_conf *c, const char *rest, const char *value)
{
    double s;
    unsigned long long n;
    if (weir__str_ieq(rest, "retry.limit")) {
        if (weir__str_parse_u64(value, &n) && n <= 100)
            c->http.retries = (long long)n;
    } else if (weir__str_ieq(rest, "retry.interval")) {
        if (weir__str_parse_duration(value, 1e-3, &s) && s < 86400)
            c->http.wait_ms = (long long)(s * 1000 + 0.5);
    } else if (weir__str_ieq(rest, "connection.timeout")) {
        /* whole seconds, at least 1 (0 would be no timeout) */
        if (weir__str_parse_duration(value, 1e-3, &s) && s < 86400)
            c->http.timeout_s = s < 1 ? 1 : (long long)(s + 0.5);
    } else {
        return false;
    }
    return true;
}

/* One fs.s3a.* key (rest: after "fs.s3a.") into c; false on OOM. */
static bool add_key(weir_s3_conf *c, const char *rest, const char *value)
{
    if (add_http_key(c, rest, value))
        return true;
    scope *s = &c->scopes[0];
    if (weir__str_istarts(rest, "bucket.")) {
        const char *b = rest + strlen("bucket.");
        const char *dot = strchr(b, '.');
        if (!dot || dot == b)
            return true;
        if (!(s = scope_for(c, b, (size_t)(dot - b))))
            return false;
        rest = dot + 1;
    }
    int k = name_index(rest);
    if (k < 0)
        return true;
    return (s->v[k] = keep(c, value)) != NULL;
}

weir_s3_conf *weir__credentials_s3(const weir_kv *conf, size_t n)
{
    weir_s3_conf *c = calloc(1, sizeof(*c));
    if (!c || !(c->scopes = calloc(1, sizeof(scope)))) {
        free(c);
        return NULL;
    }
    c->n = 1;
    c->http = (http_conf){ .retries = 3, .wait_ms = 100, .timeout_s = 30 };
    bool providers = false;
    for (size_t i = 0; i < n; i++) {
        const char *rest = conf[i].key ? s3a_key(conf[i].key) : NULL;
        if (!rest || !conf[i].value)
            continue;
        /* Hadoop's provider list: any of its AWS SDK providers means the
         * whole chain (instance roles too). */
        if (weir__str_ieq(rest, "aws.credentials.provider"))
            providers = *conf[i].value != '\0';
        if (!add_key(c, rest, conf[i].value)) {
            weir__credentials_free(c);
            return NULL;
        }
    }
    /* AWS's own variables where the Spark keys say nothing. */
    const char *env_endpoint = getenv("AWS_ENDPOINT_URL_S3");
    if (!env_endpoint || !*env_endpoint)
        env_endpoint = getenv("AWS_ENDPOINT_URL");
    const char *env_region = getenv("AWS_REGION");
    if (!env_region || !*env_region)
        env_region = getenv("AWS_DEFAULT_REGION");
    scope *g = &c->scopes[0];
    if ((!g->v[K_ENDPOINT] && env_endpoint && *env_endpoint &&
         !(g->v[K_ENDPOINT] = keep(c, env_endpoint))) ||
        (!g->v[K_REGION] && env_region && *env_region &&
         !(g->v[K_REGION] = keep(c, env_region)))) {
        weir__credentials_free(c);
        return NULL;
    }
    c->chain = providers ? "" : aws_env() ? "env;config" : NULL;
    return c;
}

void weir__credentials_free(weir_s3_conf *c)
{
    if (!c)
        return;
    for (size_t i = 1; i < c->n; i++)
        free(c->scopes[i].bucket);
    for (size_t i = 0; i < c->n_values; i++)
        free(c->values[i]);
    free(c->values);
    free(c->scopes);
    free(c);
}

bool weir__credentials_chain(const weir_s3_conf *c)
{
    if (!c->chain)
        return false;
    for (size_t i = 0; i < c->n; i++)
        if (!c->scopes[i].v[K_ACCESS] && !c->scopes[0].v[K_ACCESS])
            return true;
    return false;
}

static void option(weir_buf *out, const char *name, const char *value)
{
    weir__buf_printf(out, ", %s ", name);
    weir__buf_put_sql_string(out, value);
}

/* An endpoint as DuckDB takes it (host[:port][/path]), and whether its
 * scheme says TLS (-1: no scheme). */
static void endpoint(weir_buf *out, const char *url, int *tls)
{
    *tls = -1;
    if (weir__str_istarts(url, "https://"))
        *tls = 1, url += 8;
    else if (weir__str_istarts(url, "http://"))
        *tls = 0, url += 7;
    size_t n = strlen(url);
    while (n && url[n - 1] == '/')
        n--;
    weir_buf e = WEIR_BUF_INIT;
    weir__buf_put(&e, url, n);
    option(out, "ENDPOINT", weir__buf_cstr(&e));
    weir__buf_free(&e);
}

static void one_secret(weir_buf *out, const weir_s3_conf *c, size_t i)
{
    const scope *s = &c->scopes[i], *g = &c->scopes[0];
    const char *v[N_KEYS];
    for (int k = 0; k < N_KEYS; k++)
        v[k] = s->v[k] ? s->v[k] : g->v[k];
    if (s->bucket && !s->v[K_ACCESS]) /* the bucket's own keys, or the global */
        v[K_SECRET] = g->v[K_SECRET], v[K_TOKEN] = g->v[K_TOKEN];
    weir__buf_printf(out, "CREATE OR REPLACE SECRET __weir_s3_%zu (TYPE s3", i);
    if (v[K_ACCESS]) {
        option(out, "KEY_ID", v[K_ACCESS]);
        option(out, "SECRET", v[K_SECRET] ? v[K_SECRET] : "");
        if (v[K_TOKEN])
            option(out, "SESSION_TOKEN", v[K_TOKEN]);
    } else if (c->chain) {
        weir__buf_puts(out, ", PROVIDER credential_chain");
        if (*c->chain)
            option(out, "CHAIN", c->chain);
    }
    int tls = -1;
    if (v[K_ENDPOINT])
        endpoint(out, v[K_ENDPOINT], &tls);
    if (v[K_SSL])
        tls = weir__str_ieq(v[K_SSL], "false") ? 0 : 1;
    if (tls >= 0)
        weir__buf_printf(out, ", USE_SSL %s", tls ? "true" : "false");
    if (v[K_PATH_STYLE])
        option(out, "URL_STYLE",
               weir__str_ieq(v[K_PATH_STYLE], "true") ? "path" : "vhost");
    if (v[K_REGION])
        option(out, "REGION", v[K_REGION]);
    if (s->bucket) {
        weir__buf_puts(out, ", SCOPE ");
        weir_buf sc = WEIR_BUF_INIT;
        weir__buf_printf(&sc, "s3://%s", s->bucket);
        weir__buf_put_sql_string(out, weir__buf_cstr(&sc));
        weir__buf_free(&sc);
    }
    weir__buf_puts(out, ");\n");
}

void weir__credentials_sql(const weir_s3_conf *c, weir_buf *out)
{
    for (size_t i = 0; i < c->n; i++)
        one_secret(out, c, i);
}

void weir__credentials_http_sql(const weir_s3_conf *c, weir_buf *out)
{
    weir__buf_printf(out,
                     "SET GLOBAL http_retries = %lld;\n"
                     "SET GLOBAL http_retry_wait_ms = %lld;\n"
                     "SET GLOBAL http_retry_backoff = 4;\n"
                     "SET GLOBAL http_timeout = %lld;\n",
                     c->http.retries, c->http.wait_ms, c->http.timeout_s);
}

void weir__credentials_mask(const weir_s3_conf *c, const char *msg,
                            weir_buf *out)
{
    weir_buf cur = WEIR_BUF_INIT;
    weir__buf_puts(&cur, msg ? msg : "");
    for (size_t i = 0; c && i < c->n; i++) {
        for (int k = K_ACCESS; k <= K_TOKEN; k++) {
            const char *v = c->scopes[i].v[k];
            if (!v || strlen(v) < 3)
                continue;
            weir_buf next = WEIR_BUF_INIT;
            const char *p = weir__buf_cstr(&cur), *hit;
            while ((hit = strstr(p, v))) {
                weir__buf_put(&next, p, (size_t)(hit - p));
                weir__buf_puts(&next, "***");
                p = hit + strlen(v);
            }
            weir__buf_puts(&next, p);
            weir__buf_free(&cur);
            cur = next;
        }
    }
    weir__buf_puts(out, weir__buf_cstr(&cur));
    weir__buf_free(&cur);
}
