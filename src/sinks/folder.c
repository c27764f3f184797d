/*
 * Sinks that are folders of files (parquet, json, csv): stage() writes a
 * batch with DuckDB's COPY into a folder of its own under the flow's
 * staging folder, named so that every file is unique per (storage, flow,
 * generation, batch); publish() moves those files into the sink's `path`
 * (keeping partition subfolders), fsyncs the folders and then removes the
 * staged batch folder, so a repeated publish moves what is left and skips
 * what is already there; discard() removes the staged batch folder.
 * A `path` on object storage (s3://...) is staged the same way, in
 * Parquet whatever the format (lossless for every DuckDB type), and
 * published by writing each staged file to the object of the same
 * relative name below the URL in the sink's format: the names are
 * deterministic per batch, so a repeated publish writes the same objects
 * again, whole (an object is replaced atomically).
 */
#include "sinks/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/objects.h"
#include "util/fs.h"
#include "util/str.h"
#include "util/url.h"

int weir__folder_validate(const weir_folder_format *f,
                          const weir_kv *options, size_t n,
                          weir_error *err)
{
    int rc = weir__sink_check_keys(options, n, f->name, f->options, err);
    if (!rc) {
        weir_arena a = WEIR_ARENA_INIT;
        const char **cols;
        size_t n_cols;
        rc = weir__sink_partition_cols(&cols, &n_cols, &a, options, n, err);
        weir__arena_free(&a);
    }
    if (!rc && f->check)
        rc = f->check(options, n, err);
    const char *path = weir__kv_get(options, n, "path");
    weir_url_kind k = path ? weir__url_kind(path) : WEIR_URL_NONE;
    if (!rc && k != WEIR_URL_NONE && k != WEIR_URL_S3)
        rc = WEIR_ERR(err, WEIR_EINVAL, "SINK_PATH_NOT_WRITABLE",
                      "the %s sink cannot write to %s: sinks on object "
                      "storage take s3:// (or s3a://) paths; %s URLs are "
                      "not supported",
                      f->name, path, weir__url_kind_name(k));
    return rc;
}

/* fsync every file under dir and every folder on the way. */
static int sync_tree(const char *dir, weir_error *err)
{
    weir_file_list files = { NULL, 0, 0 };
    int rc = weir__fs_list(&files, dir, true, false, err);
    const char *synced = NULL; /* last folder synced (files are sorted) */
    char *last = NULL;
    for (size_t i = 0; !rc && i < files.len; i++) {
        rc = weir__sink_sync_file(files.items[i].path, err);
        char *d = rc ? NULL : weir__path_dirname(files.items[i].path);
        if (!rc && !d)
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        if (!rc && (!synced || strcmp(synced, d) != 0)) {
            rc = weir__fs_sync_dir(d, err);
            free(last);
            last = d;
            synced = last;
            d = NULL;
        }
        free(d);
    }
    free(last);
    weir__fs_list_free(&files);
    return rc ? rc : weir__fs_sync_dir(dir, err);
}

int weir__folder_stage(const weir_folder_format *f, weir_conn *conn,
                       const weir_sink_batch *b, const char *sql,
                       int64_t *rows, weir_error *err)
{
    char dir[4096], prefix[128];
    weir__sink_stage_path(dir, sizeof(dir), b, "");
    weir__sink_prefix(prefix, sizeof(prefix), b);
    weir_arena a = WEIR_ARENA_INIT;
    const char **cols = NULL;
    size_t n_cols = 0;
    int rc = weir__sink_partition_cols(&cols, &n_cols, &a, b->options,
                                       b->n_options, err);
    char *target = NULL;
    if (!rc)
        rc = weir__sink_target(&target, b, err);
    bool remote = !rc && weir__url_is_remote(target);
    free(target);
    if (!rc)
        rc = weir__fs_remove_tree(dir, err);
    if (!rc)
        rc = weir__fs_mkdirs(dir, err);
    const char *ext = f->extension(b->options, b->n_options);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_printf(&q, "COPY (%s) TO ", sql);
    if (n_cols) {
        weir__buf_put_sql_string(&q, dir);
    } else {
        char file[4400];
        snprintf(file, sizeof(file), "%s/%s-0%s", dir, prefix, ext);
        weir__buf_put_sql_string(&q, file);
    }
    if (remote) {
        weir__buf_puts(&q, " (FORMAT parquet"); /* converted at publish */
    } else {
        weir__buf_printf(&q, " (FORMAT %s", f->duck_format);
        f->copy_options(&q, b->options, b->n_options);
    }
    if (n_cols) {
        weir__buf_puts(&q, ", PARTITION_BY (");
        for (size_t i = 0; i < n_cols; i++) {
            if (i)
                weir__buf_puts(&q, ", ");
            weir__buf_put_sql_ident(&q, cols[i]);
        }
        weir__buf_printf(&q, "), FILENAME_PATTERN '%s-{i}', FILE_EXTENSION ",
                         prefix);
        weir__buf_put_sql_string(&q, ext + 1); /* without the dot */
    }
    weir__buf_putc(&q, ')');
    weir_rows *r = NULL;
    if (!rc)
        rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_query(conn, weir__buf_cstr(&q), &r, err);
    if (!rc) {
        /* COPY reports its row count as the rows changed. */
        const char *v = r->n_rows && r->n_cols ? weir__rows_get(r, 0, 0) : NULL;
        *rows = v ? strtoll(v, NULL, 10) : r->rows_changed;
        rc = sync_tree(dir, err);
    }
    weir__rows_free(r);
    weir__buf_free(&q);
    weir__arena_free(&a);
    return rc;
}

/* Write each staged (Parquet) file of dir to the object of the same
 * relative name below the URL target, in the sink's format. */
static int publish_remote(const weir_folder_format *f, const weir_sink_batch *b,
                          const char *dir, const char *target, weir_error *err)
{
    if (!b->conn)
        return WEIR_ERR(err, WEIR_ERROR, NULL,
                        "internal error: no connection to publish to %s",
                        target);
    weir_file_list files = { NULL, 0, 0 };
    int rc = weir__fs_list(&files, dir, true, false, err);
    size_t dir_len = strlen(dir);
    for (size_t i = 0; !rc && i < files.len; i++) {
        const char *rel = files.items[i].path + dir_len + 1;
        weir_buf q = WEIR_BUF_INIT;
        weir__buf_puts(&q, "COPY (SELECT * FROM read_parquet(");
        weir_buf lit = WEIR_BUF_INIT;
        weir__fs_put_glob_literal(&lit, files.items[i].path);
        weir__buf_put_sql_string(&q, weir__buf_cstr(&lit));
        q.failed |= lit.failed;
        weir__buf_free(&lit);
        weir__buf_puts(&q, ")) TO ");
        weir_buf url = WEIR_BUF_INIT;
        weir__buf_printf(&url, "%s/%s", target, rel);
        weir__buf_put_sql_string(&q, weir__buf_cstr(&url));
        q.failed |= url.failed;
        weir__buf_printf(&q, " (FORMAT %s", f->duck_format);
        f->copy_options(&q, b->options, b->n_options);
        weir__buf_putc(&q, ')');
        weir_rows *r = NULL;
        rc = q.failed ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                      : weir__conn_query(b->conn, weir__buf_cstr(&q), &r, err);
        weir__rows_free(r);
        weir__buf_free(&q);
        /* DuckDB 1.4 reports success for a compressed (gzip, zstd) file
         * whose upload failed: the object must be there. Its name is the
         * batch's, so one that is there holds the batch (written by this
         * publish or an earlier one). No transaction is open: a failed
         * lookup aborts nothing. */
        const char *u = weir__buf_cstr(&url);
        weir_file_list there = { NULL, 0, 0 };
        if (!rc && weir__objects_stat(b->conn, &u, 1, &there, err))
            rc = WEIR_ERR(err, WEIR_EIO, "OBJECT_STORE_WRITE_FAILED",
                          "sink %s: %s was not written (the store refused "
                          "the upload); the batch is published again by the "
                          "next update",
                          b->sink, u);
        weir__fs_list_free(&there);
        weir__buf_free(&url);
    }
    weir__fs_list_free(&files);
    return rc;
}

int weir__folder_publish(const weir_folder_format *f, const weir_sink_batch *b,
                         weir_error *err)
{
    char dir[4096];
    weir__sink_stage_path(dir, sizeof(dir), b, "");
    if (!weir__fs_is_dir(dir))
        return 0; /* published (and cleaned up) before */
    char *target = NULL;
    int rc = weir__sink_target(&target, b, err);
    if (!rc && weir__url_is_remote(target)) {
        rc = publish_remote(f, b, dir, target, err);
        if (!rc)
            rc = weir__fs_remove_tree(dir, err);
        if (!rc)
            rc = weir__fs_sync_dir(b->stage_dir, err);
        free(target);
        return rc;
    }
    if (!rc)
        rc = weir__fs_mkdirs(target, err);
    weir_file_list files = { NULL, 0, 0 };
    if (!rc)
        rc = weir__fs_list(&files, dir, true, false, err);
    size_t dir_len = strlen(dir);
    for (size_t i = 0; !rc && i < files.len; i++) {
        const char *rel = files.items[i].path + dir_len + 1;
        char *dst = weir__path_join(target, rel);
        char *dst_dir = dst ? weir__path_dirname(dst) : NULL;
        rc = dst_dir ? weir__sink_move(files.items[i].path, dst, err)
                     : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        /* Files are sorted, so a partition folder's files are together:
         * sync a folder (and new parents) once, after its last file. */
        bool last_in_dir = true;
        if (!rc && i + 1 < files.len) {
            char *next = weir__path_dirname(files.items[i + 1].path);
            char *here = weir__path_dirname(files.items[i].path);
            last_in_dir = !next || !here || strcmp(next, here) != 0;
            free(next);
            free(here);
        }
        if (!rc && last_in_dir)
            rc = weir__sink_sync_up(dst_dir, target, err);
        free(dst);
        free(dst_dir);
    }
    if (!rc && !files.len)
        rc = weir__fs_sync_dir(target, err);
    weir__fs_list_free(&files);
    if (!rc)
        rc = weir__fs_remove_tree(dir, err);
    if (!rc)
        rc = weir__fs_sync_dir(b->stage_dir, err);
    free(target);
    return rc;
}

int weir__folder_discard(const weir_sink_batch *b, weir_error *err)
{
    char dir[4096];
    weir__sink_stage_path(dir, sizeof(dir), b, "");
    return weir__fs_remove_tree(dir, err);
}
