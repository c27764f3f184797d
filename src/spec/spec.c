/*
 * The pipeline spec: finding spark-pipeline.yml / .yaml, loading it, and
 * checking its fields the way Spark's CLI does (unpack_pipeline_spec,
 * validate_str_dict, validate_patch_glob_pattern), reporting every
 * independent problem with its position (weir's `expectations` field is
 * checked in expectations.c). Owns the weir_spec and its arena.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "spec/spec_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fs.h"
#include "util/str.h"

#define FIELD_TYPE   "PIPELINE_SPEC_INVALID_FIELD_TYPE"
#define FIELD_VALUE  "PIPELINE_SPEC_INVALID_FIELD_VALUE"
#define NOT_DICT     "PIPELINE_SPEC_FIELD_NOT_DICT"
#define BAD_LIBRARY  "PIPELINE_SPEC_INVALID_LIBRARY"
#define STORAGE_ROOT "PIPELINE_STORAGE_ROOT_INVALID"

typedef weir_spec_ynode ynode;

typedef struct loader {
    weir_spec *spec;
    weir_spec_report *rep;
} loader;

/* A string field: reports a wrong type (or an embedded NUL) and returns
 * false. what names the field in messages. */
static bool want_str(loader *ld, const ynode *v, const char *what)
{
    if (!is_str(v)) {
        SPEC_REPORT(ld->rep, FIELD_TYPE, v->pos,
                    "Pipeline spec field `%s` should be a string, got %s.",
                    what, v->type);
        return false;
    }
    if (strlen(v->text) != v->len) {
        SPEC_REPORT(ld->rep, FIELD_VALUE, v->pos,
                    "Pipeline spec field `%s` must not contain NUL "
                    "characters.",
                    what);
        return false;
    }
    return true;
}

/* --- Storage ------------------------------------------------------------------ */

/* The length of a URI scheme ("file" in "file:..."), 0 if none. */
static size_t scheme_len(const char *s)
{
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return 0;
    size_t i = 1;
    while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
           (s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '-' ||
           s[i] == '.')
        i++;
    return s[i] == ':' ? i : 0;
}

/* The local path a file: URI names, percent-decoded (arena), or NULL with
 * *why set. */
static char *file_uri_path(weir_arena *a, const char *uri, const char **why)
{
    const char *p = uri + 5; /* after "file:" */
    if (p[0] == '/' && p[1] == '/') {
        p += 2;
        const char *slash = strchr(p, '/');
        size_t host = slash ? (size_t)(slash - p) : strlen(p);
        if (host && !(host == 9 && weir__str_ieqn(p, "localhost", 9))) {
            *why = "only local file:// URIs (without a host) are supported";
            return NULL;
        }
        p += host;
    }
    if (p[0] != '/') {
        *why = "a file: URI must hold an absolute path";
        return NULL;
    }
    char *out = weir__arena_alloc(a, strlen(p) + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; p[i]; i++) {
        if (p[i] != '%') {
            out[o++] = p[i];
            continue;
        }
        int hi = weir__str_hex_value(p[i + 1]);
        int lo = hi < 0 ? -1 : weir__str_hex_value(p[i + 2]);
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
            *why = "the URI has an invalid percent-escape";
            return NULL;
        }
        out[o++] = (char)(hi * 16 + lo);
        i += 2;
    }
    out[o] = '\0';
    return out;
}

static void load_storage(loader *ld, const ynode *v)
{
    weir_spec *spec = ld->spec;
    spec->storage_pos = v->pos;
    if (!want_str(ld, v, "storage"))
        return;
    const char *uri = v->text;
    spec->storage_uri = uri;
    if (!*uri) {
        SPEC_REPORT(ld->rep, STORAGE_ROOT, v->pos,
                    "Storage must be specified to start a run.");
        return;
    }
    const char *local = uri;
    size_t sl = scheme_len(uri);
    if (sl) {
        if (!(sl == 4 && weir__str_ieqn(uri, "file", 4))) {
            SPEC_REPORT(ld->rep, STORAGE_ROOT, v->pos,
                        "Pipeline storage root `%.*s` is invalid: weir only "
                        "supports local storage (a folder path or a "
                        "file:// URI), not `%.*s:`.",
                        CLIP(uri), (int)sl, uri);
            return;
        }
        const char *why = NULL;
        local = file_uri_path(&spec->arena, uri, &why);
        if (!local) {
            if (why)
                SPEC_REPORT(ld->rep, STORAGE_ROOT, v->pos,
                            "Pipeline storage root `%.*s` is invalid: %s.",
                            CLIP(uri), why);
            return;
        }
    }
    char *abs = weir__path_absolute(local, spec->dir);
    if (!abs) {
        spec->arena.failed = true;
        return;
    }
    spec->storage = weir__arena_strdup(&spec->arena, abs);
    free(abs);
}

/* --- Optional strings, configuration ---------------------------------------- */

/* catalog / database / schema: a string, or null for "not set". */
static const char *load_opt_name(loader *ld, const ynode *v, const char *what)
{
    if (is_null(v) || !want_str(ld, v, what))
        return NULL;
    if (!*v->text) {
        SPEC_REPORT(ld->rep, FIELD_VALUE, v->pos,
                    "Pipeline spec field `%s` should not be empty.", what);
        return NULL;
    }
    return v->text;
}

static void load_configuration(loader *ld, const ynode *v)
{
    weir_spec *spec = ld->spec;
    if (!is_dict(v)) {
        SPEC_REPORT(ld->rep, NOT_DICT, v->pos,
                    "Pipeline spec field `configuration` should be a dict, "
                    "got %s.",
                    v->type);
        return;
    }
    spec->conf = weir__arena_array(&spec->arena, v->n / 2 + 1,
                                   sizeof(*spec->conf));
    if (!spec->conf)
        return;
    for (size_t i = 0; i + 1 < v->n; i += 2) {
        const ynode *k = v->items[i], *val = v->items[i + 1];
        if (!is_str(k)) {
            SPEC_REPORT(ld->rep, "PIPELINE_SPEC_DICT_KEY_NOT_STRING", k->pos,
                        "For pipeline spec field `configuration`, key should "
                        "be a string, got %s.",
                        k->type);
            continue;
        }
        if (!is_str(val)) {
            SPEC_REPORT(ld->rep, "PIPELINE_SPEC_DICT_VALUE_NOT_STRING",
                        val->pos,
                        "For pipeline spec field `configuration`, value for "
                        "key `%.*s` should be a string, got %s.",
                        CLIP(k->text), val->type);
            continue;
        }
        if (strlen(k->text) != k->len || strlen(val->text) != val->len) {
            SPEC_REPORT(ld->rep, FIELD_VALUE, val->pos,
                        "Pipeline spec field `configuration` must not "
                        "contain NUL characters (key `%.*s`).",
                        CLIP(k->text));
            continue;
        }
        char why[300];
        int bad = weir__spec_check_setting(k->text, val->text, why,
                                           sizeof(why));
        if (bad) {
            SPEC_REPORT(ld->rep, bad == 2 ? "PIPELINE_SPEC_UNEXPECTED_FIELD"
                                          : FIELD_VALUE,
                        bad == 2 ? k->pos : val->pos,
                        "Pipeline spec field `configuration`: %s.", why);
            continue;
        }
        weir_spec_conf *c = &spec->conf[spec->n_conf++];
        c->key = k->text;
        c->value = val->text;
        c->pos = k->pos;
        c->value_pos = val->pos;
    }
}

/* --- Libraries -------------------------------------------------------------- */

static bool has_magic(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '*' || s[i] == '?' || s[i] == '[')
            return true;
    return false;
}

/* True when every path part of s is "." or empty (pathlib sees no
 * pattern at all). */
static bool no_parts(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != '/')
            j++;
        if (!(j - i == 0 || (j - i == 1 && s[i] == '.')))
            return false;
        i = j + 1;
    }
    return true;
}

/* The pattern as evaluated (arena), or NULL with the problem reported
 * (Spark's validate_patch_glob_pattern, plus absolute and empty ones). */
static const char *check_glob(weir_arena *arena, weir_spec_report *r,
                              const char *include, weir_spec_pos pos,
                              bool *recursive)
{
    size_t n = strlen(include);
    *recursive = false;
    const char *why = NULL;
    if (include[0] == '/') {
        why = "absolute patterns are not supported; write a path relative "
              "to the spec's folder";
    } else if (!has_magic(include, n)) {
        if (!no_parts(include, n))
            return include;
        why = "the pattern names no file";
    } else if (n >= 3 && strcmp(include + n - 3, "/**") == 0 &&
               !has_magic(include, n - 3)) {
        *recursive = true;
        return weir__arena_printf(arena, "%s/*", include);
    }
    if (why)
        SPEC_REPORT(r, "PIPELINE_SPEC_INVALID_GLOB_PATTERN", pos,
                    "Invalid glob pattern `%.*s`: %s.", CLIP(include), why);
    else
        SPEC_REPORT(r, "PIPELINE_SPEC_INVALID_GLOB_PATTERN", pos,
                    "Invalid glob pattern `%.*s`. Only file paths, or folder "
                    "paths ending with `/**`, are allowed.",
                    CLIP(include));
    return NULL;
}

static const char *const LIB_SHAPE =
    "each entry should look like `- glob: {include: <pattern>}`";

static void load_library(loader *ld, const ynode *e)
{
    static const char *const entry_keys[] = { "glob", NULL };
    static const char *const glob_keys[] = { "include", NULL };
    weir_spec *spec = ld->spec;
    if (!is_dict(e)) {
        SPEC_REPORT(ld->rep, BAD_LIBRARY, e->pos,
                    "A `libraries` entry should be a dict, got %s; %s.",
                    e->type, LIB_SHAPE);
        return;
    }
    const ynode *glob = weir__spec_get(e, "glob");
    if (!glob && e->n) {
        const ynode *k = e->items[0];
        SPEC_REPORT(ld->rep, BAD_LIBRARY, k->pos,
                    "Unsupported `libraries` entry `%.*s`: only `glob` "
                    "entries exist; %s.",
                    CLIP(key_text(k)), LIB_SHAPE);
        return;
    }
    if (!glob) {
        SPEC_REPORT(ld->rep, BAD_LIBRARY, e->pos,
                    "A `libraries` entry is missing the `glob` key; %s.",
                    LIB_SHAPE);
        return;
    }
    weir__spec_extra_keys(ld->rep, e, entry_keys, BAD_LIBRARY,
                          "a `libraries` entry (only `glob` is supported)");
    if (!is_dict(glob)) {
        SPEC_REPORT(ld->rep, BAD_LIBRARY, glob->pos,
                    "`glob` in a `libraries` entry should be a dict, got %s; "
                    "%s.",
                    glob->type, LIB_SHAPE);
        return;
    }
    weir__spec_extra_keys(ld->rep, glob, glob_keys, BAD_LIBRARY,
                          "`glob` (only `include` is supported)");
    const ynode *inc = weir__spec_get(glob, "include");
    if (!inc) {
        SPEC_REPORT(ld->rep, BAD_LIBRARY, glob->pos,
                    "`glob` in a `libraries` entry is missing the `include` "
                    "key; %s.",
                    LIB_SHAPE);
        return;
    }
    if (!want_str(ld, inc, "libraries.glob.include"))
        return;
    bool recursive;
    const char *pattern = check_glob(&spec->arena, ld->rep, inc->text,
                                     inc->pos, &recursive);
    if (!pattern)
        return;
    weir_spec_library *lib = &spec->libraries[spec->n_libraries++];
    lib->include = inc->text;
    lib->pattern = pattern;
    lib->recursive = recursive;
    lib->pos = inc->pos;
}

static void load_libraries(loader *ld, const ynode *v)
{
    weir_spec *spec = ld->spec;
    if (!is_list(v)) {
        SPEC_REPORT(ld->rep, FIELD_TYPE, v->pos,
                    "Pipeline spec field `libraries` should be a list, got "
                    "%s.",
                    v->type);
        return;
    }
    spec->libraries = weir__arena_array(&spec->arena, v->n + 1,
                                        sizeof(*spec->libraries));
    if (!spec->libraries)
        return;
    for (size_t i = 0; i < v->n; i++)
        load_library(ld, v->items[i]);
}

/* --- The top level ------------------------------------------------------------ */

enum { F_NAME, F_STORAGE, F_CATALOG, F_DATABASE, F_SCHEMA, F_CONF, F_LIBS,
       F_EXPECT, N_FIELDS };
static const char *const FIELDS[N_FIELDS] = {
    "name", "storage", "catalog", "database", "schema", "configuration",
    "libraries", "expectations"
};

static void load_root(loader *ld, const ynode *root)
{
    weir_spec *spec = ld->spec;
    const ynode *f[N_FIELDS] = { NULL };
    for (size_t i = 0; i + 1 < root->n; i += 2) {
        const ynode *k = root->items[i];
        int which = -1;
        for (int j = 0; j < N_FIELDS && which < 0 && is_str(k); j++)
            if (strcmp(k->text, FIELDS[j]) == 0)
                which = j;
        if (which < 0)
            SPEC_REPORT(ld->rep, "PIPELINE_SPEC_UNEXPECTED_FIELD", k->pos,
                        "Pipeline spec field `%.*s` is unexpected.",
                        CLIP(key_text(k)));
        else
            f[which] = root->items[i + 1];
    }
    for (int j = F_NAME; j <= F_STORAGE; j++)
        if (!f[j])
            SPEC_REPORT(ld->rep, "PIPELINE_SPEC_MISSING_REQUIRED_FIELD",
                        root->pos,
                        "Pipeline spec missing required field `%s`.",
                        FIELDS[j]);
    if (f[F_NAME]) {
        spec->name_pos = f[F_NAME]->pos;
        if (want_str(ld, f[F_NAME], "name"))
            spec->name = f[F_NAME]->text;
    }
    if (f[F_STORAGE])
        load_storage(ld, f[F_STORAGE]);
    if (f[F_CATALOG]) {
        spec->catalog = load_opt_name(ld, f[F_CATALOG], "catalog");
        spec->catalog_pos = f[F_CATALOG]->pos;
    }
    /* `database` wins over `schema`, even when null (Spark's dict.get). */
    const char *schema = f[F_SCHEMA] ? load_opt_name(ld, f[F_SCHEMA], "schema")
                                     : NULL;
    if (f[F_DATABASE]) {
        spec->database = load_opt_name(ld, f[F_DATABASE], "database");
        spec->database_pos = f[F_DATABASE]->pos;
    } else if (f[F_SCHEMA]) {
        spec->database = schema;
        spec->database_pos = f[F_SCHEMA]->pos;
    }
    if (f[F_CONF])
        load_configuration(ld, f[F_CONF]);
    if (f[F_LIBS])
        load_libraries(ld, f[F_LIBS]);
    if (f[F_EXPECT])
        weir__spec_load_expectations(spec, ld->rep, f[F_EXPECT]);
}

/* --- Tree helpers shared with expectations.c ------------------------------ */

const weir_spec_ynode *weir__spec_get(const weir_spec_ynode *m,
                                      const char *name)
{
    for (size_t i = 0; i + 1 < m->n; i += 2)
        if (is_str(m->items[i]) && strcmp(m->items[i]->text, name) == 0)
            return m->items[i + 1];
    return NULL;
}

void weir__spec_extra_keys(weir_spec_report *r, const weir_spec_ynode *m,
                           const char *const *allowed, const char *cls,
                           const char *where)
{
    for (size_t i = 0; i + 1 < m->n; i += 2) {
        const ynode *k = m->items[i];
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = is_str(k) && strcmp(k->text, *a) == 0;
        if (!ok)
            SPEC_REPORT(r, cls, k->pos, "Unexpected key `%.*s` in %s.",
                        CLIP(key_text(k)), where);
    }
}

/* --- Entry points --------------------------------------------------------------- */

static int oom_error(weir_error *err)
{
    return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
}

/* path (absolute) and dir (realpath of its folder when it exists). */
static int set_paths(weir_spec *spec, const char *path)
{
    char *abs = weir__path_absolute(path, NULL);
    char *dir = abs ? weir__path_dirname(abs) : NULL;
    char *real = dir ? realpath(dir, NULL) : NULL;
    if (abs) {
        spec->path = weir__arena_strdup(&spec->arena, abs);
        spec->dir = weir__arena_strdup(&spec->arena, real ? real : dir);
    }
    free(abs);
    free(dir);
    free(real);
    return spec->path && spec->dir ? 0 : WEIR_ENOMEM;
}

/* Diagnostics d->items[first..] in source order (stable; entries without
 * a position last), and err set to the first of them. */
static void sort_diags(weir__diags *d, size_t first, weir_error *err)
{
    if (!d || d->len <= first)
        return;
    weir_error *v = d->items + first;
    size_t n = d->len - first;
    for (size_t i = 1; i < n; i++) {
        weir_error tmp = v[i];
        unsigned tl = tmp.line ? tmp.line : ~0u;
        size_t j = i;
        while (j > 0) {
            unsigned pl = v[j - 1].line ? v[j - 1].line : ~0u;
            if (pl < tl || (pl == tl && v[j - 1].column <= tmp.column))
                break;
            v[j] = v[j - 1];
            j--;
        }
        v[j] = tmp;
    }
    weir__error_copy(err, &v[0]);
}

int weir__spec_parse(weir_spec **out, const char *path, const char *text,
                     size_t len, weir__diags *diags, weir_error *err)
{
    *out = NULL;
    weir_spec *spec = calloc(1, sizeof(*spec));
    if (!spec)
        return oom_error(err);
    weir__arena_init(&spec->arena);
    if (set_paths(spec, path ? path : WEIR_SPEC_FILE_YML)) {
        weir__spec_free(spec);
        return oom_error(err);
    }
    char *copy = weir__arena_strndup(&spec->arena, text ? text : "", len);
    if (!copy) {
        weir__spec_free(spec);
        return oom_error(err);
    }
    spec->text = copy;
    spec->text_len = len;

    size_t first_diag = diags ? diags->len : 0;
    weir_spec_report rep = { spec->path, copy, len, diags, err, 0 };
    loader ld = { spec, &rep };
    ynode *root = NULL;
    int rc = weir__spec_yaml_parse(&root, &spec->arena, copy, len, &rep);
    if (!rc && rep.n == 0) {
        if (!root || is_null(root)) {
            weir_spec_pos start = { 1, 1 };
            SPEC_REPORT(&rep, "PIPELINE_SPEC_EMPTY", root ? root->pos : start,
                        "The pipeline spec is empty: it should be a dict "
                        "with at least `name` and `storage`.");
        } else if (!is_dict(root)) {
            SPEC_REPORT(&rep, "PIPELINE_SPEC_NOT_A_DICT", root->pos,
                        "The pipeline spec should be a dict of fields "
                        "(name, storage, ...), got %s.",
                        root->type);
        } else {
            load_root(&ld, root);
        }
    } else if (!rc && root && is_dict(root)) {
        /* Duplicate keys were reported; check the rest too. */
        load_root(&ld, root);
    }
    if (!rc && weir__arena_failed(&spec->arena))
        rc = WEIR_ENOMEM;
    if (rc == WEIR_ENOMEM) {
        weir__spec_free(spec);
        return oom_error(err);
    }
    if (rc || rep.n) {
        sort_diags(diags, first_diag, err);
        weir__spec_free(spec);
        return WEIR_ESPEC;
    }
    *out = spec;
    return 0;
}

int weir__spec_check_path(const char *path, weir_error *err)
{
    if (!path || !weir__fs_is_file(path))
        return WEIR_ERR(err, WEIR_ENOTFOUND,
                        "PIPELINE_SPEC_FILE_DOES_NOT_EXIST",
                        "The pipeline spec file `%s` does not exist.",
                        path ? path : "");
    return 0;
}

int weir__spec_load(weir_spec **out, const char *path, weir__diags *diags,
                    weir_error *err)
{
    *out = NULL;
    int rc = weir__spec_check_path(path, err);
    if (rc)
        return rc;
    char *text = NULL;
    size_t len = 0;
    rc = weir__fs_read(&text, &len, path, err);
    if (rc)
        return rc;
    rc = weir__spec_parse(out, path, text, len, diags, err);
    free(text);
    return rc;
}

void weir__spec_free(weir_spec *spec)
{
    if (!spec)
        return;
    weir__arena_free(&spec->arena);
    free(spec);
}

/* 1 when path is a regular file, 0 when it is not there, -1 when it cannot
 * be checked (permission denied: Spark stops the search there). */
static int probe(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISREG(st.st_mode) ? 1 : 0;
    return errno == EACCES ? -1 : 0;
}

static int not_found(weir_error *err, const char *dir)
{
    return WEIR_ERR(err, WEIR_ENOTFOUND, "PIPELINE_SPEC_FILE_NOT_FOUND",
                    "No " WEIR_SPEC_FILE_YAML " or " WEIR_SPEC_FILE_YML
                    " file provided in arguments or found in directory `%s` "
                    "or readable ancestor directories.",
                    dir);
}

/* 0 with *out set when dir holds exactly one spec file, 1 when it holds
 * none, or an error. */
static int look_in(char **out, const char *dir, const char *start,
                   weir_error *err)
{
    char *yaml = weir__path_join(dir, WEIR_SPEC_FILE_YAML);
    char *yml = weir__path_join(dir, WEIR_SPEC_FILE_YML);
    int rc = 1;
    if (!yaml || !yml) {
        rc = oom_error(err);
    } else {
        int a = probe(yaml), b = probe(yml);
        if (a < 0 || b < 0) {
            rc = not_found(err, start);
        } else if (a && b) {
            rc = WEIR_ERR(err, WEIR_ESPEC, "MULTIPLE_PIPELINE_SPEC_FILES_FOUND",
                          "Multiple pipeline spec files found in the "
                          "directory `%s`. Please remove one or choose a "
                          "particular one with the --spec argument.",
                          dir);
        } else if (a) {
            *out = yaml;
            yaml = NULL;
            rc = 0;
        } else if (b) {
            *out = yml;
            yml = NULL;
            rc = 0;
        }
    }
    free(yaml);
    free(yml);
    return rc;
}

int weir__spec_find(char **out, const char *start_dir, weir_error *err)
{
    *out = NULL;
    char *start = weir__path_absolute(start_dir ? start_dir : ".", NULL);
    if (!start)
        return oom_error(err);
    char *dir = strdup(start);
    int rc;
    for (;;) {
        if (!dir) {
            rc = oom_error(err);
            break;
        }
        rc = look_in(out, dir, start, err);
        if (rc <= 0)
            break;
        if (strcmp(dir, "/") == 0) {
            rc = not_found(err, start);
            break;
        }
        char *parent = weir__path_dirname(dir);
        free(dir);
        dir = parent;
        if (dir && !weir__fs_is_dir(dir)) {
            rc = not_found(err, start);
            break;
        }
    }
    free(dir);
    free(start);
    return rc;
}

/* --- Environments (weir-environments.yml) and --conf overrides ------------ */

/* Merge conf entries add[0..n) over spec->conf (same key: replaced). */
static int merge_conf(weir_spec *spec, const weir_spec_conf *add, size_t n)
{
    weir_spec_conf *all = weir__arena_array(&spec->arena, spec->n_conf + n + 1,
                                            sizeof(*all));
    if (!all)
        return WEIR_ENOMEM;
    if (spec->n_conf)
        memcpy(all, spec->conf, spec->n_conf * sizeof(*all));
    size_t len = spec->n_conf;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < len && strcmp(all[j].key, add[i].key) != 0)
            j++;
        all[j] = add[i];
        if (j == len)
            len++;
    }
    spec->conf = all;
    spec->n_conf = len;
    return 0;
}

enum { E_STORAGE, E_CATALOG, E_DATABASE, E_SCHEMA, E_CONF, N_ENV_FIELDS };
static const char *const ENV_FIELDS[N_ENV_FIELDS + 1] = {
    "storage", "catalog", "database", "schema", "configuration", NULL
};

static void load_environment(loader *ld, const ynode *env)
{
    weir_spec *spec = ld->spec;
    const ynode *f[N_ENV_FIELDS] = { NULL };
    for (int j = 0; j < N_ENV_FIELDS; j++)
        f[j] = weir__spec_get(env, ENV_FIELDS[j]);
    weir__spec_extra_keys(ld->rep, env, ENV_FIELDS,
                          "PIPELINE_SPEC_UNEXPECTED_FIELD", "an environment");
    if (f[E_STORAGE]) {
        load_storage(ld, f[E_STORAGE]);
        spec->storage_file = ld->rep->path;
        spec->storage_file_text = ld->rep->text;
        spec->storage_file_len = ld->rep->len;
    }
    if (f[E_CATALOG]) {
        spec->catalog = load_opt_name(ld, f[E_CATALOG], "catalog");
        spec->catalog_pos = f[E_CATALOG]->pos;
    }
    const ynode *db = f[E_DATABASE] ? f[E_DATABASE] : f[E_SCHEMA];
    if (db) {
        spec->database = load_opt_name(ld, db, f[E_DATABASE] ? "database"
                                                             : "schema");
        spec->database_pos = db->pos;
    }
    if (f[E_CONF]) {
        weir_spec_conf *old = spec->conf;
        size_t n_old = spec->n_conf;
        spec->conf = NULL;
        spec->n_conf = 0;
        load_configuration(ld, f[E_CONF]);
        weir_spec_conf *add = spec->conf;
        size_t n_add = spec->n_conf;
        spec->conf = old;
        spec->n_conf = n_old;
        if (n_add && merge_conf(spec, add, n_add))
            spec->arena.failed = true;
    }
}

int weir__spec_apply_environment(weir_spec *spec, const char *name,
                                 weir__diags *diags, weir_error *err)
{
    char *path = weir__path_absolute(WEIR_ENV_FILE, spec->dir);
    if (!path)
        return oom_error(err);
    const char *apath = weir__arena_strdup(&spec->arena, path);
    free(path);
    if (!apath)
        return oom_error(err);
    if (!weir__fs_is_file(apath)) {
        weir_error e;
        WEIR_ERR(&e, WEIR_ESPEC, "ENVIRONMENTS_FILE_NOT_FOUND",
                 "Environment `%s` was asked for, but there is no "
                 "environments file `%s` beside the pipeline spec.",
                 name, apath);
        if (diags)
            weir__diags_add(diags, &e);
        weir__error_copy(err, &e);
        return WEIR_ESPEC;
    }
    char *text = NULL;
    size_t len = 0;
    int rc = weir__fs_read(&text, &len, apath, err);
    if (rc)
        return rc;
    char *copy = weir__arena_strndup(&spec->arena, text, len);
    free(text);
    if (!copy)
        return oom_error(err);

    size_t first_diag = diags ? diags->len : 0;
    weir_spec_report rep = { apath, copy, len, diags, err, 0 };
    loader ld = { spec, &rep };
    ynode *root = NULL;
    rc = weir__spec_yaml_parse(&root, &spec->arena, copy, len, &rep);
    weir_spec_pos start = { 1, 1 };
    if (!rc && rep.n == 0) {
        if (!root || !is_dict(root)) {
            SPEC_REPORT(&rep, "PIPELINE_SPEC_NOT_A_DICT",
                        root ? root->pos : start,
                        "The environments file should be a dict of "
                        "environment names, got %s.",
                        root ? root->type : "nothing");
        } else {
            const ynode *env = weir__spec_get(root, name);
            if (!env) {
                char names[400] = "";
                size_t o = 0;
                for (size_t i = 0; i + 1 < root->n && o < sizeof names - 80;
                     i += 2) {
                    int w = snprintf(names + o, sizeof names - o, "%s`%.*s`",
                                     o ? ", " : "",
                                     CLIP(key_text(root->items[i])));
                    if (w > 0)
                        o += (size_t)w;
                }
                SPEC_REPORT(&rep, "UNKNOWN_ENVIRONMENT", root->pos,
                            "Environment `%.*s` is not defined in %s "
                            "(defined: %s).",
                            CLIP(name), WEIR_ENV_FILE, o ? names : "none");
            } else if (!is_dict(env)) {
                SPEC_REPORT(&rep, NOT_DICT, env->pos,
                            "Environment `%.*s` should be a dict (storage, "
                            "catalog, database, configuration), got %s.",
                            CLIP(name), env->type);
            } else {
                load_environment(&ld, env);
            }
        }
    }
    if (!rc && weir__arena_failed(&spec->arena))
        rc = WEIR_ENOMEM;
    if (rc == WEIR_ENOMEM)
        return oom_error(err);
    if (rc || rep.n) {
        sort_diags(diags, first_diag, err);
        return WEIR_ESPEC;
    }
    return 0;
}

int weir__spec_set_conf(weir_spec *spec, const char *key, const char *value,
                        weir__diags *diags, weir_error *err)
{
    char why[300];
    int bad = weir__spec_check_setting(key, value, why, sizeof(why));
    if (bad) {
        weir_error e;
        WEIR_ERR(&e, WEIR_ESPEC,
                 bad == 2 ? "PIPELINE_SPEC_UNEXPECTED_FIELD" : FIELD_VALUE,
                 "--conf %s=%s: %s.", key, value, why);
        if (diags)
            weir__diags_add(diags, &e);
        weir__error_copy(err, &e);
        return WEIR_ESPEC;
    }
    weir_spec_conf c;
    memset(&c, 0, sizeof c);
    c.key = weir__arena_strdup(&spec->arena, key);
    c.value = weir__arena_strdup(&spec->arena, value);
    if (!c.key || !c.value || merge_conf(spec, &c, 1))
        return oom_error(err);
    return 0;
}
