/*
 * Reading the _spark_metadata log of Spark's file sink (spark_sink_log.h):
 * which batch files make up the log (the last compaction and the batches
 * after it), the entries of each (a version line "v1", then one JSON
 * object a line: path, action add or delete), and the committed files
 * they leave, mapped into the folder that holds the log.
 */
#define _GNU_SOURCE
#include "spark_sink_log.h"

#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "buf.h"
#include "json.h"
#include "map.h"
#include "str.h"
#include "vec.h"

#define LOG_DIR "_spark_metadata"

bool weir__spark_sink_has_log(const char *dir)
{
    char *log = weir__path_join(dir, LOG_DIR);
    bool yes = log && weir__fs_is_dir(log);
    free(log);
    return yes;
}

/* A batch file's name: N or N.compact (not .crc, .tmp or anything else). */
static bool batch_name(const char *name, long *n, bool *compact)
{
    char *end;
    if (!isdigit((unsigned char)name[0]))
        return false;
    *n = strtol(name, &end, 10);
    *compact = strcmp(end, ".compact") == 0;
    return *end == '\0' || *compact;
}

/* The last batch id and the last compaction at or before it (-1: none). */
static int scan_log(const char *log, long *last, long *compact, weir_error *err)
{
    DIR *d = opendir(log);
    if (!d)
        return WEIR_ERR(err, WEIR_EIO, NULL, "cannot read %s", log);
    *last = *compact = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        long n;
        bool c;
        if (!batch_name(e->d_name, &n, &c))
            continue;
        if (n > *last)
            *last = n;
        if (c && n > *compact)
            *compact = n;
    }
    closedir(d);
    return 0;
}

typedef struct sink_log {
    const char *dir;
    weir_arena arena;
    WEIR_VEC(const char *) paths; /* arena; NULL once deleted */
    weir_map index;               /* path -> position + 1 */
    weir_error *err;
} sink_log;

/* A logged URI (file:///a/b%20c/k=v/part-0.json) as a path in the folder:
 * its file name and the key=value folders right above it. */
static char *in_folder(const sink_log *l, const char *uri)
{
    if (weir__str_starts(uri, "file:"))
        uri += 5;
    weir_buf dec = WEIR_BUF_INIT;
    for (const char *p = uri; *p; p++) {
        if (p[0] == '%' && isxdigit((unsigned char)p[1]) &&
            isxdigit((unsigned char)p[2])) {
            char hex[3] = { p[1], p[2], '\0' };
            weir__buf_putc(&dec, (char)strtol(hex, NULL, 16));
            p += 2;
        } else {
            weir__buf_putc(&dec, *p);
        }
    }
    const char *s = weir__buf_cstr(&dec);
    const char *start = strrchr(s, '/');
    start = start ? start + 1 : s;
    while (start > s + 1) {
        const char *prev = start - 2;
        while (prev > s && *prev != '/')
            prev--;
        const char *seg = *prev == '/' ? prev + 1 : prev;
        if (!memchr(seg, '=', (size_t)(start - 1 - seg)))
            break;
        start = seg;
    }
    char *path = dec.failed ? NULL : weir__path_join(l->dir, start);
    weir__buf_free(&dec);
    return path;
}

static int entry(sink_log *l, const char *file, size_t line, const char *text,
                 size_t len)
{
    weir_json *j;
    weir_error perr;
    const char *uri = NULL, *action = NULL;
    if (!weir__json_parse(&j, &l->arena, text, len, &perr)) {
        uri = weir__json_get_str(j, "path");
        action = weir__json_get_str(j, "action");
    }
    if (!uri || !action || (strcmp(action, "add") && strcmp(action, "delete")))
        return WEIR_ERR(l->err, WEIR_EINVAL, NULL,
                        "%s:%zu: not an entry of Spark's file sink log", file,
                        line);
    char *p = in_folder(l, uri);
    const char *path = p ? weir__arena_strdup(&l->arena, p) : NULL;
    free(p);
    if (!path)
        return WEIR_ERR(l->err, WEIR_ENOMEM, NULL, "out of memory");
    void *at = weir__map_get(&l->index, path);
    if (!strcmp(action, "delete")) {
        if (at)
            l->paths.items[(size_t)at - 1] = NULL;
        return 0;
    }
    if (at && l->paths.items[(size_t)at - 1])
        return 0;
    if (WEIR_VEC_PUSH(&l->paths, path) ||
        weir__map_put(&l->index, path, (void *)(uintptr_t)l->paths.len))
        return WEIR_ERR(l->err, WEIR_ENOMEM, NULL, "out of memory");
    return 0;
}

/* The entries of one batch file, after its version line. */
static int read_batch(sink_log *l, const char *log, long n, bool compact)
{
    char name[64];
    snprintf(name, sizeof(name), compact ? "%ld.compact" : "%ld", n);
    char *file = weir__path_join(log, name);
    char *text = NULL;
    size_t len = 0;
    int rc = file ? weir__fs_read(&text, &len, file, l->err)
                  : WEIR_ERR(l->err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc && (len < 2 || text[0] != 'v'))
        rc = WEIR_ERR(l->err, WEIR_EINVAL, NULL,
                      "%s: not a batch of Spark's file sink log", file);
    size_t line = 1;
    const char *p = text ? memchr(text, '\n', len) : NULL;
    while (!rc && p && (size_t)(p - text) + 1 < len) {
        const char *s = p + 1, *e = memchr(s, '\n', len - (size_t)(s - text));
        size_t n_line = e ? (size_t)(e - s) : len - (size_t)(s - text);
        line++;
        if (n_line)
            rc = entry(l, file, line, s, n_line);
        p = e;
    }
    free(text);
    free(file);
    return rc;
}

static int collect(sink_log *l, weir_file_list *out)
{
    for (size_t i = 0; i < l->paths.len; i++) {
        if (!l->paths.items[i])
            continue;
        weir_file_info fi;
        int rc = weir__fs_stat(&fi, l->paths.items[i], l->err);
        if (rc)
            return WEIR_ERR(l->err, rc, NULL,
                            "%s is listed as committed by the file sink log in "
                            "%s/" LOG_DIR " but cannot be read",
                            l->paths.items[i], l->dir);
        if (weir__vec_grow((void **)&out->items, &out->cap, sizeof(*out->items),
                           out->len + 1)) {
            free(fi.path);
            return WEIR_ERR(l->err, WEIR_ENOMEM, NULL, "out of memory");
        }
        out->items[out->len++] = fi;
    }
    return 0;
}

int weir__spark_sink_files(weir_file_list *out, const char *dir,
                           weir_error *err)
{
    memset(out, 0, sizeof(*out));
    sink_log l = { .dir = dir, .arena = WEIR_ARENA_INIT };
    l.err = err;
    weir__map_init(&l.index, false);
    char *log = weir__path_join(dir, LOG_DIR);
    long last = -1, compact = -1; /* set by scan_log */
    int rc = log ? scan_log(log, &last, &compact, err)
                 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc && compact >= 0)
        rc = read_batch(&l, log, compact, true);
    for (long n = compact + 1; !rc && n <= last; n++)
        rc = read_batch(&l, log, n, false);
    if (!rc)
        rc = collect(&l, out);
    if (rc)
        weir__fs_list_free(out);
    free(log);
    WEIR_VEC_FREE(&l.paths);
    weir__map_free(&l.index);
    weir__arena_free(&l.arena);
    return rc;
}
