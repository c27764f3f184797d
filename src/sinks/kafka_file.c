/*
 * The Kafka sink's staged batch file (format: kafka_file.h). Written with
 * write(2) through a buffer of its own (libweir never uses stdio's output
 * functions), read with stdio. Both sides decode a record's body with the
 * same code, so a record sent while staging is the record a recovery
 * would send from the file.
 */
#include "sinks/kafka_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "sinks/internal.h"
#include "util/str.h"

static const char MAGIC[8] = { 'W', 'E', 'I', 'R', 'K', 'F', 'K', '1' };
#define FRAME_END 0xFFFFFFFFu
#define BODY_FIXED (4 + 8 + 4 * 4)
#define WRITE_BUF (1u << 20)

/* CRC-32 (IEEE, zlib's) of p continuing from crc (0 to start). */
static uint32_t crc_add(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n) { /* zlib counts in uInt */
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = (uint32_t)crc32(crc, b, k);
        b += k;
        n -= k;
    }
    return crc;
}

static void le32(unsigned char *o, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        o[i] = (unsigned char)(v >> (8 * i));
}

static void le64(unsigned char *o, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        o[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* ---- decoding a body ----------------------------------------------------- */

/* A record decoded from a body, with the memory its parts need. */
typedef struct decoded {
    weir_kafka_record rec;
    weir_kafka_header *headers;
    size_t cap_headers;
    char *topic; /* NUL-terminated copy */
    size_t cap_topic;
} decoded;

static void decoded_free(decoded *d)
{
    free(d->headers);
    free(d->topic);
}

/* Decode hex digits in place; *len receives the byte count. */
static bool unhex(char *s, size_t n, size_t *len)
{
    if (n % 2)
        return false;
    for (size_t i = 0; i < n; i += 2) {
        int hi = weir__str_hex_value(s[i]), lo = weir__str_hex_value(s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        s[i / 2] = (char)(hi * 16 + lo);
    }
    *len = n / 2;
    return true;
}

/* A '-' (NULL) or '=<hex>' field: *out NULL for NULL. */
static bool bytes_field(char *f, const void **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (!strcmp(f, "-"))
        return true;
    if (f[0] != '=' || !unhex(f + 1, strlen(f + 1), len))
        return false;
    *out = f + 1;
    return true;
}

/* The headers text f (NUL-terminated, decoded in place). */
static bool headers_field(decoded *d, char *f)
{
    d->rec.n_headers = 0;
    if (!strcmp(f, "-"))
        return true;
    for (char *h = f; h;) {
        char *next = strchr(h, ',');
        if (next)
            *next++ = '\0';
        char *colon = strchr(h, ':');
        if (!colon)
            return false;
        *colon = '\0';
        size_t name_len;
        if (!unhex(h, strlen(h), &name_len))
            return false;
        h[name_len] = '\0';
        if (d->rec.n_headers == d->cap_headers) {
            size_t cap = d->cap_headers ? d->cap_headers * 2 : 8;
            weir_kafka_header *g = realloc(d->headers, cap * sizeof *g);
            if (!g)
                return false;
            d->headers = g;
            d->cap_headers = cap;
        }
        weir_kafka_header *hd = &d->headers[d->rec.n_headers++];
        hd->key = h;
        if (!bytes_field(colon + 1, &hd->value, &hd->value_len))
            return false;
        h = next;
    }
    d->rec.headers = d->headers;
    return true;
}

/* A field of the body at *at: *p NULL for NULL. */
static bool body_field(const unsigned char *body, size_t len, size_t *at,
                       const void **p, size_t *n)
{
    if (len - *at < 4)
        return false;
    uint32_t l = get32(body + *at);
    *at += 4;
    *p = NULL;
    *n = 0;
    if (l == FRAME_END)
        return true;
    if (l > len - *at)
        return false;
    *p = body + *at;
    *n = l;
    *at += l;
    return true;
}

/* Decode body (len bytes, a NUL after them; its header text is decoded in
 * place) into d->rec. False when it does not parse (or out of memory). */
static bool decode(decoded *d, unsigned char *body, size_t len)
{
    weir_kafka_record *rec = &d->rec;
    memset(rec, 0, sizeof *rec);
    if (len < BODY_FIXED)
        return false;
    rec->partition = (int32_t)get32(body);
    rec->timestamp_ms = (int64_t)get64(body + 4);
    size_t at = 12, topic_len = 0, headers_len = 0;
    const void *topic, *headers;
    if (!body_field(body, len, &at, &topic, &topic_len) || !topic ||
        !body_field(body, len, &at, &rec->key, &rec->key_len) ||
        !body_field(body, len, &at, &rec->value, &rec->value_len) ||
        !body_field(body, len, &at, &headers, &headers_len) || at != len)
        return false;
    if (topic_len + 1 > d->cap_topic) {
        char *g = realloc(d->topic, topic_len + 1);
        if (!g)
            return false;
        d->topic = g;
        d->cap_topic = topic_len + 1;
    }
    memcpy(d->topic, topic, topic_len);
    d->topic[topic_len] = '\0';
    rec->topic = d->topic;
    /* The headers are the body's last field: the NUL after the body ends
     * their text. */
    return !headers || headers_field(d, (char *)headers);
}

/* ---- writing ------------------------------------------------------------- */

struct weir_kafka_stage_writer {
    int fd;
    char *path;
    unsigned char *buf; /* WRITE_BUF bytes not written yet */
    size_t len;
    bool failed;
    unsigned char *body; /* the record being written, a NUL after it */
    size_t cap_body;
    int64_t n;
    decoded d;
};

static void w_flush(weir_kafka_stage_writer *w)
{
    size_t off = 0;
    while (!w->failed && off < w->len) {
        ssize_t n = write(w->fd, w->buf + off, w->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            w->failed = true;
        else
            off += (size_t)n;
    }
    w->len = 0;
}

static void w_raw(weir_kafka_stage_writer *w, const void *p, size_t n)
{
    const unsigned char *c = p;
    while (n && !w->failed) {
        if (w->len == WRITE_BUF)
            w_flush(w);
        size_t k = WRITE_BUF - w->len < n ? WRITE_BUF - w->len : n;
        memcpy(w->buf + w->len, c, k);
        w->len += k;
        c += k;
        n -= k;
    }
}

static int write_failed(const weir_kafka_stage_writer *w, weir_error *err)
{
    return WEIR_ERR(err, WEIR_EIO, NULL, "writing %s: %s", w->path,
                    strerror(errno ? errno : EIO));
}

int weir__kafka_stage_create(weir_kafka_stage_writer **out, const char *path,
                             weir_error *err)
{
    *out = NULL;
    weir_kafka_stage_writer *w = calloc(1, sizeof *w);
    if (!w)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    w->fd = -1;
    if (!(w->path = strdup(path)) || !(w->buf = malloc(WRITE_BUF))) {
        weir__kafka_stage_writer_free(w);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        int rc = WEIR_ERR(err, WEIR_EIO, NULL, "creating %s: %s", path,
                          strerror(errno));
        weir__kafka_stage_writer_free(w);
        return rc;
    }
    w_raw(w, MAGIC, sizeof MAGIC);
    *out = w;
    return 0;
}

/* Room for a body of len bytes and the NUL after it. */
static bool body_room(weir_kafka_stage_writer *w, size_t len)
{
    if (len + 1 <= w->cap_body)
        return true;
    size_t cap = w->cap_body ? w->cap_body : 4096;
    while (cap < len + 1)
        cap *= 2;
    unsigned char *g = realloc(w->body, cap);
    if (!g)
        return false;
    w->body = g;
    w->cap_body = cap;
    return true;
}

int weir__kafka_stage_append(weir_kafka_stage_writer *w,
                             const weir_db_cursor *k, size_t row,
                             const weir_kafka_record **rec, weir_error *err)
{
    static const size_t COLS[4] = { 0, 2, 3, 4 }; /* topic key value headers */
    const void *f[4];
    size_t len[4];
    bool has[4];
    uint64_t size = BODY_FIXED;
    for (int j = 0; j < 4; j++) {
        has[j] = weir__cursor_bytes(k, COLS[j], row, &f[j], &len[j]);
        if (has[j] && len[j] >= INT32_MAX)
            return WEIR_ERR(err, WEIR_EINVAL, "KAFKA_SINK_WRITE_FAILED",
                            "a record of the batch is too large for Kafka");
        size += has[j] ? len[j] : 0;
    }
    if (size >= FRAME_END)
        return WEIR_ERR(err, WEIR_EINVAL, "KAFKA_SINK_WRITE_FAILED",
                        "a record of the batch is too large for Kafka");
    if (!body_room(w, (size_t)size))
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int32_t part = -1;
    if (weir__cursor_i32(k, 1, row, &part) && part < 0)
        part = INT32_MIN; /* refused when sent */
    int64_t ts = -1;
    if (weir__cursor_i64(k, 5, row, &ts) && ts < 0)
        ts = 0;
    unsigned char *b = w->body;
    le32(b, (uint32_t)part);
    le64(b + 4, (uint64_t)ts);
    size_t at = 12;
    for (int j = 0; j < 4; j++) {
        le32(b + at, has[j] ? (uint32_t)len[j] : FRAME_END);
        at += 4;
        if (has[j] && len[j]) {
            memcpy(b + at, f[j], len[j]);
            at += len[j];
        }
    }
    b[at] = '\0';
    unsigned char frame[4];
    le32(frame, (uint32_t)at);
    w_raw(w, frame, 4);
    w_raw(w, b, at);
    le32(frame, crc_add(0, b, at));
    w_raw(w, frame, 4);
    if (w->failed)
        return write_failed(w, err);
    w->n++;
    if (rec) {
        if (!decode(&w->d, b, at))
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        *rec = &w->d.rec;
    }
    return 0;
}

int64_t weir__kafka_stage_count(const weir_kafka_stage_writer *w)
{
    return w->n;
}

int weir__kafka_stage_finish(weir_kafka_stage_writer *w, weir_error *err)
{
    unsigned char end[4 + 8 + 4];
    le32(end, FRAME_END);
    le64(end + 4, (uint64_t)w->n);
    le32(end + 12, crc_add(0, end + 4, 8));
    w_raw(w, end, sizeof end);
    w_flush(w);
    int fd = w->fd;
    w->fd = -1;
    if (close(fd) != 0)
        w->failed = true;
    if (w->failed)
        return write_failed(w, err);
    return weir__sink_sync_file(w->path, err);
}

void weir__kafka_stage_writer_free(weir_kafka_stage_writer *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    free(w->path);
    free(w->buf);
    free(w->body);
    decoded_free(&w->d);
    free(w);
}

/* ---- reading ------------------------------------------------------------- */

struct weir_kafka_stage_reader {
    FILE *f;
    char *path;
    unsigned char *body; /* the current record's, NUL after it */
    size_t cap;
    int64_t n; /* records read */
    bool ended;
    decoded d;
};

static int damaged(const weir_kafka_stage_reader *r, weir_error *err)
{
    return WEIR_ERR(err, WEIR_ECORRUPT, "KAFKA_SINK_STAGE_DAMAGED",
                    "staged batch %s: record %lld is damaged", r->path,
                    (long long)r->n + 1);
}

static bool r_read(weir_kafka_stage_reader *r, void *p, size_t n)
{
    return fread(p, 1, n, r->f) == n;
}

static int read_failed(weir_kafka_stage_reader *r, weir_error *err)
{
    return ferror(r->f) ? WEIR_ERR(err, WEIR_EIO, NULL, "reading %s: %s",
                                   r->path, strerror(errno))
                        : damaged(r, err);
}

int weir__kafka_stage_open(weir_kafka_stage_reader **out, const char *path,
                           weir_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0
                               : WEIR_ERR(err, WEIR_EIO, NULL, "opening %s: %s",
                                          path, strerror(errno));
    weir_kafka_stage_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        fclose(f);
        free(r);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    r->f = f;
    setvbuf(r->f, NULL, _IOFBF, 1 << 20);
    char magic[sizeof MAGIC];
    int rc = 0;
    if (!r_read(r, magic, sizeof magic) || memcmp(magic, MAGIC, sizeof MAGIC))
        rc = ferror(r->f) ? WEIR_ERR(err, WEIR_EIO, NULL, "reading %s: %s", path,
                                     strerror(errno))
                          : WEIR_ERR(err, WEIR_ECORRUPT, "KAFKA_SINK_STAGE_DAMAGED",
                                     "staged batch %s is damaged (not a staged "
                                     "Kafka batch)",
                                     path);
    if (rc) {
        weir__kafka_stage_reader_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int weir__kafka_stage_next(weir_kafka_stage_reader *r,
                           const weir_kafka_record **rec, weir_error *err)
{
    *rec = NULL;
    if (r->ended)
        return 0;
    unsigned char h[4];
    if (!r_read(r, h, 4))
        return read_failed(r, err);
    uint32_t len = get32(h);
    if (len == FRAME_END) {
        unsigned char end[12];
        if (!r_read(r, end, sizeof end) ||
            crc_add(0, end, 8) != get32(end + 8) ||
            (int64_t)get64(end) != r->n || fgetc(r->f) != EOF)
            return damaged(r, err);
        r->ended = true;
        return 0;
    }
    if (len < BODY_FIXED)
        return damaged(r, err);
    if ((size_t)len + 1 > r->cap) {
        unsigned char *g = realloc(r->body, (size_t)len + 1);
        if (!g)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        r->body = g;
        r->cap = (size_t)len + 1;
    }
    unsigned char c[4];
    if (!r_read(r, r->body, len) || !r_read(r, c, 4))
        return read_failed(r, err);
    if (crc_add(0, r->body, len) != get32(c))
        return damaged(r, err);
    r->body[len] = '\0';
    if (!decode(&r->d, r->body, len))
        return damaged(r, err);
    r->n++;
    *rec = &r->d.rec;
    return 0;
}

void weir__kafka_stage_reader_free(weir_kafka_stage_reader *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    free(r->path);
    free(r->body);
    decoded_free(&r->d);
    free(r);
}
