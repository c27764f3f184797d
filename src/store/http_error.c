/*
 * httpfs's errors as object-store error classes (see http_error.h).
 * DuckDB 1.4's httpfs words its failures in a few shapes, all naming the
 * URL it requested in quotes:
 *   HTTP Error: Unable to connect to URL "U": 404 (Not Found).
 *   HTTP Error: HTTP GET error on 'U' (HTTP 403) ...
 *   HTTP Error: Request returned HTTP 503 for HTTP HEAD to 'U'
 *   HTTP Error: HTTP GET error reading 'U?...list-type=2...' ... (HTTP 404 Not Found)
 *   IO Error: Could not establish connection error for HTTP HEAD to 'U'
 *   IO Error: Failed to read connection error for HTTP GET to 'U'
 * The status is the first three-digit number after "HTTP " or after the
 * quoted URL; a listing is a URL with "list-type=" in its query.
 */
#include "store/http_error.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"

/* The first quoted text of msg that is a URL (holding "://") or a path
 * (from "/": httpfs names a listing that could not connect so), either
 * quote, or "". */
static void quoted_url(char *out, size_t size, const char *msg)
{
    out[0] = '\0';
    for (const char *p = msg; *p; p++) {
        if (*p != '\'' && *p != '"')
            continue;
        const char *end = strchr(p + 1, *p);
        if (!end)
            return;
        size_t n = (size_t)(end - p - 1);
        const char *scheme = strstr(p + 1, "://");
        if ((scheme && scheme < end) || p[1] == '/') {
            snprintf(out, size, "%.*s", (int)n, p + 1);
            return;
        }
        p = end;
    }
}

/* The HTTP status msg reports, or 0: "HTTP NNN" or ": NNN (" after the
 * URL. */
static int status_of(const char *msg)
{
    for (const char *p = msg; *p; p++) {
        const char *d = NULL;
        if (!strncmp(p, "HTTP ", 5))
            d = p + 5;
        else if (!strncmp(p, "\": ", 3))
            d = p + 3;
        if (d && isdigit((unsigned char)d[0]) && isdigit((unsigned char)d[1]) &&
            isdigit((unsigned char)d[2]) && !isdigit((unsigned char)d[3]))
            return (d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0');
    }
    return 0;
}

/* url in quotes; a listing's as the prefix it lists: DuckDB names it
 * "s3://b/<glob's path>/b/?...&prefix=p%2F", or "/b/?...&prefix=p%2F"
 * when it could not connect (bucket and prefix decoded into s3://b/p/);
 * else the URL without its query. */
static void put_url(weir_buf *out, const char *url)
{
    const char *prefix = strstr(url, "prefix=");
    weir__buf_putc(out, '\'');
    if (prefix && strstr(url, "list-type=") &&
        (!strncmp(url, "s3://", 5) || !strncmp(url, "gs://", 5) ||
         url[0] == '/')) {
        const char *b = url[0] == '/' ? url + 1 : url + 5;
        if (url[0] == '/') /* a path-style listing: /bucket/?... */
            weir__buf_puts(out, "s3://");
        else
            weir__buf_put(out, url, 5);
        weir__buf_put(out, b, strcspn(b, "/?"));
        weir__buf_putc(out, '/');
        for (const char *p = prefix + 7; *p && *p != '&'; p++) {
            if (p[0] == '%' && isxdigit((unsigned char)p[1]) &&
                isxdigit((unsigned char)p[2])) {
                char hex[3] = { p[1], p[2], 0 };
                weir__buf_putc(out, (char)strtol(hex, NULL, 16));
                p += 2;
            } else {
                weir__buf_putc(out, *p);
            }
        }
    } else {
        weir__buf_put(out, url, strcspn(url, "?"));
    }
    weir__buf_putc(out, '\'');
}

/* The bucket of a listing URL (s3://b/..., or http://host/b/... with
 * path-style addressing), or "". */
static void listing_bucket(char *out, size_t size, const char *url)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    if (strncmp(url, "s3://", 5) && strncmp(url, "gs://", 5)) {
        p = strchr(p, '/'); /* past the endpoint's host */
        p = p ? p + 1 : "";
    }
    snprintf(out, size, "%.*s", (int)strcspn(p, "/?"), p);
}

int weir__http_error(weir_error *err, const char *what, const char *msg)
{
    const char *http = strstr(msg, "HTTP Error: ");
    const char *io = strstr(msg, "IO Error: ");
    bool conn = io && strstr(io, " error for HTTP ") &&
                (strstr(io, "connection") || strstr(io, "timed out") ||
                 strstr(io, "Timeout"));
    if (!http && !conn)
        return 0;
    const char *detail = http ? http + strlen("HTTP Error: ")
                              : io + strlen("IO Error: ");
    char url[1024];
    quoted_url(url, sizeof(url), detail);
    if (!url[0])
        return 0;
    int status = conn ? 0 : status_of(detail);
    bool listing = strstr(url, "list-type=") != NULL;
    const char *cls;
    weir_buf b = WEIR_BUF_INIT;
    weir__buf_puts(&b, what);
    weir__buf_put(&b, msg, (size_t)((http ? http : io) - msg));
    if (conn) {
        /* "Could not establish connection error for HTTP HEAD to 'U'" */
        const char *verb = strstr(detail, " error for HTTP ");
        verb += strlen(" error for HTTP ");
        cls = "OBJECT_STORE_UNREACHABLE";
        weir__buf_printf(&b, "the object store did not answer %.*s ",
                         (int)strcspn(verb, " "), verb);
        put_url(&b, url);
        weir__buf_printf(&b, " (%s) after httpfs's retries: check the "
                             "endpoint (spark.hadoop.fs.s3a.endpoint) and "
                             "that the store is up; fs.s3a.retry.limit, "
                             "fs.s3a.retry.interval and "
                             "fs.s3a.connection.timeout set how long weir "
                             "waits",
                         strstr(detail, "Could not establish")
                             ? "could not connect"
                             : "the connection failed or timed out");
    } else if (status == 404 && listing) {
        char bucket[256];
        listing_bucket(bucket, sizeof(bucket), url);
        cls = "OBJECT_STORE_BUCKET_NOT_FOUND";
        weir__buf_printf(&b, "the bucket '%s' does not exist (listing ",
                         bucket);
        put_url(&b, url);
        weir__buf_puts(&b, " answered HTTP 404): check the URL's bucket "
                           "and the endpoint");
    } else if (status == 404) {
        cls = "OBJECT_STORE_NOT_FOUND";
        weir__buf_puts(&b, "no object ");
        put_url(&b, url);
        weir__buf_puts(&b, " (HTTP 404): it, or its bucket, does not exist "
                           "(an object deleted since it was listed is read "
                           "again from a new listing when the flow is "
                           "retried)");
    } else if (status == 401 || status == 403) {
        cls = "OBJECT_STORE_ACCESS_DENIED";
        weir__buf_puts(&b, "access denied to ");
        put_url(&b, url);
        weir__buf_printf(&b, " (HTTP %d%s): check the credentials "
                             "(spark.hadoop.fs.s3a.access.key and "
                             "secret.key, or AWS_* variables) and what they "
                             "may read and write",
                         status,
                         strstr(detail, "No credentials are provided")
                             ? ", no credentials were given"
                         : strstr(detail, "but they did not work")
                             ? ", the credentials given were refused"
                             : "");
    } else if (status == 503 || status == 429) {
        cls = "OBJECT_STORE_THROTTLED";
        weir__buf_puts(&b, "the object store kept refusing ");
        put_url(&b, url);
        weir__buf_printf(&b, " (HTTP %d, slow down) after httpfs's retries "
                             "with backoff: fs.s3a.retry.limit and "
                             "fs.s3a.retry.interval set how long weir "
                             "retries",
                         status);
    } else {
        cls = "OBJECT_STORE_REQUEST_FAILED";
        weir__buf_puts(&b, "a request to the object store failed: ");
        weir__buf_put(&b, detail, strcspn(detail, "\n"));
    }
    int rc = WEIR_ERR(err, WEIR_EIO, cls, "%s",
                      b.failed ? "out of memory" : weir__buf_cstr(&b));
    weir__buf_free(&b);
    return rc;
}
