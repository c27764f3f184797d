/*
 * Object storage URLs: schemes, weir's spelling of them, their parts
 * (see url.h).
 */
#include "url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "str.h"

static const struct {
    const char *scheme; /* with "://" */
    weir_url_kind kind;
    const char *canonical;
} SCHEMES[] = {
    { "s3://", WEIR_URL_S3, "s3://" },       { "s3a://", WEIR_URL_S3, "s3://" },
    { "s3n://", WEIR_URL_S3, "s3://" },      { "gs://", WEIR_URL_GCS, "gs://" },
    { "gcs://", WEIR_URL_GCS, "gs://" },     { "abfss://", WEIR_URL_AZURE, "abfss://" },
    { "abfs://", WEIR_URL_AZURE, "abfs://" }, { "az://", WEIR_URL_AZURE, "az://" },
    { "azure://", WEIR_URL_AZURE, "az://" }, { "https://", WEIR_URL_HTTP, "https://" },
    { "http://", WEIR_URL_HTTP, "http://" },
};
#define N_SCHEMES (sizeof(SCHEMES) / sizeof(SCHEMES[0]))

/* Index of the scheme path starts with, or -1. */
static int scheme_of(const char *path)
{
    for (size_t i = 0; path && i < N_SCHEMES; i++)
        if (weir__str_istarts(path, SCHEMES[i].scheme))
            return (int)i;
    return -1;
}

weir_url_kind weir__url_kind(const char *path)
{
    int i = scheme_of(path);
    return i < 0 ? WEIR_URL_NONE : SCHEMES[i].kind;
}

const char *weir__url_kind_name(weir_url_kind k)
{
    switch (k) {
    case WEIR_URL_S3: return "S3";
    case WEIR_URL_GCS: return "GCS";
    case WEIR_URL_AZURE: return "Azure";
    case WEIR_URL_HTTP: return "HTTP";
    default: return "local";
    }
}

bool weir__url_writable(weir_url_kind k)
{
    return k == WEIR_URL_S3 || k == WEIR_URL_GCS || k == WEIR_URL_AZURE;
}

char *weir__url_normalize(const char *url)
{
    int i = scheme_of(url);
    if (i < 0)
        return strdup(url);
    const char *rest = url + strlen(SCHEMES[i].scheme);
    size_t n = strlen(rest);
    while (n > 1 && rest[n - 1] == '/')
        n--;
    size_t c = strlen(SCHEMES[i].canonical);
    char *out = malloc(c + n + 1);
    if (!out)
        return NULL;
    memcpy(out, SCHEMES[i].canonical, c);
    memcpy(out + c, rest, n);
    out[c + n] = '\0';
    return out;
}

bool weir__url_bucket(const char *url, char *out, size_t size)
{
    int i = scheme_of(url);
    if (i < 0 || !size)
        return false;
    const char *b = url + strlen(SCHEMES[i].scheme);
    size_t n = strcspn(b, "/?");
    if (!n || n >= size)
        return false;
    memcpy(out, b, n);
    out[n] = '\0';
    return true;
}

static bool scheme_char(char c)
{
    return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9');
}

const char *weir__url_find(const char *text, weir_url_kind *kind)
{
    for (const char *p = text ? strstr(text, "://") : NULL; p;
         p = strstr(p + 3, "://")) {
        /* Back over the scheme's letters. */
        const char *s = p;
        while (s > text && scheme_char(s[-1]))
            s--;
        int i = scheme_of(s);
        if (i >= 0 && s + strlen(SCHEMES[i].scheme) == p + 3) {
            if (kind)
                *kind = SCHEMES[i].kind;
            return s;
        }
    }
    return NULL;
}
