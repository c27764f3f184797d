/*
 * Expansion of the spec's `libraries` into definition files, following the
 * two glob shapes Spark accepts: a literal path (the file, if it exists)
 * and a folder followed by `**` (every regular file below the folder, the
 * way pathlib's `**` walks: symlinked folders are not entered, symlinked
 * files count). weir
 * also skips hidden entries and sorts each entry's files by path. Files
 * that are neither `.sql` nor `.py` are reported.
 */
#include "spec/spec_internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fs.h"
#include "util/vec.h"

/* Deeper folders are not walked (only bind-mount loops get there). */
#define MAX_WALK_DEPTH 128

typedef WEIR_VEC(weir_spec_file) file_vec;

typedef struct walker {
    weir_arena *arena;
    file_vec *files;
    const weir_spec_library *lib;
    int rc;
} walker;

/* Join two relative parts with '/', either may be empty (arena). */
static char *join(weir_arena *a, const char *x, const char *y)
{
    if (!*x)
        return weir__arena_strdup(a, y);
    if (!*y)
        return weir__arena_strdup(a, x);
    return weir__arena_printf(a, "%s/%s", x, y);
}

/* The pattern's parts the way pathlib keeps them: empty and "." parts
 * dropped, ".." kept ("./a//b" -> "a/b"). */
static char *pathlib_rel(weir_arena *a, const char *s)
{
    char *out = weir__arena_alloc(a, strlen(s) + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    while (*s) {
        while (*s == '/')
            s++;
        const char *p = s;
        while (*s && *s != '/')
            s++;
        size_t n = (size_t)(s - p);
        if (n == 0 || (n == 1 && p[0] == '.'))
            continue;
        if (o)
            out[o++] = '/';
        memcpy(out + o, p, n);
        o += n;
    }
    out[o] = '\0';
    return out;
}

static bool has_pycache(const char *path)
{
    const char *p = path;
    while ((p = strstr(p, "__pycache__"))) {
        bool start = p == path || p[-1] == '/';
        bool end = p[11] == '\0' || p[11] == '/';
        if (start && end)
            return true;
        p += 11;
    }
    return false;
}

static void add_file(walker *w, const char *abs, const char *rel)
{
    weir_spec_file f = { abs, rel, w->lib };
    if (!abs || !rel || WEIR_VEC_PUSH(w->files, f))
        w->rc = WEIR_ENOMEM;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Walk abs (shown as rel) recursively; unreadable folders are skipped, as
 * pathlib's glob skips them. */
static void walk(walker *w, const char *abs, const char *rel, unsigned depth)
{
    if (depth > MAX_WALK_DEPTH)
        return;
    DIR *d = opendir(abs);
    if (!d)
        return;
    WEIR_VEC(char *) names = WEIR_VEC_INIT;
    struct dirent *e;
    while (!w->rc && (e = readdir(d))) {
        const char *n = e->d_name;
        if (n[0] == '.' || strcmp(n, "__pycache__") == 0)
            continue; /* hidden (".", ".." too) or Python's cache */
        char *copy = weir__arena_strdup(w->arena, n);
        if (!copy || WEIR_VEC_PUSH(&names, copy))
            w->rc = WEIR_ENOMEM;
    }
    closedir(d);
    if (names.len > 1)
        qsort(names.items, names.len, sizeof(*names.items), cmp_name);
    for (size_t i = 0; i < names.len && !w->rc; i++) {
        char *child = weir__arena_printf(w->arena, "%s/%s",
                                         strcmp(abs, "/") ? abs : "",
                                         names.items[i]);
        char *child_rel = join(w->arena, rel, names.items[i]);
        struct stat st;
        if (!child || !child_rel) {
            w->rc = WEIR_ENOMEM;
        } else if (lstat(child, &st) != 0) {
            continue; /* vanished */
        } else if (S_ISDIR(st.st_mode)) {
            walk(w, child, child_rel, depth + 1);
        } else if (stat(child, &st) == 0 && S_ISREG(st.st_mode)) {
            add_file(w, child, child_rel);
        }
    }
    WEIR_VEC_FREE(&names);
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const weir_spec_file *)a)->rel_path,
                  ((const weir_spec_file *)b)->rel_path);
}

/* The files one library entry matches, appended to w->files. */
static void expand(walker *w, const weir_spec *spec,
                   const weir_spec_library *lib)
{
    weir_arena *a = w->arena;
    const char *inc = lib->include;
    char *rel;
    if (lib->recursive) {
        char *prefix = weir__arena_strndup(a, inc, strlen(inc) - 3);
        rel = prefix ? pathlib_rel(a, prefix) : NULL;
    } else {
        size_t n = strlen(inc);
        if (n && inc[n - 1] == '/')
            return; /* pathlib: a trailing slash matches folders only */
        rel = pathlib_rel(a, inc);
    }
    char *abs_heap = rel ? weir__path_absolute(rel, spec->dir) : NULL;
    char *abs = abs_heap ? weir__arena_strdup(a, abs_heap) : NULL;
    free(abs_heap);
    if (!abs) {
        w->rc = WEIR_ENOMEM;
        return;
    }
    /* Spark drops any match whose path has a __pycache__ part. */
    if (has_pycache(spec->dir) || has_pycache(rel))
        return;
    if (lib->recursive) {
        walk(w, abs, rel, 0);
    } else {
        struct stat st;
        if (stat(abs, &st) == 0 && S_ISREG(st.st_mode))
            add_file(w, abs, rel);
    }
}

/* pathlib's suffix: from the last dot of the name, unless the name starts
 * with it or ends with it. */
static const char *suffix(const char *path)
{
    const char *name = weir__path_basename(path);
    const char *dot = strrchr(name, '.');
    if (!dot || dot == name || dot[1] == '\0')
        return "";
    return dot;
}

static void check_file(weir_spec_report *r, const weir_spec_file *f)
{
    const char *ext = suffix(f->path);
    if (strcmp(ext, ".sql") == 0 || strcmp(ext, ".py") == 0)
        return;
    SPEC_REPORT(r, "PIPELINE_UNSUPPORTED_DEFINITIONS_FILE_EXTENSION",
                f->library->pos,
                "Pipeline definitions file `%s` has an unsupported "
                "extension. Supported extensions are `.py` and `.sql`.",
                f->path);
}

int weir__spec_library_files(weir_spec_file **out, size_t *n_out,
                             weir_spec *spec, weir__diags *diags,
                             weir_error *err)
{
    *out = NULL;
    *n_out = 0;
    file_vec files = WEIR_VEC_INIT;
    walker w = { &spec->arena, &files, NULL, 0 };
    weir_spec_report rep = { spec->path, spec->text, spec->text_len, diags,
                             err, 0 };
    for (size_t i = 0; i < spec->n_libraries && !w.rc; i++) {
        weir_spec_library *lib = &spec->libraries[i];
        size_t first = files.len;
        w.lib = lib;
        expand(&w, spec, lib);
        if (w.rc)
            break;
        lib->matched = files.len - first;
        if (lib->matched > 1)
            qsort(files.items + first, lib->matched, sizeof(*files.items),
                  cmp_file);
        for (size_t j = first; j < files.len; j++)
            check_file(&rep, &files.items[j]);
    }
    int rc = w.rc;
    if (!rc && rep.n)
        rc = WEIR_ESPEC;
    if (!rc && files.len) {
        *out = weir__arena_array(&spec->arena, files.len, sizeof(**out));
        if (*out) {
            memcpy(*out, files.items, files.len * sizeof(**out));
            *n_out = files.len;
        } else {
            rc = WEIR_ENOMEM;
        }
    }
    WEIR_VEC_FREE(&files);
    if (rc == WEIR_ENOMEM)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return rc;
}
