/*
 * What gRPC puts on the wire besides HTTP/2, shared by the server (grpc.c)
 * and the client (grpc_client.c): the 5-byte message prefix, the
 * percent-encoding of grpc-message, and base64 for binary headers
 * (grpc-status-details-bin) both ways.
 */
#include <stdint.h>
#include <stdlib.h>

#include "connect/grpc.h"
#include "util/buf.h"

void weir__grpc_put_prefix(uint8_t out[WEIR_GRPC_PREFIX], size_t len)
{
    out[0] = 0; /* not compressed */
    out[1] = (uint8_t)(len >> 24);
    out[2] = (uint8_t)(len >> 16);
    out[3] = (uint8_t)(len >> 8);
    out[4] = (uint8_t)len;
}

uint32_t weir__grpc_prefix_length(const uint8_t p[WEIR_GRPC_PREFIX])
{
    return (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 |
           p[4];
}

char *weir__grpc_percent_encode(const char *s)
{
    weir_buf b = WEIR_BUF_INIT;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p >= 0x20 && *p <= 0x7e && *p != '%')
            weir__buf_putc(&b, (char)*p);
        else
            weir__buf_printf(&b, "%%%02X", *p);
    }
    weir__buf_putc(&b, '\0');
    return weir__buf_detach(&b);
}

char *weir__grpc_base64(const void *data, size_t len)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *in = data;
    if (len > (SIZE_MAX / 4) * 3 - 3)
        return NULL;
    char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
    if (!out)
        return NULL;
    size_t i = 0;
    for (; i + 2 < len; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
        *o++ = tab[v >> 18];
        *o++ = tab[(v >> 12) & 63];
        *o++ = tab[(v >> 6) & 63];
        *o++ = tab[v & 63];
    }
    if (i < len) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)in[i + 1] << 8;
        *o++ = tab[v >> 18];
        *o++ = tab[(v >> 12) & 63];
        *o++ = i + 1 < len ? tab[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    return out;
}

static int sextet(uint8_t ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    return -1;
}

uint8_t *weir__grpc_unbase64(const char *text, size_t len, size_t *out_len)
{
    while (len && text[len - 1] == '=')
        len--;
    if (len % 4 == 1)
        return NULL;
    uint8_t *out = malloc(len / 4 * 3 + 3);
    if (!out)
        return NULL;
    size_t o = 0;
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = sextet((uint8_t)text[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
        }
    }
    *out_len = o;
    return out;
}
