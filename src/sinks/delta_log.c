/*
 * The Delta Lake transaction log: replaying _delta_log/<version>.json
 * commits (protocol, metaData, add, remove and txn actions) into the
 * table's current state, writing a commit create-exclusive (a temporary
 * file linked to its final name, so two writers never share a version),
 * and rendering a read of the active files for weir's SQL
 * (weir__delta_render_scan, declared in sink.h). JSON checkpoints only;
 * Parquet checkpoints are refused with a clear error.
 */
#define _GNU_SOURCE
#include "sinks/delta.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sinks/internal.h"
#include "sinks/sink.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/str.h"

#define HIVE_NULL "__HIVE_DEFAULT_PARTITION__"

static bool version_name(const char *base, int64_t *v)
{
    for (int i = 0; i < 20; i++)
        if (base[i] < '0' || base[i] > '9')
            return false;
    if (strcmp(base + 20, ".json") != 0)
        return false;
    *v = strtoll(base, NULL, 10);
    return true;
}

/* The map key (decoded path, relative when the log's path is) and the
 * absolute file of an add or remove path. */
static int file_key(weir_delta_log *l, const char *path, const char **key,
                    const char **file, weir_error *err)
{
    const char *p = path;
    if (weir__str_starts(p, "file://"))
        p += 7;
    else if (weir__str_starts(p, "file:"))
        p += 5;
    else if (strstr(p, "://"))
        return WEIR_ERR(err, WEIR_EINVAL, "DELTA_UNSUPPORTED_PATH",
                        "Delta table %s refers to %s: only local files are "
                        "supported",
                        l->table, path);
    weir_buf b = WEIR_BUF_INIT;
    if (!weir__sink_percent_decode(&b, p, strlen(p))) {
        weir__buf_free(&b);
        return WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_PATH",
                        "Delta table %s: malformed path %s", l->table, path);
    }
    *key = weir__arena_strdup(&l->arena, weir__buf_cstr(&b));
    *file = weir__path_is_abs(*key)
                ? *key
                : weir__arena_printf(&l->arena, "%s/%s", l->table, *key);
    weir__buf_free(&b);
    return weir__arena_failed(&l->arena)
               ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
               : 0;
}

static int apply_metadata(weir_delta_log *l, const weir_json *m,
                          weir_error *err)
{
    l->metadata = m;
    const char *schema = weir__json_get_str(m, "schemaString");
    int rc = schema ? weir__delta_schema_parse(&l->schema, &l->arena, schema,
                                               err)
                    : WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_SCHEMA",
                               "metaData has no schemaString");
    const weir_json *pc = weir__json_get(m, "partitionColumns");
    l->n_partition_cols = 0;
    if (!rc && pc && pc->type == WEIR_JSON_ARRAY) {
        l->partition_cols = weir__arena_array(&l->arena, pc->len + 1,
                                              sizeof(char *));
        if (!l->partition_cols)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        for (size_t i = 0; i < pc->len; i++)
            if (pc->items[i]->type == WEIR_JSON_STRING)
                l->partition_cols[l->n_partition_cols++] = pc->items[i]->text;
    }
    return rc;
}

static int apply(weir_delta_log *l, const weir_json *action, weir_error *err)
{
    if (action->type != WEIR_JSON_OBJECT || !action->len)
        return 0;
    const char *kind = action->keys[0];
    const weir_json *a = action->items[0];
    if (strcmp(kind, "protocol") == 0) {
        l->protocol = a;
    } else if (strcmp(kind, "metaData") == 0) {
        return apply_metadata(l, a, err);
    } else if (strcmp(kind, "txn") == 0) {
        const char *app = weir__json_get_str(a, "appId");
        const weir_json *v = weir__json_get(a, "version");
        if (!app || !v || v->type != WEIR_JSON_NUMBER)
            return 0;
        int64_t *slot = weir__arena_alloc(&l->arena, sizeof(*slot));
        if (!slot || weir__map_put(&l->txns, app, slot))
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        *slot = strtoll(v->text, NULL, 10);
    } else if (strcmp(kind, "add") == 0 || strcmp(kind, "remove") == 0) {
        const char *path = weir__json_get_str(a, "path");
        if (!path)
            return WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_LOG",
                            "Delta table %s: an %s action has no path",
                            l->table, kind);
        const char *key = NULL, *file = NULL;
        int rc = file_key(l, path, &key, &file, err);
        if (rc)
            return rc;
        weir_delta_add *add = NULL;
        if (kind[0] == 'a') {
            add = weir__arena_alloc(&l->arena, sizeof(*add));
            if (!add)
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            add->path = path;
            add->file = file;
            add->values = weir__json_get(a, "partitionValues");
            const weir_json *size = weir__json_get(a, "size");
            add->size = size && size->type == WEIR_JSON_NUMBER
                            ? strtoll(size->text, NULL, 10)
                            : 0;
        }
        int64_t version = l->version + 1; /* the commit being replayed */
        const weir_json *dc = weir__json_get(a, "dataChange");
        bool change = !dc || dc->type != WEIR_JSON_BOOL || dc->boolean;
        int vrc = 0;
        if (add) {
            add->version = version;
            add->data_change = change;
            vrc = WEIR_VEC_PUSH(&l->adds, add);
            if (!vrc && change &&
                (!l->add_versions.len ||
                 l->add_versions.items[l->add_versions.len - 1] != version))
                vrc = WEIR_VEC_PUSH(&l->add_versions, version);
        } else if (change) {
            weir_delta_removal r = { version, path };
            vrc = WEIR_VEC_PUSH(&l->removals, r);
        }
        if (vrc)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        if (weir__map_put(&l->files, key, add))
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    return 0;
}

static int read_commit(weir_delta_log *l, const char *path, weir_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = weir__fs_read(&text, &len, path, err);
    if (rc)
        return rc;
    /* The tree points into the text: keep it in the arena. */
    char *kept = weir__arena_strndup(&l->arena, text, len);
    free(text);
    if (!kept)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t pos = 0; !rc && pos < len;) {
        const char *nl = memchr(kept + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - kept) : len;
        size_t k = pos;
        while (k < end && (kept[k] == ' ' || kept[k] == '\r' || kept[k] == '\t'))
            k++;
        if (k < end) {
            weir_json *action = NULL;
            rc = weir__json_parse(&action, &l->arena, kept + pos, end - pos, err);
            if (rc)
                weir__error_prefix(err, "%s: ", path);
            else
                rc = apply(l, action, err);
        }
        pos = end + 1;
    }
    return rc;
}

int weir__delta_log_read(weir_delta_log *out, const char *table,
                         weir_error *err)
{
    memset(out, 0, sizeof(*out));
    weir__arena_init(&out->arena);
    weir__map_init(&out->files, false);
    weir__map_init(&out->txns, false);
    out->version = -1;
    out->table = weir__arena_strdup(&out->arena, table);
    if (!out->table)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    char log_dir[4096], last[4200];
    snprintf(log_dir, sizeof(log_dir), "%s/_delta_log", table);
    snprintf(last, sizeof(last), "%s/_last_checkpoint", log_dir);
    if (!weir__fs_is_dir(log_dir))
        return 0;
    if (weir__fs_exists(last))
        return WEIR_ERR(err, WEIR_EINVAL, "DELTA_CHECKPOINT_NOT_SUPPORTED",
                        "Delta table %s has a checkpoint (%s): weir reads "
                        "only tables whose log is JSON commits from version 0",
                        table, last);
    weir_file_list files = { NULL, 0, 0 };
    int rc = weir__fs_list(&files, log_dir, false, true, err);
    int64_t expect = 0;
    for (size_t i = 0; !rc && i < files.len; i++) {
        int64_t v;
        if (!version_name(weir__path_basename(files.items[i].path), &v))
            continue;
        if (v != expect)
            rc = WEIR_ERR(err, WEIR_EINVAL, "DELTA_CHECKPOINT_NOT_SUPPORTED",
                          "Delta table %s: the log has no commit %lld (it "
                          "was cleaned up after a checkpoint?); weir needs "
                          "every JSON commit from version 0",
                          table, (long long)expect);
        else
            rc = read_commit(out, files.items[i].path, err);
        if (!rc)
            out->version = expect++;
    }
    weir__fs_list_free(&files);
    if (!rc && out->version >= 0 && !out->metadata)
        rc = WEIR_ERR(err, WEIR_ECORRUPT, "DELTA_INVALID_LOG",
                      "Delta table %s has no metaData action", table);
    return rc;
}

void weir__delta_log_free(weir_delta_log *l)
{
    if (!l)
        return;
    weir__map_free(&l->files);
    weir__map_free(&l->txns);
    WEIR_VEC_FREE(&l->adds);
    WEIR_VEC_FREE(&l->removals);
    WEIR_VEC_FREE(&l->add_versions);
    weir__arena_free(&l->arena);
}

/* ---- protocol ------------------------------------------------------------------ */

static int64_t json_int(const weir_json *obj, const char *key, int64_t dflt)
{
    const weir_json *v = obj ? weir__json_get(obj, key) : NULL;
    return v && v->type == WEIR_JSON_NUMBER ? strtoll(v->text, NULL, 10) : dflt;
}

/* Every feature listed under key is in supported. */
static const char *unsupported_feature(const weir_json *protocol,
                                       const char *key,
                                       const char *const *supported)
{
    const weir_json *list = weir__json_get(protocol, key);
    for (size_t i = 0; list && list->type == WEIR_JSON_ARRAY && i < list->len; i++) {
        const weir_json *f = list->items[i];
        bool ok = false;
        for (size_t k = 0; f->type == WEIR_JSON_STRING && supported[k]; k++)
            ok |= strcmp(f->text, supported[k]) == 0;
        if (!ok)
            return f->type == WEIR_JSON_STRING ? f->text : "?";
    }
    return NULL;
}

int weir__delta_log_check(const weir_delta_log *l, bool writing,
                          weir_error *err)
{
    if (l->version < 0)
        return 0;
    static const char *const reader_ok[] = { "timestampNtz", NULL };
    static const char *const writer_ok[] = { "appendOnly", "invariants",
                                             "timestampNtz", NULL };
    int64_t rv = json_int(l->protocol, "minReaderVersion", 1);
    int64_t wv = json_int(l->protocol, "minWriterVersion", 2);
    const char *bad = rv == 3 ? unsupported_feature(l->protocol,
                                                    "readerFeatures", reader_ok)
                              : NULL;
    if (rv == 2 || rv > 3 || bad)
        return WEIR_ERR(err, WEIR_EINVAL, "DELTA_UNSUPPORTED_PROTOCOL",
                        "Delta table %s needs reader version %lld%s%s, which "
                        "weir does not support",
                        l->table, (long long)rv, bad ? " with feature " : "",
                        bad ? bad : "");
    if (!writing)
        return 0;
    bad = wv == 7 ? unsupported_feature(l->protocol, "writerFeatures",
                                        writer_ok)
                  : NULL;
    if ((wv > 2 && wv != 7) || bad)
        return WEIR_ERR(err, WEIR_EINVAL, "DELTA_UNSUPPORTED_PROTOCOL",
                        "Delta table %s needs writer version %lld%s%s, which "
                        "weir cannot append to",
                        l->table, (long long)wv, bad ? " with feature " : "",
                        bad ? bad : "");
    return 0;
}

int64_t weir__delta_log_txn(const weir_delta_log *l, const char *app_id)
{
    const int64_t *v = weir__map_get(&l->txns, app_id);
    return v ? *v : -1;
}

bool weir__delta_log_added(const weir_delta_log *l, const char *path)
{
    return weir__map_has(&l->files, path);
}

bool weir__delta_log_version_adds(const weir_delta_log *l, int64_t version)
{
    for (size_t i = 0; i < l->add_versions.len; i++)
        if (l->add_versions.items[i] == version)
            return true;
    return false;
}

static int by_path(const void *a, const void *b)
{
    const weir_delta_add *x = *(const weir_delta_add *const *)a;
    const weir_delta_add *y = *(const weir_delta_add *const *)b;
    return strcmp(x->file, y->file);
}

int weir__delta_log_active(const weir_delta_log *l, weir_delta_add ***out,
                           size_t *n_out, weir_arena *a, weir_error *err)
{
    *n_out = 0;
    *out = weir__arena_array(a, l->files.len + 1, sizeof(**out));
    if (!*out)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    const char *key;
    void *value;
    for (size_t it = 0; weir__map_next(&l->files, &it, &key, &value);)
        if (value)
            (*out)[(*n_out)++] = value;
    qsort(*out, *n_out, sizeof(**out), by_path);
    return 0;
}

/* ---- commits ------------------------------------------------------------------- */

int weir__delta_log_commit(const char *table, int64_t version,
                           const char *actions, size_t len, weir_error *err)
{
    char dir[4096], final[4200], tmp[4300], id[37];
    snprintf(dir, sizeof(dir), "%s/_delta_log", table);
    snprintf(final, sizeof(final), "%s/%020lld.json", dir, (long long)version);
    weir__uuid(id);
    snprintf(tmp, sizeof(tmp), "%s/.%020lld.json.%s.tmp", dir,
             (long long)version, id);
    int rc = weir__fs_mkdirs(dir, err);
    if (rc)
        return rc;
    if (weir__fs_exists(final))
        return WEIR_ERR(err, WEIR_EEXISTS, "DELTA_CONCURRENT_WRITE",
                        "version %lld of %s exists", (long long)version, table);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot create %s: %s", tmp,
                        strerror(errno));
    for (size_t off = 0; !rc && off < len;) {
        ssize_t n = write(fd, actions + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = WEIR_ERR(err, WEIR_EIO, NULL, "cannot write %s: %s", tmp,
                          strerror(errno));
        else
            off += (size_t)n;
    }
    if (!rc && fsync(fd) < 0)
        rc = WEIR_ERR(err, WEIR_EIO, NULL, "cannot sync %s: %s", tmp,
                      strerror(errno));
    close(fd);
    if (!rc && link(tmp, final) < 0) {
        int e = errno;
        if (e == EEXIST)
            rc = WEIR_ERR(err, WEIR_EEXISTS, "DELTA_CONCURRENT_WRITE",
                          "version %lld of %s exists", (long long)version,
                          table);
        else if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) == 0)
            tmp[0] = '\0'; /* renamed: nothing to remove */
        else
            rc = WEIR_ERR(err, errno == EEXIST ? WEIR_EEXISTS : WEIR_EIO,
                          "DELTA_CONCURRENT_WRITE",
                          "cannot commit version %lld of %s: %s",
                          (long long)version, table,
                          strerror(errno == EEXIST ? EEXIST : e));
    }
    if (tmp[0])
        unlink(tmp);
    if (!rc)
        rc = weir__fs_sync_dir(dir, err);
    return rc;
}

/* ---- reading ------------------------------------------------------------------- */

static void put_null_columns(weir_buf *out, const weir_delta_log *l,
                             bool data_only, bool physical)
{
    bool first = true;
    for (size_t i = 0; i < l->schema.n; i++) {
        const weir_dfield *f = &l->schema.fields[i];
        bool part = false;
        for (size_t k = 0; k < l->n_partition_cols; k++)
            part |= weir__str_ieq(l->partition_cols[k], f->name);
        if (data_only && part)
            continue;
        weir__buf_puts(out, first ? "CAST(NULL AS " : ", CAST(NULL AS ");
        weir__delta_type_duckdb(out, f->type, physical);
        weir__buf_puts(out, ") AS ");
        weir__buf_put_sql_ident(out, f->name);
        first = false;
    }
    if (first)
        weir__buf_puts(out, "NULL AS \"__weir_empty\"");
}

static void put_values(weir_buf *out, const weir_delta_log *l,
                       weir_delta_add **files, size_t n)
{
    weir__buf_puts(out, " JOIN (VALUES ");
    for (size_t i = 0; i < n; i++) {
        weir__buf_puts(out, i ? ", (" : "(");
        weir__buf_put_sql_string(out, files[i]->file);
        for (size_t k = 0; k < l->n_partition_cols; k++) {
            const weir_json *v = NULL;
            const weir_json *pv = files[i]->values;
            for (size_t j = 0; pv && pv->type == WEIR_JSON_OBJECT && j < pv->len; j++)
                if (weir__str_ieq(pv->keys[j], l->partition_cols[k]))
                    v = pv->items[j];
            weir__buf_puts(out, ", ");
            if (v && v->type == WEIR_JSON_STRING && strcmp(v->text, HIVE_NULL))
                weir__buf_put_sql_string(out, v->text);
            else
                weir__buf_puts(out, "NULL");
        }
        weir__buf_putc(out, ')');
    }
    weir__buf_puts(out, ") AS v(\"__weir_f\"");
    for (size_t k = 0; k < l->n_partition_cols; k++) {
        weir__buf_printf(out, ", \"__weir_p%zu\"", k);
    }
    weir__buf_puts(out, ") ON d.\"__weir_file\" = v.\"__weir_f\"");
}

int weir__delta_render_files(weir_buf *out, const weir_delta_log *l,
                             weir_delta_add **files, size_t n,
                             weir_error *err)
{
    (void)err;
    if (!n) {
        weir__buf_puts(out, "(SELECT ");
        put_null_columns(out, l, false, false);
        weir__buf_puts(out, " WHERE false)");
        return 0;
    }
    bool parts = l->n_partition_cols > 0;
    weir__buf_puts(out, "(SELECT ");
    for (size_t i = 0; i < l->schema.n; i++) {
        const weir_dfield *f = &l->schema.fields[i];
        int part = -1;
        for (size_t k = 0; k < l->n_partition_cols; k++)
            if (weir__str_ieq(l->partition_cols[k], f->name))
                part = (int)k;
        weir__buf_puts(out, i ? ", CAST(" : "CAST(");
        if (part >= 0) {
            weir__buf_printf(out, "v.\"__weir_p%d\"", part);
        } else {
            weir__buf_puts(out, "d.");
            weir__buf_put_sql_ident(out, f->name);
        }
        weir__buf_puts(out, " AS ");
        weir__delta_type_duckdb(out, f->type, false);
        weir__buf_puts(out, ") AS ");
        weir__buf_put_sql_ident(out, f->name);
    }
    if (!l->schema.n)
        weir__buf_puts(out, "NULL AS \"__weir_empty\"");
    weir__buf_puts(out, " FROM (SELECT ");
    put_null_columns(out, l, true, true);
    if (parts)
        weir__buf_puts(out, ", CAST(NULL AS VARCHAR) AS \"__weir_file\"");
    weir__buf_puts(out, " WHERE false UNION ALL BY NAME SELECT * FROM "
                        "read_parquet([");
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(out, ", ");
        weir__buf_put_sql_string(out, files[i]->file);
    }
    weir__buf_puts(out, "], union_by_name = true, hive_partitioning = false");
    if (parts)
        weir__buf_puts(out, ", filename = '__weir_file'");
    weir__buf_puts(out, ")) AS d");
    if (parts)
        put_values(out, l, files, n);
    weir__buf_putc(out, ')');
    return 0;
}

static int render(weir_buf *out, const weir_delta_log *l, weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_delta_add **files = NULL;
    size_t n = 0;
    int rc = weir__delta_log_active(l, &files, &n, &a, err);
    if (!rc)
        rc = weir__delta_render_files(out, l, files, n, err);
    weir__arena_free(&a);
    return rc;
}

int weir__delta_render_scan(weir_buf *out, const char *path, weir_error *err)
{
    weir_delta_log l;
    int rc = weir__delta_log_read(&l, path, err);
    if (!rc && l.version < 0)
        rc = WEIR_ERR(err, WEIR_ESQL, "DELTA_TABLE_NOT_FOUND",
                      "%s is not a Delta table (it has no _delta_log commits)",
                      path);
    if (!rc)
        rc = weir__delta_log_check(&l, false, err);
    if (!rc)
        rc = render(out, &l, err);
    if (!rc && out->failed)
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    weir__delta_log_free(&l);
    return rc;
}
