/*
 * import_checkpoint (see import.h, docs/import-checkpoint.md): a Spark
 * checkpoint's last committed position becomes the flow's batch 0.
 */
#define _GNU_SOURCE
#include "sources/import.h"

#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/files.h"
#include "sources/kafka.h"
#include "sources/spark_checkpoint.h"
#include "util/fs.h"
#include "util/map.h"

#define MISMATCH "IMPORT_CHECKPOINT_MISMATCH"

static int oom(const weir_source_ctx *c)
{
    return WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
}

static const char *kind_name(weir_spark_source_kind k)
{
    return k == WEIR_SPARK_FILES ? "a file source" : "a Kafka source";
}

static const char *input_name(const weir_input *in)
{
    return in->source == WEIR_INPUT_FILES   ? "read_files(...)"
           : in->source == WEIR_INPUT_KAFKA ? "read_kafka(...)"
           : in->source == WEIR_INPUT_RANGE ? "range(...)"
                                            : "a table";
}

/* The real path of p (p itself when it does not exist), malloc'd. */
static char *real_or_same(const char *p)
{
    char *r = realpath(p, NULL);
    return r ? r : strdup(p);
}

/* The folder part of a source path: up to the last '/' before the first
 * glob character (the path itself when it has none). */
static char *base_of(const char *abs)
{
    size_t glob = strcspn(abs, "*?[{");
    if (!abs[glob])
        return strdup(abs);
    size_t cut = glob;
    while (cut > 0 && abs[cut - 1] != '/')
        cut--;
    return strndup(abs, cut ? cut - 1 : 0);
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strcmp(path, dir) ||
           (!strncmp(path, dir, n) && (path[n] == '/' || (n && dir[n - 1] == '/')));
}

/* Files: the processed files as manifest rows, matched to the flow's
 * listing so that planning recognises them (same path, size, mtime). */
static int import_files(const weir_source_ctx *c, weir_spark_checkpoint *sc,
                        size_t i, const weir_import_source *s, int64_t *n_out)
{
    int rc = weir__spark_checkpoint_files(sc, i, c->arena, c->err);
    if (rc) {
        weir__error_prefix(c->err, "Flow '%s' cannot import its checkpoint: ",
                           c->f->display);
        return rc;
    }
    const weir_spark_source *ss = &sc->sources[i];
    weir_file_opts opts;
    weir_file_list files = { NULL, 0, 0 };
    bool missing = false;
    rc = weir__file_opts(&opts, s->in->tvf, c->err);
    if (!rc)
        rc = weir__files_list(&files, NULL, &missing, c->conn, c->root_dir, &opts,
                              true, c->err);
    if (rc)
        return rc;
    char *abs = weir__path_absolute(opts.path, c->root_dir);
    char *base = abs ? base_of(abs) : NULL;
    char *real_base = base ? real_or_same(base) : NULL;
    weir_map by_real = WEIR_MAP_INIT(false);
    char **reals = calloc(files.len + 1, sizeof(char *));
    const char **paths = weir__arena_array(c->arena, ss->n_files + 1, sizeof(char *));
    uint64_t *sizes = weir__arena_array(c->arena, ss->n_files + 1, sizeof(uint64_t));
    int64_t *mtimes = weir__arena_array(c->arena, ss->n_files + 1, sizeof(int64_t));
    if (!abs || !base || !real_base || !reals || !paths || !sizes || !mtimes)
        rc = oom(c);
    for (size_t k = 0; !rc && k < files.len; k++) {
        reals[k] = real_or_same(files.items[k].path);
        if (!reals[k] || weir__map_put(&by_real, reals[k], &files.items[k]))
            rc = oom(c);
    }
    weir_map taken = WEIR_MAP_INIT(false);
    size_t n = 0;
    for (size_t k = 0; !rc && k < ss->n_files; k++) {
        const char *p = ss->files[k].path;
        char *rp = real_or_same(p);
        if (!rp) {
            rc = oom(c);
            break;
        }
        const weir_file_info *fi = weir__map_get(&by_real, rp);
        if (!fi && !under(rp, real_base) && !under(p, base)) {
            rc = WEIR_ERR(c->err, WEIR_ERROR, MISMATCH,
                          "Cannot import Spark checkpoint %s into flow '%s': "
                          "its file source %zu processed %s, which is not "
                          "under the flow's source path %s: the checkpoint "
                          "belongs to a query of other sources",
                          sc->path, c->f->display, i, p, abs);
        } else if (fi && !weir__map_has(&taken, fi->path)) {
            paths[n] = weir__arena_strdup(c->arena, fi->path);
            sizes[n] = fi->size;
            mtimes[n] = fi->mtime_us;
            if (!paths[n] || weir__map_put(&taken, paths[n], paths + n))
                rc = oom(c);
            n++;
        } else if (!fi && !weir__map_has(&taken, p)) {
            /* Processed, and gone (or hidden) since: recorded as Spark saw
             * it, so that it is not read should it come back. */
            paths[n] = p;
            sizes[n] = 0;
            mtimes[n] = ss->files[k].timestamp * 1000;
            if (weir__map_put(&taken, p, paths + n))
                rc = oom(c);
            n++;
        }
        free(rp);
    }
    if (!rc)
        rc = weir__checkpoint_manifest_add(c->cp, c->gen, c->batch_id, s->key,
                                           paths, sizes, mtimes, n);
    *n_out = (int64_t)n;
    weir__map_free(&taken);
    weir__map_free(&by_real);
    for (size_t k = 0; reals && k < files.len; k++)
        free(reals[k]);
    free(reals);
    free(abs);
    free(base);
    free(real_base);
    weir__fs_list_free(&files);
    return rc;
}

/* Is (topic, partition) one the flow's read_kafka(...) subscribes to? */
static bool subscribed(const weir_kafka_opts *o, const regex_t *re,
                       const char *topic, int32_t partition)
{
    if (o->sub == WEIR_KAFKA_SUBSCRIBE_PATTERN)
        return regexec(re, topic, 0, NULL, 0) == 0;
    if (o->sub == WEIR_KAFKA_ASSIGN) {
        for (size_t i = 0; i < o->n_assigned; i++)
            if (!strcmp(o->assigned[i].topic, topic) &&
                o->assigned[i].partition == partition)
                return true;
        return false;
    }
    for (size_t i = 0; i < o->n_topics; i++)
        if (!strcmp(o->topics[i], topic))
            return true;
    return false;
}

/* Kafka: each partition's offset, where the flow's next batch starts; a
 * marker row (partition -1) as the source's commit writes. */
static int import_kafka(const weir_source_ctx *c, const weir_spark_checkpoint *sc,
                        size_t i, const weir_import_source *s, int64_t *end)
{
    const weir_spark_source *ss = &sc->sources[i];
    weir_kafka_opts o;
    int rc = weir__kafka_opts(&o, c->arena, s->in->tvf, c->err);
    if (rc)
        return rc;
    regex_t re;
    bool have_re = false;
    if (o.sub == WEIR_KAFKA_SUBSCRIBE_PATTERN) {
        if (regcomp(&re, o.sub_text, REG_EXTENDED | REG_NOSUB))
            return WEIR_ERR(c->err, WEIR_ESQL, "INVALID_KAFKA_OPTION",
                            "read_kafka(): subscribePattern '%s' is not a "
                            "valid regular expression",
                            o.sub_text);
        have_re = true;
    }
    weir_checkpoint_partition *parts =
        weir__arena_array(c->arena, ss->n_parts + 1, sizeof(*parts));
    if (!parts)
        rc = oom(c);
    int64_t total = 0;
    for (size_t k = 0; !rc && k < ss->n_parts; k++) {
        const weir_spark_partition *p = &ss->parts[k];
        if (!subscribed(&o, &re, p->topic, p->partition)) {
            rc = WEIR_ERR(c->err, WEIR_ERROR, MISMATCH,
                          "Cannot import Spark checkpoint %s into flow '%s': "
                          "its Kafka source %zu read topic '%s' partition %d, "
                          "which the flow's read_kafka(%s => '%s') does not: "
                          "the checkpoint belongs to a query of other sources",
                          sc->path, c->f->display, i, p->topic,
                          (int)p->partition,
                          o.sub == WEIR_KAFKA_SUBSCRIBE_PATTERN ? "subscribePattern"
                          : o.sub == WEIR_KAFKA_ASSIGN          ? "assign"
                                                                : "subscribe",
                          o.sub_text);
            break;
        }
        parts[k + 1].topic = p->topic;
        parts[k + 1].partition = p->partition;
        parts[k + 1].start = parts[k + 1].end = p->offset;
        total = p->offset > INT64_MAX - total ? INT64_MAX : total + p->offset;
    }
    if (have_re)
        regfree(&re);
    if (rc)
        return rc;
    *end = total > 0 ? total : 1;
    parts[0].topic = "";
    parts[0].partition = -1;
    parts[0].start = 0;
    parts[0].end = *end;
    return weir__checkpoint_partitions_add(c->cp, c->gen, c->batch_id, s->key,
                                           parts, ss->n_parts + 1);
}

int weir__source_import(const weir_source_ctx *c, const char *path,
                        const char *origin, const weir_import_source *srcs,
                        size_t n, weir_buf *record)
{
    weir_spark_checkpoint sc;
    int rc = weir__spark_checkpoint_read(&sc, c->arena, path, c->err);
    if (rc) {
        weir__error_prefix(c->err, "Flow '%s' cannot import its checkpoint: ",
                           c->f->display);
        return rc;
    }
    if (sc.n_sources != n)
        return WEIR_ERR(c->err, WEIR_ERROR, MISMATCH,
                        "Cannot import Spark checkpoint %s into flow '%s': the "
                        "checkpoint's query read %zu source%s, the flow reads "
                        "%zu streaming source%s",
                        path, c->f->display, sc.n_sources,
                        sc.n_sources == 1 ? "" : "s", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
        weir_input_source want = sc.sources[i].kind == WEIR_SPARK_FILES
                                     ? WEIR_INPUT_FILES
                                     : WEIR_INPUT_KAFKA;
        if (srcs[i].in->source != want)
            return WEIR_ERR(c->err, WEIR_ERROR, MISMATCH,
                            "Cannot import Spark checkpoint %s into flow '%s': "
                            "the checkpoint's source %zu is %s, the flow's "
                            "streaming source %zu is %s",
                            path, c->f->display, i,
                            kind_name(sc.sources[i].kind), i,
                            input_name(srcs[i].in));
    }
    weir_checkpoint_row *rows =
        weir__arena_array(c->arena, n + 1, sizeof(*rows));
    if (!rows)
        return oom(c);
    int64_t files = 0;
    weir__buf_puts(record, "{\"path\": ");
    weir__buf_put_json_string(record, origin ? origin : path);
    weir__buf_puts(record, ", \"query_id\": ");
    weir__buf_put_json_string(record, sc.query_id);
    weir__buf_printf(record, ", \"batch_id\": %lld, \"sources\": [",
                     (long long)sc.batch_id);
    for (size_t i = 0; !rc && i < n; i++) {
        const weir_spark_source *ss = &sc.sources[i];
        int64_t end = 0;
        rc = ss->kind == WEIR_SPARK_FILES
                 ? import_files(c, &sc, i, &srcs[i], &end)
                 : import_kafka(c, &sc, i, &srcs[i], &end);
        if (ss->kind == WEIR_SPARK_FILES)
            files += end;
        rows[i].source = srcs[i].key;
        rows[i].epoch = 0;
        rows[i].end = end;
        weir__buf_puts(record, i ? ", {\"source\": " : "{\"source\": ");
        weir__buf_put_json_string(record, srcs[i].key);
        weir__buf_printf(record, ", \"kind\": \"%s\", \"offset\": %s",
                         ss->kind == WEIR_SPARK_FILES ? "files" : "kafka",
                         ss->offset);
        if (ss->kind == WEIR_SPARK_FILES)
            weir__buf_printf(record, ", \"files\": %lld", (long long)end);
        weir__buf_putc(record, '}');
    }
    weir__buf_puts(record, "]}");
    if (!rc)
        rc = weir__checkpoint_add_batch(c->cp, c->gen, c->batch_id, rows, n, 0);
    if (!rc)
        rc = weir__checkpoint_set_flow_state(c->cp, c->gen, c->batch_id + 1,
                                             files);
    if (!rc && record->failed)
        rc = oom(c);
    return rc;
}
