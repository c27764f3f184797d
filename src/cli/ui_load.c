/*
 * Loading the snapshot `weir report` and `weir ui` show: open the project,
 * import its Python definition files, resolve the graph with a silent dry
 * run (which takes no storage lock), read the event log through a query and
 * drop the pipeline again, so the storage lock is held only while the
 * event log is read. Definition errors leave the graph out (with a note)
 * but the updates are still shown, read with the spec only.
 */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ui/ui.h"

#define UI_UPDATES 20
/* Bounds of the walk that signs a project's Python files. */
#define SIGN_MAX_DEPTH 16
#define SIGN_MAX_ENTRIES 20000

/* --- Reusing the Python imports between refreshes -------------------------- */

typedef struct signer {
    uint64_t hash; /* FNV-1a */
    size_t entries;
    const char *skip; /* the storage folder */
} signer;

static void mix(signer *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        s->hash ^= p[i];
        s->hash *= 1099511628211ULL;
    }
}

/* The file's path, size, inode and modification time. */
static void sign_file(signer *s, const char *path)
{
    struct stat st;
    long long facts[4] = { -1, -1, -1, -1 };
    if (stat(path, &st) == 0) {
        facts[0] = (long long)st.st_size;
        facts[1] = (long long)st.st_ino;
        facts[2] = (long long)st.st_mtim.tv_sec;
        facts[3] = (long long)st.st_mtim.tv_nsec;
    }
    mix(s, path, strlen(path) + 1);
    mix(s, facts, sizeof facts);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Every *.py file below dir (not in hidden folders, __pycache__ or the
 * storage), in the order readdir gives: a reordering only costs an import. */
static void sign_tree(signer *s, const char *dir, int depth)
{
    DIR *d = depth < SIGN_MAX_DEPTH ? opendir(dir) : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && s->entries++ < SIGN_MAX_ENTRIES) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "__pycache__"))
            continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
            (int)sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && (!s->skip || strcmp(path, s->skip) != 0))
            sign_tree(s, path, depth + 1);
        else if (ends_with(e->d_name, ".py"))
            sign_file(s, path);
    }
    closedir(d);
}

/* What the Python imports of pl depend on: its spec, its definition files
 * and the Python files under the spec's folder (modules they import). */
static uint64_t python_signature(weir_pipeline *pl)
{
    signer s = { 1469598103934665603ULL, 0, weir_pipeline_storage(pl) };
    const char *spec = weir_pipeline_spec_path(pl);
    const char *const *files = NULL;
    size_t n = weir_pipeline_python_files(pl, &files);
    for (size_t i = 0; i < n; i++)
        sign_file(&s, files[i]);
    if (spec) {
        sign_file(&s, spec);
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", spec);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, "%s", slash ? "/" : ".");
        sign_tree(&s, dir, 0);
    }
    return s.hash;
}

void ui_python_cache_clear(ui_python_cache *cache)
{
    if (cache->open)
        project_close(&cache->defs);
    memset(cache, 0, sizeof *cache);
}

/* Give p the definitions of its Python files: imported again when they
 * changed since the cache's import, else copied from it. */
static int define_python(project *p, const char *spec, const load_args *load,
                         ui_python_cache *cache)
{
    const char *const *files = NULL;
    if (!cache || weir_pipeline_python_files(p->pipeline, &files) == 0)
        return project_define_python(p, NULL);
    uint64_t key = python_signature(p->pipeline);
    if (!cache->valid || cache->key != key) {
        ui_python_cache_clear(cache);
        cache->open = true;
        int code = project_open_with(&cache->defs, p->cli, spec, load, NULL,
                                     NULL);
        if (code == EXIT_OK)
            code = project_define_python(&cache->defs, NULL);
        if (code != EXIT_OK) {
            ui_python_cache_clear(cache);
            return code;
        }
        cache->valid = true;
        cache->key = key;
    }
    weir_error err;
    memset(&err, 0, sizeof err);
    int rc = weir_pipeline_copy_definitions(p->pipeline, cache->defs.pipeline,
                                            &err);
    if (rc) {
        print_failure(p->cli, p->pipeline, rc, &err);
        ui_python_cache_clear(cache);
        return exit_code_for(rc);
    }
    return EXIT_OK;
}

/* --- The snapshot ------------------------------------------------------------ */

static const char *resolve(project *p, weir_graph_info *graph)
{
    weir_run_options ro = WEIR_RUN_OPTIONS_INIT;
    weir_run_result result;
    weir_error err;
    memset(&result, 0, sizeof result);
    memset(&err, 0, sizeof err);
    ro.dry = true;
    int rc = weir_pipeline_start_run(p->pipeline, &ro, &result, &err);
    if (rc == 0 && result.state == WEIR_RUN_COMPLETED &&
        weir_pipeline_describe(p->pipeline, graph, &err) == 0)
        return NULL;
    return "The graph cannot be shown: the pipeline does not resolve (see "
           "weir dry-run).";
}

int ui_load_snapshot(const cli *c, const ui_module *m, const char *spec,
                     const load_args *load, ui_python_cache *cache,
                     ui_snapshot **out)
{
    project p;
    weir_graph_info graph;
    const char *note = NULL;
    weir_error err;

    *out = NULL;
    memset(&err, 0, sizeof err);
    int code = project_open_with(&p, c, spec, load, NULL, NULL);
    if (code == EXIT_OK)
        code = define_python(&p, spec, load, cache);
    if (code == EXIT_OK) {
        note = resolve(&p, &graph);
    } else {
        /* The event log stays readable while a definition has errors. */
        project_close(&p);
        load_args spec_only;
        memset(&spec_only, 0, sizeof spec_only);
        if (load)
            spec_only = *load; /* borrowed: not freed here */
        spec_only.storage_only = true;
        code = project_open_with(&p, c, spec, &spec_only, NULL, NULL);
        note = "The graph cannot be shown: the definition files have errors "
               "(see weir dry-run).";
    }
    if (code == EXIT_OK) {
        int rc = m->snapshot_build(out, p.pipeline, note ? NULL : &graph,
                                   note, UI_UPDATES, &err);
        if (rc) {
            print_failure(c, p.pipeline, rc, &err);
            code = exit_code_for(rc);
        }
    }
    project_close(&p);
    return code;
}
