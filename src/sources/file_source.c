/*
 * The file source, STREAM read_files(...) / cloud_files(...), like
 * Databricks Auto Loader (docs/files.md): each batch lists the source
 * path, leaves out the files the manifest says the flow already ingested
 * in this generation (reporting those that changed since, unless
 * allowOverwrites) and those that changed while an earlier attempt read
 * them, and reads the rest with the schema files_schema.c decides. The position
 * stored in the checkpoint row is the batch's file count; what was read
 * is the manifest (_weir.files) and the schema (_weir.file_schemas).
 */
#define _GNU_SOURCE
#include "sources/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/files.h"
#include "state/file_schemas.h"
#include "util/fs.h"
#include "util/url.h"
#include "util/map.h"

/* A batch's files and the schema they are read with. */
typedef struct file_source {
    weir_file_batch file;
    const char **files;
    size_t n_files;
    uint64_t *sizes;
    int64_t *mtimes;
} file_source;

static bool accepts(const weir_input *in)
{
    return in->source == WEIR_INPUT_FILES;
}

static const char *key(weir_arena *a, const weir_graph *g,
                       const weir_input *in, const char *root_dir)
{
    (void)g;
    char *abs = weir__path_absolute(in->external, root_dir);
    const char *k = weir__arena_printf(a, "files:%s", abs ? abs : "");
    free(abs);
    return k;
}

static bool is_unstable(const weir_source_ctx *c, const char *path)
{
    for (size_t i = 0; c->unstable && i < c->unstable->n; i++)
        if (!strcmp(c->unstable->paths[i], path))
            return true;
    return false;
}

/* Files DuckDB cannot be given by name: named in the warning, skipped. */
static void warn_unreadable(const weir_source_ctx *c, const weir_file_list *bad)
{
    if (!bad->len)
        return;
    weir_buf w = WEIR_BUF_INIT;
    weir__buf_printf(&w, "Flow '%s' skipped %zu file%s whose name cannot be "
                         "read:",
                     c->f->display, bad->len, bad->len == 1 ? "" : "s");
    for (size_t i = 0; i < bad->len && i < 5; i++) {
        weir__buf_puts(&w, i ? "; " : " ");
        weir__fs_put_escaped_name(&w, bad->items[i].path);
        weir__buf_printf(&w, " (%s)",
                         weir__fs_unreadable_name(bad->items[i].path));
    }
    weir__buf_puts(&w, bad->len > 5 ? "; ..." : "");
    weir__buf_puts(&w, bad->len == 1 ? ". Rename it to ingest it."
                                     : ". Rename them to ingest them.");
    weir__source_warn(c, weir__buf_cstr(&w));
    weir__buf_free(&w);
}

/* Files the flow ingested before, by path: their size and mtime then. */
typedef struct seen_file {
    uint64_t size;
    int64_t mtime;
} seen_file;

/* Objects come from the listing without sizes and times; those of the
 * objects the flow has not ingested are looked up (a HEAD request each),
 * and with allowOverwrites those of every object, to see which changed.
 * An object already ingested is otherwise taken as unchanged, as Auto
 * Loader takes it, so that an update costs the listing and a request
 * per new object, not one per object of the prefix. */
static int stat_objects(const weir_source_ctx *c, weir_file_list *files,
                        const weir_map *known, bool all)
{
    bool *want = calloc(files->len + 1, sizeof(bool));
    if (!want)
        return WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    bool any = false;
    for (size_t i = 0; i < files->len; i++) {
        const weir_file_info *fi = &files->items[i];
        const seen_file *old = weir__map_get(known, fi->path);
        if (!weir__url_is_remote(fi->path))
            continue;
        if (old && !all) { /* as ingested */
            files->items[i].size = old->size;
            files->items[i].mtime_us = old->mtime;
            continue;
        }
        want[i] = any = true;
    }
    int rc = any ? weir__files_stat(c->conn, files, want, c->err) : 0;
    free(want);
    return rc;
}

static int plan(const weir_source_ctx *c, const weir_input *in,
                weir_source_batch *b)
{
    file_source *fs = weir__arena_alloc(c->arena, sizeof(*fs));
    if (!fs)
        return WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    memset(fs, 0, sizeof(*fs));
    b->impl = fs;
    weir_file_list files = { NULL, 0, 0 }, bad = { NULL, 0, 0 };
    fs->file.infer = c->infer;
    fs->file.max_record = weir__files_max_record(c->conn);
    int rc = weir__file_opts(&fs->file.opts, in->tvf, c->err);
    if (!rc)
        rc = weir__files_list(&files, &bad, &fs->file.folder_missing,
                              c->conn, c->root_dir, &fs->file.opts, false,
                              c->err);
    if (rc)
        return rc;
    warn_unreadable(c, &bad);
    weir__fs_list_free(&bad);
    /* Files this flow already ingested in this generation. */
    weir_rows *seen = NULL;
    rc = weir__checkpoint_manifest_read(c->cp, c->gen, b->key, &seen);
    weir_map known = WEIR_MAP_INIT(false);
    seen_file *was = rc ? NULL
                        : weir__arena_array(c->arena, seen->n_rows + 1,
                                            sizeof(*was));
    if (!rc && !was)
        rc = WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; !rc && i < seen->n_rows; i++) {
        const char *path = weir__rows_get(seen, i, 0);
        const char *size = weir__rows_get(seen, i, 1);
        const char *mtime = weir__rows_get(seen, i, 2);
        was[i].size = size ? strtoull(size, NULL, 10) : 0;
        was[i].mtime = mtime ? strtoll(mtime, NULL, 10) : 0;
        if (path && weir__map_put(&known, path, &was[i]))
            rc = WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    }
    if (!rc)
        rc = stat_objects(c, &files, &known, fs->file.opts.allow_overwrites);
    weir_buf changed = WEIR_BUF_INIT, unstable = WEIR_BUF_INIT;
    size_t n_changed = 0, n_unstable = 0;
    if (!rc) {
        fs->files = weir__arena_array(c->arena, files.len + 1, sizeof(char *));
        fs->sizes = weir__arena_array(c->arena, files.len + 1, sizeof(uint64_t));
        fs->mtimes = weir__arena_array(c->arena, files.len + 1, sizeof(int64_t));
        for (size_t i = 0; fs->files && i < files.len; i++) {
            const weir_file_info *fi = &files.items[i];
            const seen_file *old = weir__map_get(&known, fi->path);
            bool same = old && old->size == fi->size && old->mtime == fi->mtime_us;
            if (old && !same && fs->file.opts.allow_overwrites)
                old = NULL; /* read again, in full */
            if (old) {
                /* Like Auto Loader, a file is ingested once; a change to
                 * it afterwards is reported, not read. */
                if (!same) {
                    weir__buf_puts(&changed, n_changed++ ? "; " : " ");
                    weir__fs_put_escaped_name(&changed, fi->path);
                    weir__buf_printf(&changed, " (%llu bytes when ingested, "
                                               "%llu now)",
                                     (unsigned long long)old->size,
                                     (unsigned long long)fi->size);
                }
                continue;
            }
            if (is_unstable(c, fi->path)) {
                weir__buf_puts(&unstable, n_unstable++ ? "; " : " ");
                weir__fs_put_escaped_name(&unstable, fi->path);
                continue;
            }
            fs->files[fs->n_files] = weir__arena_strdup(c->arena, fi->path);
            fs->sizes[fs->n_files] = fi->size;
            fs->mtimes[fs->n_files] = fi->mtime_us;
            fs->n_files++;
        }
        if (weir__arena_failed(c->arena))
            rc = WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
    }
    if (n_changed) {
        weir_buf w = WEIR_BUF_INIT;
        weir__buf_printf(&w, "Flow '%s': %zu file%s changed after %s ingested "
                             "and %s not read again (a file is ingested "
                             "once unless allowOverwrites is true; write "
                             "files elsewhere and move them in when "
                             "complete):%s.",
                         c->f->display, n_changed, n_changed == 1 ? "" : "s",
                         n_changed == 1 ? "it was" : "they were",
                         n_changed == 1 ? "is" : "are", weir__buf_cstr(&changed));
        weir__source_warn(c, weir__buf_cstr(&w));
        weir__buf_free(&w);
    }
    if (n_unstable) {
        weir_buf w = WEIR_BUF_INIT;
        weir__buf_printf(&w, "Flow '%s': %zu file%s changed while this update "
                             "read %s and %s left for a later update:%s.",
                         c->f->display, n_unstable, n_unstable == 1 ? "" : "s",
                         n_unstable == 1 ? "it" : "them",
                         n_unstable == 1 ? "is" : "are",
                         weir__buf_cstr(&unstable));
        weir__source_warn(c, weir__buf_cstr(&w));
        weir__buf_free(&w);
    }
    weir__buf_free(&changed);
    weir__buf_free(&unstable);
    weir__map_free(&known);
    weir__rows_free(seen);
    weir__fs_list_free(&files);
    /* The schema this batch reads with (stored, inferred, evolved). */
    if (!rc && fs->n_files)
        rc = weir__files_plan(&fs->file, c->arena, c->conn, c->cp->catalog,
                              c->f->display, c->gen, b->key, fs->files,
                              fs->n_files, c->err);
    if (!rc && !fs->n_files) {
        /* Nothing new: the stored schema (if any) shapes the empty read. */
        bool found = false;
        weir_error ignore;
        if (weir__files_plan_stored(&fs->file, c->arena, c->conn,
                                    c->cp->catalog, c->f->display, c->gen,
                                    b->key, &found, &ignore) ||
            !found)
            fs->file.schema.n = 0;
    }
    b->start = 0;
    b->end = b->new_files = (int64_t)fs->n_files;
    return rc;
}

static int render(weir_buf *out, const weir_source_read *r,
                  const weir_source_batch *b, weir_error *err)
{
    const file_source *fs = b->impl;
    if (!fs)
        return WEIR_ERR(err, WEIR_ERROR, NULL,
                        "internal error: no batch for file source");
    if (!fs->n_files) {
        weir__files_empty_relation(out, &fs->file, r->with_metadata);
        return 0;
    }
    return weir__files_render(out, &fs->file, (const char *const *)fs->files,
                              fs->sizes, fs->mtimes, fs->n_files, r->careful,
                              r->with_metadata, err);
}

/* After the batch was read: a file whose size or modification time is no
 * longer what the listing saw was being written while read, so the batch
 * may hold part of it. It is remembered, and the engine reads the batch
 * again without it (a later update ingests it once it is stable). */
static int check_read(const weir_source_ctx *c, weir_source_batch *b,
                      size_t *changed)
{
    const file_source *fs = b->impl;
    weir_source_unstable *u = c->unstable;
    int rc = 0;
    for (size_t k = 0; !rc && fs && k < fs->n_files; k++) {
        weir_file_info now;
        weir_error ignore;
        /* An object is replaced whole (S3's PUT is atomic), and httpfs
         * fails a read whose object changed under it (its ETag checks):
         * no object is read half-written, and none is looked up again. */
        if (weir__url_is_remote(fs->files[k]))
            continue;
        int src = weir__fs_stat(&now, fs->files[k], &ignore);
        if (src == WEIR_ENOTFOUND)
            continue; /* moved away after it was read: it was complete */
        if (!src) {
            free(now.path);
            if (now.size == fs->sizes[k] && now.mtime_us == fs->mtimes[k])
                continue;
        }
        char *copy = strdup(fs->files[k]);
        char **grown = copy ? realloc(u->paths, (u->n + 1) * sizeof(char *))
                            : NULL;
        if (!grown) {
            free(copy);
            rc = WEIR_ERR(c->err, WEIR_ENOMEM, NULL, "out of memory");
            break;
        }
        u->paths = grown;
        u->paths[u->n++] = copy;
        (*changed)++;
    }
    return rc;
}

/* The new or evolved schema, then the manifest of the batch's files. */
static int commit(const weir_source_ctx *c, const weir_source_batch *b)
{
    const file_source *fs = b->impl;
    int rc = 0;
    if (fs->file.store_schema && fs->n_files)
        rc = weir__file_schema_add(c->cp, c->gen, b->key,
                                   fs->file.schema_version,
                                   fs->file.schema.cols, fs->file.schema.n);
    if (!rc)
        rc = weir__checkpoint_manifest_add(c->cp, c->gen, c->batch_id, b->key,
                                           (const char *const *)fs->files,
                                           fs->sizes, fs->mtimes, fs->n_files);
    return rc;
}

static void progress(const weir_source_ctx *c, const weir_source_batch *b,
                     weir_buf *d)
{
    const file_source *fs = b->impl;
    if (fs->file.folder_missing) {
        weir__buf_puts(d, ", \"new_files\": 0, \"missing\": true");
        snprintf(c->note, c->note_size,
                 "Flow '%s': the source path %s does not exist yet; it "
                 "read nothing and will pick files up once they arrive.",
                 c->f->display, b->key + strlen("files:"));
        return;
    }
    weir__buf_printf(d, ", \"new_files\": %zu%s", fs->n_files,
                     fs->file.store_schema ? ", \"schema_changed\": true" : "");
}

/* Resolution: the schema stored with the checkpoint, or inferred. */
static int analyze(weir_buf *out, const weir_source_analysis *a,
                   weir_error *err)
{
    return weir__files_analysis_relation(out, a->conn, a->state_catalog,
                                         a->flow, a->key, a->in->tvf,
                                         a->root_dir, a->with_metadata,
                                         a->infer, err);
}

const weir_source_kind weir__source_files = {
    .name = "files",
    .accepts = accepts,
    .key = key,
    .plan = plan,
    .render = render,
    .check_read = check_read,
    .commit = commit,
    .progress = progress,
    .analyze = analyze,
};
