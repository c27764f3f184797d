/*
 * Reading a Spark Structured Streaming checkpoint folder (see
 * spark_checkpoint.h and docs/import-checkpoint.md). Opens files for
 * reading only.
 */
#define _GNU_SOURCE
#include "sources/spark_checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "util/fs.h"
#include "util/json.h"

#define NOT_FOUND "IMPORT_CHECKPOINT_NOT_FOUND"
#define INCOMPLETE "IMPORT_CHECKPOINT_INCOMPLETE"
#define UNSUPPORTED "IMPORT_CHECKPOINT_UNSUPPORTED"
#define INVALID "IMPORT_CHECKPOINT_INVALID"

/* Reading one checkpoint. */
typedef struct reader {
    const char *dir;
    weir_arena *a;
    weir_error *err;
} reader;

static int oom(reader *r)
{
    return WEIR_ERR(r->err, WEIR_ENOMEM, NULL, "out of memory");
}

/* dir/sub in the arena. */
static const char *sub(reader *r, const char *sub)
{
    return weir__arena_printf(r->a, "%s/%s", r->dir, sub);
}

/* A batch file's name: digits only (Spark's temporary and .crc files are
 * hidden, and "N.compact" is a file source log's compacted batch). */
static bool batch_name(const char *name, int64_t *id, bool *compact)
{
    const char *p = name;
    int64_t v = 0;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (*p - '0');
    }
    *compact = strcmp(p, ".compact") == 0;
    if (*p && !*compact)
        return false;
    *id = v;
    return true;
}

/* The highest batch id among the files of dir (-1: none; *found_dir
 * false when dir does not exist). Compacted names count when compact. */
static int highest_batch(reader *r, const char *dir, bool with_compact,
                         int64_t *out, bool *found_dir)
{
    *out = -1;
    *found_dir = false;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        return WEIR_ERR(r->err, WEIR_EIO, NOT_FOUND,
                        "cannot read the Spark checkpoint folder %s: %s", dir,
                        strerror(errno));
    }
    *found_dir = true;
    struct dirent *e;
    while ((e = readdir(d))) {
        int64_t id;
        bool compact;
        if (batch_name(e->d_name, &id, &compact) &&
            (with_compact || !compact) && id > *out)
            *out = id;
    }
    closedir(d);
    return 0;
}

/* The lines of a log file: the version line "vN" (checked against
 * max_version) and the rest. Blank lines are dropped. */
typedef struct log_file {
    const char *path;
    char **lines;
    size_t n;
    int version;
} log_file;

static int read_log(reader *r, const char *path, int max_version,
                    log_file *out)
{
    memset(out, 0, sizeof(*out));
    out->path = path;
    char *text = NULL;
    size_t len = 0;
    int rc = weir__fs_read(&text, &len, path, r->err);
    if (rc == WEIR_ENOTFOUND)
        return WEIR_ERR(r->err, WEIR_ENOTFOUND, INCOMPLETE,
                        "Spark checkpoint %s: %s is missing", r->dir, path);
    if (rc)
        return rc;
    char *copy = weir__arena_strndup(r->a, text, len);
    free(text);
    if (!copy)
        return oom(r);
    size_t cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += copy[i] == '\n';
    out->lines = weir__arena_array(r->a, cap, sizeof(char *));
    if (!out->lines)
        return oom(r);
    for (char *p = copy; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r')
            p[--l] = '\0';
        if (l)
            out->lines[out->n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    const char *v = out->n ? out->lines[0] : "";
    char *end = NULL;
    long ver = v[0] == 'v' ? strtol(v + 1, &end, 10) : 0;
    if (!end || *end || ver < 1)
        return WEIR_ERR(r->err, WEIR_ERROR, INVALID,
                        "Spark checkpoint %s: %s does not start with a "
                        "version line (v1)",
                        r->dir, path);
    if (ver > max_version)
        return WEIR_ERR(r->err, WEIR_ERROR, UNSUPPORTED,
                        "Spark checkpoint %s: %s is written in log version "
                        "v%ld, weir reads up to v%d (what Spark 3.x and 4.x "
                        "write)",
                        r->dir, path, ver, max_version);
    out->version = (int)ver;
    return 0;
}

static int parse_json(reader *r, const char *path, const char *text,
                      weir_json **out)
{
    weir_error e;
    if (weir__json_parse(out, r->a, text, strlen(text), &e))
        return WEIR_ERR(r->err, WEIR_ERROR, INVALID,
                        "Spark checkpoint %s: %s holds a line that is not "
                        "JSON (%s)",
                        r->dir, path, e.message);
    return 0;
}

/* A whole number of a JSON member. */
static bool json_int(const weir_json *j, int64_t *out)
{
    if (!j || j->type != WEIR_JSON_NUMBER || !j->text)
        return false;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(j->text, &end, 10);
    if (errno || end == j->text || (size_t)(end - j->text) != j->text_len)
        return false;
    *out = v;
    return true;
}

/* ---- the file source's log ------------------------------------------------ */

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* A file: URI (file:///a/b or file:/a/b, percent-encoded) as a local path;
 * NULL for another scheme. */
static const char *local_path(reader *r, const char *uri)
{
    const char *p;
    if (!strncmp(uri, "file://", 7) && uri[7] == '/')
        p = uri + 7;
    else if (!strncmp(uri, "file:/", 6))
        p = uri + 5;
    else if (uri[0] == '/')
        p = uri;
    else
        return NULL;
    weir_buf b = WEIR_BUF_INIT;
    for (; *p; p++) {
        int hi, lo;
        if (*p == '%' && (hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0) {
            weir__buf_putc(&b, (char)(hi * 16 + lo));
            p += 2;
        } else {
            weir__buf_putc(&b, *p);
        }
    }
    const char *out = b.failed ? NULL : weir__arena_strdup(r->a, weir__buf_cstr(&b));
    weir__buf_free(&b);
    return out ? out : "";
}

typedef struct file_vec {
    weir_spark_file *items;
    size_t n, cap;
} file_vec;

static int add_entries(reader *r, const log_file *log, int64_t upto,
                       file_vec *v)
{
    for (size_t i = 1; i < log->n; i++) {
        weir_json *j = NULL;
        int rc = parse_json(r, log->path, log->lines[i], &j);
        if (rc)
            return rc;
        const char *uri = weir__json_get_str(j, "path");
        int64_t ts = 0, batch = 0;
        if (!uri || !json_int(weir__json_get(j, "timestamp"), &ts))
            return WEIR_ERR(r->err, WEIR_ERROR, INVALID,
                            "Spark checkpoint %s: %s line %zu is not a file "
                            "entry (path, timestamp, batchId)",
                            r->dir, log->path, i + 1);
        if (json_int(weir__json_get(j, "batchId"), &batch) && batch > upto)
            continue; /* planned after the committed batch */
        const char *path = local_path(r, uri);
        if (!path)
            return WEIR_ERR(r->err, WEIR_ERROR, UNSUPPORTED,
                            "Spark checkpoint %s: the file source read %s; "
                            "weir imports file sources of local files "
                            "(file: paths) only",
                            r->dir, uri);
        if (v->n == v->cap) {
            size_t cap = v->cap ? v->cap * 2 : 64;
            weir_spark_file *grown = weir__arena_array(r->a, cap, sizeof(*grown));
            if (!grown)
                return oom(r);
            if (v->n)
                memcpy(grown, v->items, v->n * sizeof(*grown));
            v->items = grown;
            v->cap = cap;
        }
        v->items[v->n].path = path;
        v->items[v->n].timestamp = ts;
        v->n++;
    }
    return 0;
}

/* The files source i processed up to its log batch `upto`: the last
 * compacted batch at or before it, then each batch after that. */
static int read_file_log(reader *r, size_t i, weir_spark_source *s)
{
    const char *dir = weir__arena_printf(r->a, "%s/sources/%zu", r->dir, i);
    if (!dir)
        return oom(r);
    int64_t compact = -1;
    DIR *d = opendir(dir);
    if (!d)
        return WEIR_ERR(r->err, WEIR_ENOTFOUND, INCOMPLETE,
                        "Spark checkpoint %s: the log of file source %zu "
                        "(%s) is missing",
                        r->dir, i, dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        int64_t id;
        bool c;
        if (batch_name(e->d_name, &id, &c) && c && id <= s->log_offset &&
            id > compact)
            compact = id;
    }
    closedir(d);
    file_vec v = { NULL, 0, 0 };
    int rc = 0;
    int64_t from = 0;
    if (compact >= 0) {
        log_file log;
        rc = read_log(r, weir__arena_printf(r->a, "%s/%lld.compact", dir,
                                            (long long)compact),
                      1, &log);
        if (!rc)
            rc = add_entries(r, &log, s->log_offset, &v);
        from = compact + 1;
    }
    for (int64_t b = from; !rc && b <= s->log_offset; b++) {
        log_file log;
        rc = read_log(r, weir__arena_printf(r->a, "%s/%lld", dir, (long long)b),
                      1, &log);
        if (!rc)
            rc = add_entries(r, &log, s->log_offset, &v);
    }
    s->files = v.items;
    s->n_files = v.n;
    return rc;
}

/* ---- sources --------------------------------------------------------------- */

/* What kind of source an offset is, by its shape. */
static int classify(reader *r, const char *path, size_t i, weir_spark_source *s)
{
    weir_json *j = NULL;
    int rc = parse_json(r, path, s->offset, &j);
    if (rc)
        return rc;
    const char *what = NULL;
    if (j->type == WEIR_JSON_OBJECT && weir__json_get(j, "logOffset")) {
        if (!json_int(weir__json_get(j, "logOffset"), &s->log_offset) ||
            s->log_offset < 0)
            return WEIR_ERR(r->err, WEIR_ERROR, INVALID,
                            "Spark checkpoint %s: source %zu's offset in %s "
                            "has no valid logOffset: %s",
                            r->dir, i, path, s->offset);
        s->kind = WEIR_SPARK_FILES;
        return 0;
    }
    if (j->type == WEIR_JSON_OBJECT && j->len) {
        size_t n = 0;
        bool kafka = true;
        for (size_t t = 0; t < j->len && kafka; t++) {
            const weir_json *p = j->items[t];
            kafka = p->type == WEIR_JSON_OBJECT;
            for (size_t k = 0; kafka && k < p->len; k++) {
                int64_t off;
                kafka = json_int(p->items[k], &off);
            }
            n += kafka ? p->len : 0;
        }
        if (kafka) {
            s->kind = WEIR_SPARK_KAFKA;
            s->parts = weir__arena_array(r->a, n + 1, sizeof(*s->parts));
            if (!s->parts)
                return oom(r);
            for (size_t t = 0; t < j->len; t++) {
                const weir_json *p = j->items[t];
                for (size_t k = 0; k < p->len; k++) {
                    weir_spark_partition *sp = &s->parts[s->n_parts++];
                    char *end = NULL;
                    long part = strtol(p->keys[k], &end, 10);
                    json_int(p->items[k], &sp->offset);
                    if (!end || *end || end == p->keys[k] || part < 0 ||
                        part > INT32_MAX || sp->offset < 0)
                        return WEIR_ERR(r->err, WEIR_ERROR, INVALID,
                                        "Spark checkpoint %s: source %zu's "
                                        "Kafka offset in %s has an invalid "
                                        "partition: %s",
                                        r->dir, i, path, s->offset);
                    sp->topic = j->keys[t];
                    sp->partition = (int32_t)part;
                }
            }
            return 0;
        }
        if (weir__json_get(j, "reservoirId"))
            what = "a Delta table source";
        else if (weir__json_get(j, "shardId") || weir__json_get(j, "shards"))
            what = "a Kinesis source";
    } else if (j->type == WEIR_JSON_NUMBER) {
        what = "a source whose offset is a number (rate, socket, memory)";
    }
    return WEIR_ERR(r->err, WEIR_ERROR, UNSUPPORTED,
                    "Spark checkpoint %s: source %zu is %s, which weir cannot "
                    "import (file and Kafka sources only); its offset in %s "
                    "is %s",
                    r->dir, i, what ? what : "of a kind weir does not know",
                    path, s->offset);
}

/* Operator state: weir does not take it over. */
static int check_state(reader *r)
{
    const char *state = sub(r, "state");
    if (!state)
        return oom(r);
    DIR *d = opendir(state);
    if (!d)
        return 0;
    weir_buf ops = WEIR_BUF_INIT;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_')
            continue;
        const char *meta = weir__arena_printf(r->a, "%s/%s/_metadata/metadata",
                                              state, e->d_name);
        const char *name = NULL;
        log_file log;
        weir_error ignore;
        reader quiet = { r->dir, r->a, &ignore };
        weir_json *j = NULL;
        if (meta && !read_log(&quiet, meta, 9, &log) && log.n > 1 &&
            !parse_json(&quiet, meta, log.lines[1], &j))
            name = weir__json_get_str(weir__json_get(j, "operatorInfo"),
                                      "operatorName");
        weir__buf_puts(&ops, n++ ? ", " : "");
        weir__buf_printf(&ops, "operator %s", e->d_name);
        if (name)
            weir__buf_printf(&ops, " (%s)", name);
    }
    closedir(d);
    int rc = 0;
    if (n)
        rc = WEIR_ERR(r->err, WEIR_ERROR, UNSUPPORTED,
                      "Spark checkpoint %s holds the state of stateful "
                      "operators (%s/: %s): weir does not import operator "
                      "state (aggregations, deduplication keys, watermarks), "
                      "so the query cannot resume where it stopped. Import "
                      "only checkpoints of stateless queries",
                      r->dir, state, weir__buf_cstr(&ops));
    weir__buf_free(&ops);
    return rc;
}

int weir__spark_checkpoint_read(weir_spark_checkpoint *out, weir_arena *a,
                                const char *dir, weir_error *err)
{
    memset(out, 0, sizeof(*out));
    reader r = { dir, a, err };
    out->path = dir;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return WEIR_ERR(err, WEIR_ENOTFOUND, NOT_FOUND,
                        "Spark checkpoint %s does not exist or is not a folder",
                        dir);
    const char *meta_path = sub(&r, "metadata");
    if (!meta_path)
        return oom(&r);
    char *meta = NULL;
    size_t len = 0;
    weir_error ignore;
    if (weir__fs_read(&meta, &len, meta_path, &ignore))
        return WEIR_ERR(err, WEIR_ENOTFOUND, NOT_FOUND,
                        "%s is not a Structured Streaming checkpoint: its "
                        "metadata file is missing",
                        dir);
    weir_json *j = NULL;
    char *text = weir__arena_strndup(a, meta, len);
    free(meta);
    if (!text)
        return oom(&r);
    int rc = parse_json(&r, meta_path, text, &j);
    if (rc)
        return rc;
    out->query_id = weir__json_get_str(j, "id");
    if (!out->query_id)
        return WEIR_ERR(err, WEIR_ERROR, INVALID,
                        "Spark checkpoint %s: %s has no query id", dir,
                        meta_path);
    int64_t last_offset, last_commit;
    bool have_offsets, have_commits;
    rc = highest_batch(&r, sub(&r, "offsets"), false, &last_offset,
                       &have_offsets);
    if (!rc)
        rc = highest_batch(&r, sub(&r, "commits"), false, &last_commit,
                           &have_commits);
    if (rc)
        return rc;
    if (last_offset < 0)
        return WEIR_ERR(err, WEIR_ERROR, INCOMPLETE,
                        "Spark checkpoint %s has no batch: offsets/ is %s",
                        dir, have_offsets ? "empty" : "missing");
    if (last_commit < 0)
        return WEIR_ERR(err, WEIR_ERROR, INCOMPLETE,
                        "Spark checkpoint %s has no committed batch: "
                        "offsets/%lld has no commits/%lld. Run the query "
                        "until it commits a batch, then stop it and import",
                        dir, (long long)last_offset, (long long)last_offset);
    if (last_offset > last_commit)
        return WEIR_ERR(err, WEIR_ERROR, INCOMPLETE,
                        "Spark checkpoint %s is incomplete: batch %lld has "
                        "offsets/%lld but no commits/%lld (the query stopped "
                        "while running it; its output may be partly written). "
                        "Restart the query so that it finishes the batch, "
                        "stop it, then import",
                        dir, (long long)last_offset, (long long)last_offset,
                        (long long)last_offset);
    if (last_commit > last_offset)
        return WEIR_ERR(err, WEIR_ERROR, INCOMPLETE,
                        "Spark checkpoint %s is damaged: commits/%lld has no "
                        "offsets/%lld",
                        dir, (long long)last_commit, (long long)last_commit);
    out->batch_id = last_commit;
    rc = check_state(&r);
    if (rc)
        return rc;
    log_file offsets, commit;
    const char *op = weir__arena_printf(a, "%s/offsets/%lld", dir,
                                        (long long)out->batch_id);
    const char *cp = weir__arena_printf(a, "%s/commits/%lld", dir,
                                        (long long)out->batch_id);
    if (!op || !cp)
        return oom(&r);
    rc = read_log(&r, op, 1, &offsets);
    if (!rc)
        rc = read_log(&r, cp, 2, &commit);
    if (rc)
        return rc;
    if (offsets.n < 2 || parse_json(&r, op, offsets.lines[1], &j))
        return WEIR_ERR(err, WEIR_ERROR, INVALID,
                        "Spark checkpoint %s: %s has no batch metadata line",
                        dir, op);
    out->n_sources = offsets.n - 2;
    if (!out->n_sources)
        return WEIR_ERR(err, WEIR_ERROR, INVALID,
                        "Spark checkpoint %s: %s lists no source offsets", dir,
                        op);
    out->sources = weir__arena_array(a, out->n_sources, sizeof(*out->sources));
    if (!out->sources)
        return oom(&r);
    for (size_t i = 0; !rc && i < out->n_sources; i++) {
        weir_spark_source *s = &out->sources[i];
        memset(s, 0, sizeof(*s));
        s->offset = offsets.lines[i + 2];
        if (!strcmp(s->offset, "-"))
            return WEIR_ERR(err, WEIR_ERROR, INCOMPLETE,
                            "Spark checkpoint %s: source %zu has no offset "
                            "in %s (it never produced data)",
                            dir, i, op);
        rc = classify(&r, op, i, s);
    }
    return rc;
}

int weir__spark_checkpoint_files(weir_spark_checkpoint *sc, size_t i,
                                 weir_arena *a, weir_error *err)
{
    reader r = { sc->path, a, err };
    return read_file_log(&r, i, &sc->sources[i]);
}
