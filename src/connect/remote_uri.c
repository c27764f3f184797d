/*
 * Spark Connect connection strings (`sc://HOST[:PORT][/;key=value;...]`,
 * Spark's client connection string format) for `weir run --remote`, and
 * the errors a Spark Connect server answers, decoded from
 * grpc-status-details-bin into weir_errors. Owns nothing beyond the
 * caller's structs.
 */
#include "connect/connect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/grpc.h"
#include "connect/internal.h"
#include "google/rpc/error_details.pb-c.h"
#include "google/rpc/status.pb-c.h"
#include "util/error.h"

#define BAD_URI "INVALID_REMOTE_URI"

static bool copy_part(char *dst, size_t size, const char *s, size_t n)
{
    if (n >= size)
        return false;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return true;
}

static bool is_loopback_host(const char *h)
{
    return strcmp(h, "localhost") == 0 || strncmp(h, "127.", 4) == 0 ||
           strcmp(h, "::1") == 0;
}

/* HOST[:PORT] or [IPV6][:PORT], n bytes. */
static int parse_authority(weir_remote_uri *out, const char *s, size_t n,
                           const char *uri, weir_error *err)
{
    const char *host = s, *colon = NULL;
    size_t host_len;
    if (n && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close)
            return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                            "'%s': an IPv6 address needs its closing ']'", uri);
        host = s + 1;
        host_len = (size_t)(close - host);
        if (close + 1 < s + n) {
            if (close[1] != ':')
                return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                                "'%s': expected ':PORT' after the address", uri);
            colon = close + 1;
        }
    } else {
        colon = memchr(s, ':', n);
        host_len = colon ? (size_t)(colon - s) : n;
    }
    if (host_len == 0)
        return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                        "'%s' has no host (expected sc://HOST:PORT)", uri);
    if (!copy_part(out->host, sizeof out->host, host, host_len))
        return WEIR_ERR(err, WEIR_EINVAL, BAD_URI, "'%s': the host is too long",
                        uri);
    out->port = WEIR_REMOTE_DEFAULT_PORT;
    if (colon) {
        const char *p = colon + 1, *end = s + n;
        unsigned long v = 0;
        if (p == end)
            return WEIR_ERR(err, WEIR_EINVAL, BAD_URI, "'%s': the port is empty",
                            uri);
        for (; p < end; p++) {
            if (*p < '0' || *p > '9' || v > 65535)
                break;
            v = v * 10 + (unsigned long)(*p - '0');
        }
        if (p != end || v == 0 || v > 65535)
            return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                            "'%s': the port must be a number from 1 to 65535",
                            uri);
        out->port = (unsigned)v;
    }
    return 0;
}

/* One key=value parameter. */
static int parse_param(weir_remote_uri *out, const char *s, size_t n,
                       const char *uri, weir_error *err)
{
    const char *eq = memchr(s, '=', n);
    if (!eq || eq == s)
        return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                        "'%s': parameter '%.*s' is not key=value", uri, (int)n,
                        s);
    size_t klen = (size_t)(eq - s), vlen = n - klen - 1;
    const char *v = eq + 1;
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(s, k, klen) == 0)
    char *dst = NULL;
    size_t size = 0;
    if (KEY("token")) {
        dst = out->token;
        size = sizeof out->token;
    } else if (KEY("user_id")) {
        dst = out->user_id;
        size = sizeof out->user_id;
    } else if (KEY("session_id")) {
        dst = out->session_id;
        size = sizeof out->session_id;
        if (vlen != 36)
            return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                            "'%s': session_id must be a UUID", uri);
    } else if (KEY("use_ssl")) {
        if (vlen == 5 && strncmp(v, "false", 5) == 0)
            return 0;
        return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                        "'%s': use_ssl=%.*s is not supported: weir's Spark "
                        "Connect client speaks plaintext HTTP/2 only (reach "
                        "a TLS server through a local tunnel)",
                        uri, (int)vlen, v);
    } else if (KEY("user_agent") || KEY("grpc_max_message_size")) {
        return 0;
    } else {
        return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                        "'%s': unknown parameter '%.*s' (weir knows token, "
                        "user_id, session_id, user_agent, use_ssl)",
                        uri, (int)klen, s);
    }
#undef KEY
    if (vlen == 0 || !copy_part(dst, size, v, vlen))
        return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                        "'%s': the value of '%.*s' is empty or too long", uri,
                        (int)klen, s);
    return 0;
}

int weir_remote_parse_uri(weir_remote_uri *out, const char *uri,
                          weir_error *err)
{
    memset(out, 0, sizeof *out);
    if (!uri || strncmp(uri, "sc://", 5) != 0)
        return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                        "'%s' is not a Spark Connect URI (expected "
                        "sc://HOST:PORT[/;token=...])",
                        uri ? uri : "");
    const char *s = uri + 5;
    size_t auth = strcspn(s, "/;");
    int rc = parse_authority(out, s, auth, uri, err);
    if (rc)
        return rc;
    s += auth;
    if (*s == '/')
        s++;
    if (*s && *s != ';')
        return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                        "'%s': a Spark Connect URI has no path (parameters "
                        "follow as /;key=value)",
                        uri);
    while (*s == ';') {
        s++;
        size_t n = strcspn(s, ";");
        if (n && (rc = parse_param(out, s, n, uri, err)))
            return rc;
        s += n;
    }
    if (out->token[0] && !is_loopback_host(out->host))
        return WEIR_ERR(err, WEIR_EINVAL, BAD_URI,
                        "'%s': a token is sent only to a loopback host "
                        "(Spark's client sends it over TLS, which weir's "
                        "client does not have): reach %s through a local "
                        "tunnel, e.g. ssh -L",
                        uri, out->host);
    return 0;
}

/* The ErrorInfo among the status details, or NULL; free with
 * google__rpc__error_info__free_unpacked. */
static Google__Rpc__ErrorInfo *error_info(const Google__Rpc__Status *st)
{
    static const char type[] = "type.googleapis.com/google.rpc.ErrorInfo";
    for (size_t i = 0; i < st->n_details; i++) {
        const Google__Protobuf__Any *a = st->details[i];
        if (a && a->type_url && strcmp(a->type_url, type) == 0)
            return google__rpc__error_info__unpack(NULL, a->value.len,
                                                   a->value.data);
    }
    return NULL;
}

void weir__remote_status_error(weir_error *err, int code,
                               const char *grpc_message,
                               const uint8_t *details, size_t details_len)
{
    char cls[96] = "", msg[1536] = "";
    Google__Rpc__Status *st =
        details ? google__rpc__status__unpack(NULL, details_len, details) : NULL;
    Google__Rpc__ErrorInfo *info = st ? error_info(st) : NULL;
    for (size_t i = 0; info && i < info->n_metadata; i++) {
        const Google__Rpc__ErrorInfo__MetadataEntry *m = info->metadata[i];
        if (m && m->key && m->value && strcmp(m->key, "errorClass") == 0)
            snprintf(cls, sizeof cls, "%s", m->value);
    }
    const char *text = st && st->message && st->message[0] ? st->message
                                                           : grpc_message;
    while (text && (*text == '\n' || *text == '\r' || *text == ' '))
        text++;
    if (text && text[0]) {
        /* "[CLASS] message": the class once, in error_class. */
        const char *close = text[0] == '[' ? strchr(text, ']') : NULL;
        size_t n = close ? (size_t)(close - text - 1) : 0;
        if (close && n && n < sizeof cls && close[1] == ' ' &&
            strcspn(text + 1, " ") > n) {
            if (!cls[0] || (strlen(cls) == n && memcmp(cls, text + 1, n) == 0)) {
                memcpy(cls, text + 1, n);
                cls[n] = '\0';
                text = close + 2;
            }
        }
        snprintf(msg, sizeof msg, "%s", text);
    } else if (info && info->reason && info->reason[0]) {
        snprintf(msg, sizeof msg, "%s", info->reason);
    } else {
        snprintf(msg, sizeof msg, "the Spark Connect server answered gRPC "
                                  "status %d without a message",
                 code);
    }
    if (info)
        google__rpc__error_info__free_unpacked(info, NULL);
    if (st)
        google__rpc__status__free_unpacked(st, NULL);
    /* One line: Spark's messages carry the query plan on later lines. */
    msg[strcspn(msg, "\r\n")] = '\0';
    /* A parser error ends with " (line N, pos M)", M counted from 0. */
    unsigned line = 0, pos = 0;
    char *at = strstr(msg, " (line ");
    int used = 0;
    if (at && sscanf(at, " (line %u, pos %u)%n", &line, &pos, &used) == 2 &&
        used > 0 && at[used] == '\0' && line > 0)
        *at = '\0';
    else
        line = 0;
    WEIR_ERR(err, WEIR_EENGINE, cls[0] ? cls : "SPARK_CONNECT_ERROR", "%s",
             msg);
    if (line && err) {
        err->line = line;
        err->column = pos + 1;
    }
}
