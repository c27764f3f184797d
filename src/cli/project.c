/*
 * Opening the pipeline a command works on: find the spec (--spec, or
 * spark-pipeline.yml / .yaml in the current folder or a parent, like
 * spark-pipelines), open a session whose log messages are printed with a
 * timestamp, load the pipeline, and report every problem on failure.
 */
#define _POSIX_C_SOURCE 200809L /* strndup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* "dir/name" in a new string, or NULL. */
static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (!s)
        return NULL;
    memcpy(s, dir, a);
    if (a == 0 || dir[a - 1] != '/')
        s[a++] = '/';
    memcpy(s + a, name, b + 1);
    return s;
}

/* The spec file in dir: *out set when exactly one of the names exists. */
static bool spec_in(const char *dir, char **out)
{
    char *yaml = join(dir, "spark-pipeline.yaml");
    char *yml = join(dir, "spark-pipeline.yml");
    bool has_yaml = yaml && is_file(yaml), has_yml = yml && is_file(yml);

    *out = NULL;
    if (has_yaml != has_yml) {
        *out = has_yaml ? yaml : yml;
        free(has_yaml ? yml : yaml);
    } else {
        free(yaml);
        free(yml);
    }
    return has_yaml || has_yml;
}

/* Search the current folder and its parents; NULL when there is no single
 * spec to load (the library then reports why). */
static char *discover_spec(void)
{
    char *dir = getcwd(NULL, 0);
    char *found = NULL;

    while (dir && !spec_in(dir, &found) && strcmp(dir, "/") != 0) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        slash[slash == dir] = '\0'; /* "/a" -> "/", "/a/b" -> "/a" */
    }
    free(dir);
    return found;
}

/* The absolute form of a spec path given by the user (for messages). */
static char *absolute(const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    char *cwd = getcwd(NULL, 0);
    char *abs = cwd ? join(cwd, path) : strdup(path);
    free(cwd);
    return abs;
}

static void on_log(const char *message, void *payload)
{
    const project *p = payload;
    if (p->log)
        print_logline(p->log, "%s", message);
}

static int fail(project *p, FILE *json_out, int rc, const weir_error *err)
{
    print_failure(p->cli, p->pipeline, rc, err);
    if (json_out)
        print_failure_json(json_out, p->pipeline, rc, err);
    return exit_code_for(rc);
}

static int oom(weir_error *err)
{
    err->code = WEIR_ENOMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
    return WEIR_ENOMEM;
}

int load_args_conf(const cli *c, load_args *l, const char *value)
{
    const char *eq = strchr(value, '=');
    if (!eq || eq == value) {
        print_error(c, "--conf expects key=value, got '%s'", value);
        return EXIT_USAGE;
    }
    if (!strlist_add(&l->conf, value)) {
        print_error(c, "out of memory");
        return EXIT_FAILED;
    }
    return -1;
}

void load_args_free(load_args *l)
{
    strlist_free(&l->conf);
}

int project_open(project *p, const cli *c, const char *spec, FILE *log,
                 FILE *json_out)
{
    return project_open_with(p, c, spec, NULL, log, json_out);
}

weir_kv *load_args_kv(const load_args *l)
{
    size_t n = l ? l->conf.len : 0;
    weir_kv *kv = calloc(n + 1, sizeof *kv);
    for (size_t i = 0; kv && i < n; i++) {
        const char *item = l->conf.items[i];
        size_t klen = (size_t)(strchr(item, '=') - item);
        char *key = strndup(item, klen);
        kv[i].key = key;
        kv[i].value = item + klen + 1;
        if (!key) {
            load_args_kv_free(kv, i);
            return NULL;
        }
    }
    return kv;
}

void load_args_kv_free(weir_kv *kv, size_t n)
{
    for (size_t i = 0; kv && i < n; i++)
        free((char *)kv[i].key);
    free(kv);
}

int project_open_with(project *p, const cli *c, const char *spec,
                      const load_args *load, FILE *log, FILE *json_out)
{
    weir_load_options lo = WEIR_LOAD_OPTIONS_INIT;
    size_t n_conf = load ? load->conf.len : 0;
    weir_kv *kv = load_args_kv(load);
    weir_session_options so = WEIR_SESSION_OPTIONS_INIT;
    weir_error err;
    char *path = spec ? absolute(spec) : discover_spec();
    int rc;

    memset(&err, 0, sizeof err);
    p->cli = c;
    p->log = log;
    p->session = NULL;
    p->pipeline = NULL;
    if (log && path)
        print_logline(log, "Loading pipeline spec from %s...", path);
    so.on_log = on_log;
    so.log_payload = p;
    rc = weir_session_open(&p->session, &so, &err);
    if (rc == 0 && !kv)
        rc = oom(&err);
    lo.environment = load ? load->env : NULL;
    lo.conf = kv;
    lo.n_conf = n_conf;
    lo.storage_only = load && load->storage_only;
    lo.storage = load ? load->storage : NULL;
    if (rc == 0)
        rc = weir_pipeline_load_with(&p->pipeline, p->session,
                                     spec ? spec : path, &lo, &err);
    load_args_kv_free(kv, n_conf);
    free(path);
    return rc ? fail(p, json_out, rc, &err) : EXIT_OK;
}

void project_close(project *p)
{
    weir_pipeline_drop(p->pipeline);
    weir_session_close(p->session);
    p->pipeline = NULL;
    p->session = NULL;
}
