/*
 * The public API of weir.h: sessions, pipelines, definitions from specs and
 * SQL text, and runs. Definitions made through C calls live in define.c,
 * queries, results and Arrow streams in query.c, graph descriptions in
 * describe.c.
 */
#include "api/internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "spec/spec.h"
#include "util/fs.h"
#include "util/str.h"

/* ---- sessions ------------------------------------------------------------ */

int weir_session_open(weir_session **out, const weir_session_options *opts,
                      weir_error *err)
{
    if (!out)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "out is NULL");
    *out = NULL;
    if (opts && (opts->version < 1 || opts->version > WEIR_SESSION_OPTIONS_VERSION))
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "unsupported weir_session_options version %u",
                        opts->version);
    char why[300];
    if (opts && opts->memory_limit &&
        weir__spec_check_setting("weir.duckdb.memory_limit", opts->memory_limit,
                                 why, sizeof(why)))
        return WEIR_ERR(err, WEIR_EINVAL, "PIPELINE_SPEC_INVALID_FIELD_VALUE",
                        "memory_limit: %s", why);
    if (opts && opts->threads > 1024)
        return WEIR_ERR(err, WEIR_EINVAL, "PIPELINE_SPEC_INVALID_FIELD_VALUE",
                        "threads must be from 1 to 1024 (0: DuckDB's "
                        "default), got %u",
                        opts->threads);
    weir_session *s = calloc(1, sizeof(*s));
    if (!s)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    atomic_init(&s->n_pipelines, 0);
    if (opts) {
        s->threads = opts->threads;
        s->on_log = opts->on_log;
        s->log_payload = opts->log_payload;
        if (opts->memory_limit && !(s->memory_limit = strdup(opts->memory_limit))) {
            free(s);
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        }
    }
    *out = s;
    return 0;
}

void weir_session_close(weir_session *s)
{
    if (!s)
        return;
    /* Pipelines point at their session: drop them first. */
    assert(atomic_load(&s->n_pipelines) == 0);
    free(s->memory_limit);
    free(s);
}

void weir__session_log(const weir_session *s, const char *fmt, ...)
{
    if (!s || !s->on_log)
        return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    s->on_log(msg, s->log_payload);
}

/* ---- pipelines ------------------------------------------------------------ */

static char *dup_or(const char *s, const char *dflt)
{
    return strdup(s ? s : dflt);
}

/* The storage option as an absolute local folder (file:// removed). */
static int storage_path(char **out, const char *storage, const char *base,
                        weir_error *err)
{
    *out = NULL;
    if (!storage)
        return 0;
    const char *p = storage;
    if (weir__str_istarts(p, "file://"))
        p += strlen("file://");
    else if (strstr(p, "://"))
        return WEIR_ERR(err, WEIR_EINVAL, "PIPELINE_STORAGE_ROOT_INVALID",
                        "Pipeline storage root must be a local folder or a "
                        "file:// URI. Got: `%s`.",
                        storage);
    *out = weir__path_absolute(p, base);
    return *out ? 0 : WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
}

int weir_pipeline_create(weir_pipeline **out, weir_session *session,
                         const weir_pipeline_options *opts, weir_error *err)
{
    if (!out || !session)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "out and session are required");
    *out = NULL;
    weir_pipeline_options none = WEIR_PIPELINE_OPTIONS_INIT;
    if (!opts)
        opts = &none;
    if (opts->version < 1 || opts->version > WEIR_PIPELINE_OPTIONS_VERSION)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "unsupported weir_pipeline_options version %u",
                        opts->version);
    if (opts->n_configuration && !opts->configuration)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "n_configuration is set but configuration is NULL");
    for (size_t i = 0; i < opts->n_configuration; i++) {
        char why[300];
        const weir_kv *kv = &opts->configuration[i];
        int bad = kv->key ? weir__spec_check_setting(kv->key, kv->value, why,
                                                     sizeof(why))
                          : 0;
        if (bad)
            return WEIR_ERR(err, WEIR_EINVAL,
                            bad == 2 ? "PIPELINE_SPEC_UNEXPECTED_FIELD"
                                     : "PIPELINE_SPEC_INVALID_FIELD_VALUE",
                            "configuration: %s", why);
    }
    weir_pipeline *p = calloc(1, sizeof(*p));
    if (!p)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    p->session = session;
    atomic_fetch_add(&session->n_pipelines, 1);
    weir__arena_init(&p->arena);
    weir__arena_init(&p->info_arena);
    weir__arena_init(&p->spark_arena);
    p->name = dup_or(opts->name, "pipeline");
    p->catalog = dup_or(opts->catalog, "spark_catalog");
    p->database = dup_or(opts->database, "default");
    p->root_dir = opts->root_dir ? weir__path_absolute(opts->root_dir, NULL)
                                 : weir__path_cwd();
    int rc = (!p->name || !p->catalog || !p->database || !p->root_dir)
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                 : storage_path(&p->storage, opts->storage, p->root_dir, err);
    if (!rc && weir__str_ieq(p->catalog, "weir"))
        rc = WEIR_ERR(err, WEIR_EINVAL, "PIPELINE_RESERVED_CATALOG",
                      "the catalog name 'weir' is reserved for weir's event "
                      "log; choose another catalog");
    if (!rc && opts->n_configuration) {
        weir_kv *conf = weir__arena_array(&p->arena, opts->n_configuration,
                                          sizeof(*conf));
        for (size_t i = 0; conf && i < opts->n_configuration; i++) {
            conf[i].key = weir__arena_strdup(&p->arena, opts->configuration[i].key);
            conf[i].value =
                weir__arena_strdup(&p->arena, opts->configuration[i].value);
        }
        p->defs.conf = conf;
        p->defs.n_conf = opts->n_configuration;
        if (weir__arena_failed(&p->arena))
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    p->defs.default_catalog = p->catalog;
    p->defs.default_database = p->database;
    if (rc) {
        weir_pipeline_drop(p);
        return rc;
    }
    *out = p;
    return 0;
}

void weir_pipeline_drop(weir_pipeline *p)
{
    if (!p)
        return;
    /* Results and Arrow streams point at their pipeline: free them first. */
    assert(p->open_results == 0);
    atomic_fetch_sub(&p->session->n_pipelines, 1);
    weir__query_close(p);
    weir__graph_free(p->graph);
    WEIR_VEC_FREE(&p->records);
    weir__defs_free(&p->defs);
    weir__diags_free(&p->diags);
    weir__spec_free(p->spec);
    weir__arena_free(&p->arena);
    weir__arena_free(&p->info_arena);
    weir__findings_free(&p->spark);
    weir__arena_free(&p->spark_arena);
    free(p->name);
    free(p->storage);
    free(p->catalog);
    free(p->database);
    free(p->root_dir);
    free(p->spec_path);
    free(p->query_zone);
    free(p);
}

const char *weir_pipeline_name(const weir_pipeline *p)
{
    return p ? p->name : NULL;
}

const char *weir_pipeline_spec_path(const weir_pipeline *p)
{
    return p ? p->spec_path : NULL;
}

const char *weir_pipeline_storage(const weir_pipeline *p)
{
    return p ? p->storage : NULL;
}

const char *weir_pipeline_catalog(const weir_pipeline *p)
{
    return p ? p->catalog : NULL;
}

const char *weir_pipeline_database(const weir_pipeline *p)
{
    return p ? p->database : NULL;
}

const char *weir_pipeline_conf_get(const weir_pipeline *p, const char *key)
{
    const char *v = NULL;
    for (size_t i = 0; p && key && i < p->defs.n_conf; i++)
        if (strcmp(p->defs.conf[i].key, key) == 0)
            v = p->defs.conf[i].value;
    return v;
}

size_t weir_pipeline_conf_at(const weir_pipeline *p, size_t i,
                             const char **key, const char **value)
{
    size_t n = p ? p->defs.n_conf : 0;
    if (i < n) {
        if (key)
            *key = p->defs.conf[i].key;
        if (value)
            *value = p->defs.conf[i].value;
    }
    return n;
}

size_t weir_pipeline_diagnostics(const weir_pipeline *p, const weir_error **out)
{
    if (out)
        *out = p ? p->diags.items : NULL;
    return p ? p->diags.len : 0;
}

void weir__begin_call(weir_pipeline *p)
{
    weir__diags_clear(&p->diags);
}

void weir__defined(weir_pipeline *p)
{
    p->resolved = false;
}

/* ---- definitions from SQL ----------------------------------------------------- */

/* A pipeline configuration value, or NULL. */
static const char *conf_value(const weir_pipeline *p, const char *key)
{
    for (size_t i = 0; i < p->defs.n_conf; i++)
        if (p->defs.conf[i].key && weir__str_ieq(p->defs.conf[i].key, key))
            return p->defs.conf[i].value;
    return NULL;
}

/* Spark's SQL_standard_keyword_behavior: ANSI's reserved keywords name
 * nothing when enforceReservedKeywords is true and ANSI mode is on (the
 * default of Spark 4). */
static bool reserved_keywords(const weir_pipeline *p)
{
    const char *enforce = conf_value(p, "spark.sql.ansi.enforceReservedKeywords");
    const char *ansi = conf_value(p, "spark.sql.ansi.enabled");
    return enforce && weir__str_ieq(enforce, "true") &&
           !(ansi && weir__str_ieq(ansi, "false"));
}

static int define_sql(weir_pipeline *p, const char *text, size_t len,
                      const char *file_name)
{
    weir_sql_source *src = weir__arena_alloc(&p->arena, sizeof(*src));
    if (!src)
        return WEIR_ENOMEM;
    src->path = weir__arena_strdup(&p->arena, file_name ? file_name : "<sql>");
    src->text = weir__arena_strndup(&p->arena, text, len);
    src->len = len;
    src->reserved_keywords = reserved_keywords(p);
    if (weir__arena_failed(&p->arena) || weir__sql_source_index(src, &p->arena))
        return WEIR_ENOMEM;
    weir_sql_stmt *stmts = NULL;
    size_t n = 0;
    int rc = weir__sql_parse_file(&stmts, &n, &p->arena, src, &p->diags);
    int rc2 = weir__defs_add_sql(&p->defs, &p->arena, stmts, n, &p->diags);
    weir__defined(p);
    if (rc2 == WEIR_ENOMEM || rc == WEIR_ENOMEM)
        return WEIR_ENOMEM;
    return rc ? rc : rc2;
}

int weir_pipeline_define_sql(weir_pipeline *p, const char *sql_text,
                             const char *file_name, weir_error *err)
{
    if (!p || !sql_text)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "pipeline and SQL are required");
    weir__begin_call(p);
    int rc = define_sql(p, sql_text, strlen(sql_text), file_name);
    if (!rc)
        rc = weir__record_sql(p, sql_text, file_name);
    if (rc == WEIR_ENOMEM)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (rc)
        return weir__first_diag(p, err, WEIR_ESQL);
    return 0;
}

int weir__first_diag(weir_pipeline *p, weir_error *err, int code)
{
    if (p->diags.len) {
        weir__error_copy(err, &p->diags.items[0]);
        if (err)
            err->code = code;
        return code;
    }
    return WEIR_ERR(err, code, NULL, "%s", weir_strerror(code));
}

/* ---- loading a spec --------------------------------------------------------- */

static bool is_python(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".py") == 0;
}

/* Register the SQL files, in order; Python files are only listed (the
 * front end imports them: weir_pipeline_python_files). */
static int register_files(weir_pipeline *p, weir_spec *spec, weir_error *err)
{
    weir_spec_file *files = NULL;
    size_t n = 0;
    int rc = weir__spec_library_files(&files, &n, spec, &p->diags, err);
    if (rc)
        return rc;
    size_t n_py = 0;
    for (size_t k = 0; k < n; k++)
        n_py += is_python(files[k].path);
    if (n_py) {
        p->python_files = weir__arena_array(&p->arena, n_py,
                                            sizeof(*p->python_files));
        if (!p->python_files)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    if (n > n_py) {
        p->sql_files = weir__arena_array(&p->arena, n - n_py,
                                         sizeof(*p->sql_files));
        if (!p->sql_files)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    weir__session_log(p->session, "Loading definitions. Root directory: '%s'.",
                      spec->dir);
    bool sql_errors = false;
    for (size_t i = 0; i < spec->n_libraries; i++) {
        const weir_spec_library *lib = &spec->libraries[i];
        weir__session_log(p->session, "Found %zu files matching glob '%s'",
                          lib->matched, lib->pattern ? lib->pattern : lib->include);
        for (size_t k = 0; k < n; k++) {
            if (files[k].library != lib)
                continue;
            if (is_python(files[k].path)) {
                p->python_files[p->n_python_files++] = files[k].rel_path;
                continue;
            }
            p->sql_files[p->n_sql_files++] = files[k].rel_path;
            char *text = NULL;
            size_t len = 0;
            weir__session_log(p->session, "Registering SQL file %s...",
                              files[k].path);
            rc = weir__fs_read(&text, &len, files[k].path, err);
            if (rc)
                return rc;
            if (weir__spec_substitution_on(spec->conf, spec->n_conf)) {
                char *sub = NULL;
                size_t sub_len = 0;
                rc = weir__spec_substitute(&sub, &sub_len, text, len,
                                           spec->conf, spec->n_conf,
                                           files[k].rel_path, &p->diags, err);
                free(text);
                if (rc == WEIR_ESQL) {
                    sql_errors = true;
                    continue;
                }
                if (rc)
                    return rc;
                text = sub;
                len = sub_len;
            }
            rc = define_sql(p, text, len, files[k].rel_path);
            free(text);
            if (rc == WEIR_ENOMEM)
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            if (rc)
                sql_errors = true;
        }
    }
    if (sql_errors)
        return weir__first_diag(p, err, WEIR_ESQL);
    return 0;
}

size_t weir_pipeline_python_files(const weir_pipeline *p,
                                  const char *const **out)
{
    if (out)
        *out = p && p->n_python_files ? p->python_files : NULL;
    return p ? p->n_python_files : 0;
}

size_t weir_pipeline_sql_files(const weir_pipeline *p, const char *const **out)
{
    if (out)
        *out = p && p->n_sql_files ? p->sql_files : NULL;
    return p ? p->n_sql_files : 0;
}

int weir_pipeline_load(weir_pipeline **out, weir_session *session,
                       const char *spec_path, weir_error *err)
{
    return weir_pipeline_load_with(out, session, spec_path, NULL, err);
}

/* The environment and the overrides of opts applied to spec. */
static int apply_load_options(weir_spec *spec, const weir_load_options *opts,
                              weir__diags *diags, weir_error *err)
{
    int rc = 0;
    if (opts && opts->environment)
        rc = weir__spec_apply_environment(spec, opts->environment, diags, err);
    for (size_t i = 0; !rc && opts && i < opts->n_conf; i++) {
        const weir_kv *kv = &opts->conf[i];
        if (!kv->key || !kv->value)
            return WEIR_ERR(err, WEIR_EINVAL, NULL,
                            "a configuration override needs a key and a value");
        rc = weir__spec_set_conf(spec, kv->key, kv->value, diags, err);
    }
    return rc;
}

int weir_pipeline_load_with(weir_pipeline **out, weir_session *session,
                            const char *spec_path,
                            const weir_load_options *opts, weir_error *err)
{
    if (opts && (opts->version < 1 || opts->version > WEIR_LOAD_OPTIONS_VERSION))
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "unknown weir_load_options version %u", opts->version);
    if (opts && opts->n_conf && !opts->conf)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "n_conf is set but conf is NULL");
    if (!out || !session)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "out and session are required");
    *out = NULL;
    char *path = NULL;
    int rc = 0;
    if (spec_path) {
        path = weir__path_absolute(spec_path, NULL);
        if (!path)
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        rc = weir__spec_check_path(path, err);
        if (rc) {
            free(path);
            return rc;
        }
    } else {
        char *cwd = weir__path_cwd();
        rc = cwd ? weir__spec_find(&path, cwd, err)
                 : WEIR_ERR(err, WEIR_EIO, NULL, "cannot read the current folder");
        free(cwd);
        if (rc)
            return rc;
    }
    weir__diags spec_diags = { 0 };
    weir_spec *spec = NULL;
    rc = weir__spec_load(&spec, path, &spec_diags, err);
    if (!rc) {
        rc = apply_load_options(spec, opts, &spec_diags, err);
        if (rc) {
            weir__spec_free(spec);
            spec = NULL;
        }
    }
    if (rc) {
        /* A pipeline with the diagnostics, so the caller can list them. */
        weir_pipeline_options o = WEIR_PIPELINE_OPTIONS_INIT;
        weir_pipeline *p = NULL;
        if (weir_pipeline_create(&p, session, &o, NULL) == 0) {
            p->diags = spec_diags;
            p->spec_path = path;
            *out = p;
        } else {
            weir__diags_free(&spec_diags);
            free(path);
        }
        return rc;
    }
    weir__diags_free(&spec_diags);
    weir_kv *conf = calloc(spec->n_conf + 1, sizeof(*conf));
    if (!conf) {
        weir__spec_free(spec);
        free(path);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < spec->n_conf; i++) {
        conf[i].key = spec->conf[i].key;
        conf[i].value = spec->conf[i].value;
    }
    weir_pipeline_options o = WEIR_PIPELINE_OPTIONS_INIT;
    o.name = spec->name;
    o.storage = spec->storage;
    o.catalog = spec->catalog;
    o.database = spec->database;
    o.configuration = conf;
    o.n_configuration = spec->n_conf;
    o.root_dir = spec->dir;
    char *spec_storage = NULL; /* the spec's relative storage, kept in
                                  the spec's folder under another root */
    bool oom = false;
    if (opts && opts->version >= 2) {
        if (opts->storage) {
            o.storage = opts->storage;
        } else if (opts->root_dir && o.storage &&
                   !weir__str_istarts(o.storage, "file:") &&
                   !weir__path_is_abs(o.storage)) {
            spec_storage = weir__path_join(spec->dir, o.storage);
            o.storage = spec_storage;
            oom = !spec_storage;
        }
        if (opts->root_dir)
            o.root_dir = opts->root_dir;
    }
    weir_pipeline *p = NULL;
    rc = oom ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
             : weir_pipeline_create(&p, session, &o, err);
    free(spec_storage);
    free(conf);
    if (rc) {
        weir__spec_free(spec);
        free(path);
        return rc;
    }
    p->spec = spec;
    p->spec_path = path;
    p->storage_only = opts && opts->version >= 3 && opts->storage_only;
    p->keep_storage_open = opts && opts->version >= 4 && opts->keep_storage_open;
    rc = p->storage_only ? 0 : register_files(p, spec, err);
    *out = p;
    return rc;
}

/* ---- expectations declared in the spec ----------------------------------------- */

static void spec_diag(weir_pipeline *p, const weir_spec_pos *pos,
                      const char *msg)
{
    weir_error e;
    WEIR_ERR(&e, WEIR_EGRAPH, "PIPELINE_SPEC_INVALID_EXPECTATION", "%s", msg);
    if (p->spec && pos->line) {
        weir__error_at(&e, p->spec->path, pos->line, pos->column);
        weir__error_set_line_of(&e, p->spec->text, p->spec->text_len,
                                pos->line);
    }
    weir__diags_add(&p->diags, &e);
}

/* The spec file as a source graph errors can point into, at pos. */
static void spec_origin(weir_pipeline *p, const weir_sql_source *src,
                        const weir_spec_pos *pos, weir_origin *out)
{
    memset(out, 0, sizeof(*out));
    if (!src || !pos->line)
        return;
    size_t i = 0;
    for (unsigned line = 1; i < p->spec->text_len && line < pos->line; i++)
        line += p->spec->text[i] == '\n';
    size_t col = pos->column ? pos->column - 1 : 0;
    while (col-- > 0 && i < p->spec->text_len && p->spec->text[i] != '\n')
        i++;
    out->src = src;
    out->pos.offset = (unsigned)i;
    out->pos.line = pos->line;
    out->pos.column = pos->column;
}

/* Attach the spec's `expectations:` to the datasets they name (once). Their
 * names are checked with the others' by the graph. */
static int apply_spec_expectations(weir_pipeline *p)
{
    if (!p->spec || p->spec_expectations_applied)
        return 0;
    p->spec_expectations_applied = true;
    int rc = 0;
    weir_sql_source *spec_src = weir__arena_alloc(&p->arena, sizeof(*spec_src));
    if (!spec_src)
        return WEIR_ENOMEM;
    spec_src->path = p->spec->path;
    spec_src->text = p->spec->text;
    spec_src->len = p->spec->text_len;
    for (size_t i = 0; i < p->spec->n_expectations; i++) {
        const weir_spec_expectation *x = &p->spec->expectations[i];
        weir_sql_name name;
        weir_error e;
        if (weir__parse_name(p, x->dataset, &name, &e)) {
            char msg[600];
            snprintf(msg, sizeof(msg), "invalid dataset name '%s'", x->dataset);
            spec_diag(p, &x->dataset_pos, msg);
            rc = WEIR_EGRAPH;
            continue;
        }
        const char *want = weir__graph_qualify(&p->arena, &name, p->catalog,
                                               p->database);
        weir_def_dataset *d = NULL;
        for (size_t k = 0; k < p->defs.n_datasets && !d; k++) {
            weir_def_dataset *c = &p->defs.datasets[k];
            const char *have =
                c->name.n == 1 && c->kind == WEIR_TEMPORARY_VIEW
                    ? c->name.parts[0]
                    : weir__graph_qualify(&p->arena, &c->name, c->ctx_catalog,
                                          c->ctx_database);
            if (have && want && weir__str_ieq(have, want))
                d = c;
        }
        if (!d) {
            char msg[700];
            snprintf(msg, sizeof(msg),
                     "expectations are declared for dataset '%s', which the "
                     "pipeline does not define",
                     x->dataset);
            spec_diag(p, &x->dataset_pos, msg);
            rc = WEIR_EGRAPH;
            continue;
        }
        weir_sql_source *src = weir__arena_alloc(&p->arena, sizeof(*src));
        weir_sql_expr *cond = NULL;
        if (src) {
            src->path = p->spec->path;
            src->text = x->condition;
            src->len = strlen(x->condition);
        }
        if (!src || weir__sql_parse_expr(&cond, &p->arena, src, 0, src->len, &e)) {
            char msg[2000];
            snprintf(msg, sizeof(msg),
                     "the condition of expectation '%s' does not parse: %s",
                     x->name, src ? e.message : "out of memory");
            spec_diag(p, &x->condition_pos, msg);
            rc = WEIR_EGRAPH;
            continue;
        }
        weir_def_expectation *all = weir__arena_array(
            &p->arena, d->n_expectations + 1, sizeof(*all));
        if (!all)
            return WEIR_ENOMEM;
        if (d->n_expectations)
            memcpy(all, d->expectations, d->n_expectations * sizeof(*all));
        weir_def_expectation *n = &all[d->n_expectations];
        n->name = x->name;
        n->condition = cond;
        n->condition_text = x->condition;
        n->action = (weir_sql_violation)x->on_violation;
        n->from = WEIR_EXPECT_FROM_SPEC;
        spec_origin(p, spec_src, &x->pos, &n->origin);
        d->expectations = all;
        d->n_expectations++;
    }
    return rc;
}

/* ---- runs ------------------------------------------------------------------ */

/* The storage of a sampled run: the folder's path with "-sample" added
 * (a trailing '/' dropped first). malloc'd; NULL when out of memory. */
static char *sample_storage(const char *storage)
{
    size_t n = strlen(storage);
    while (n > 1 && storage[n - 1] == '/')
        n--;
    char *out = malloc(n + sizeof("-sample"));
    if (out) {
        memcpy(out, storage, n);
        memcpy(out + n, "-sample", sizeof("-sample"));
    }
    return out;
}

int weir_pipeline_start_run(weir_pipeline *p, const weir_run_options *opts,
                            weir_run_result *out, weir_error *err)
{
    if (out)
        memset(out, 0, sizeof(*out));
    if (!p)
        return WEIR_ERR(err, WEIR_EINVAL, NULL, "pipeline is NULL");
    if (p->storage_only)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "the pipeline was loaded for its storage only "
                        "(weir_load_options.storage_only): it cannot run");
    weir_run_options none = WEIR_RUN_OPTIONS_INIT;
    if (!opts)
        opts = &none;
    if (opts->version < 1 || opts->version > WEIR_RUN_OPTIONS_VERSION)
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "unsupported weir_run_options version %u", opts->version);
    if ((opts->n_refresh && !opts->refresh) ||
        (opts->n_full_refresh && !opts->full_refresh))
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "a refresh count is set but its list is NULL");
    weir__begin_call(p);
    if (p->open_results)
        return WEIR_ERR(err, WEIR_EBUSY, NULL,
                        "free every query result and release every Arrow "
                        "stream of this pipeline before starting a run");
    /* keep_storage_open: an update of the pipeline's own storage runs on
     * the one queries hold; any other run closes it, as it may lock the
     * same folder. */
    bool keep = p->keep_storage_open && !opts->dry && !opts->storage &&
                !(opts->version >= 2 && opts->sample_rows) && p->storage;
    if (!keep)
        weir__query_close(p);
    weir__graph_free(p->graph);
    p->graph = NULL;
    p->described = false;
    p->resolved = false;
    int rc = apply_spec_expectations(p);
    if (rc == WEIR_ENOMEM)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int rc2 = weir__graph_build(&p->graph, &p->defs, &p->diags, err);
    if (rc == WEIR_EGRAPH || rc2 == WEIR_EGRAPH)
        return weir__first_diag(p, err, WEIR_EGRAPH);
    rc = rc2;
    if (rc)
        return rc;
    char *storage = NULL;
    if (opts->storage) {
        rc = storage_path(&storage, opts->storage, p->root_dir, err);
        if (rc)
            return rc;
    }
    int64_t sample = opts->version >= 2 ? opts->sample_rows : 0;
    if (sample < 0) {
        free(storage);
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "sample_rows must be 0 (no sample) or positive, "
                        "got %lld",
                        (long long)sample);
    }
    char *real = NULL; /* a sample run's real storage, when given */
    if (sample > 0) {
        /* Never the real storage: the sample has a folder of its own. */
        const char *base = storage ? storage : p->storage;
        char *moved = base ? sample_storage(base) : NULL;
        real = storage;
        if (base && !moved) {
            free(real);
            return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        }
        storage = moved;
    }
    weir_engine_opts eo;
    memset(&eo, 0, sizeof(eo));
    eo.pipeline_name = p->name;
    eo.storage = storage ? storage : p->storage;
    eo.root_dir = p->root_dir;
    eo.db.threads = p->session->threads;
    eo.db.memory_limit = p->session->memory_limit;
    eo.on_log = p->session->on_log;
    eo.log_payload = p->session->log_payload;
    eo.sample_rows = sample;
    /* A sample run reads the real storage's external tables (read-only). */
    eo.input_storage = sample > 0 ? (opts->storage ? real : p->storage) : NULL;
    /* Sinks write their real destinations only in a normal run: a test
     * gives a folder, a sample run writes below its storage. */
    bool given = opts->version >= 3 && opts->sink_root;
    bool sampled = sample > 0 && eo.storage;
    char *sink_root =
        given     ? weir__path_absolute(opts->sink_root, p->root_dir)
        : sampled ? weir__path_join(eo.storage, WEIR_SAMPLE_OUTPUTS)
                  : NULL;
    if ((given || sampled) && !sink_root) {
        free(real);
        free(storage);
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    }
    eo.sink_root = sink_root;
    eo.local_kafka_sources = opts->version >= 4 && opts->local_kafka;
    eo.local_kafka_sinks = eo.local_kafka_sources || sample > 0;
    rc = keep ? weir__query_storage_for_run(p, &eo.held, err) : 0;
    weir_run_result local;
    if (!out)
        out = &local;
    if (!rc)
        rc = weir__engine_run(p->graph, &eo, opts, out, &p->diags, err);
    if (keep)
        weir__query_after_run(p);
    free(sink_root);
    free(storage);
    free(real);
    if (rc == WEIR_EGRAPH)
        return weir__first_diag(p, err, WEIR_EGRAPH);
    /* an update cancelled while it resolved the graph did not resolve it */
    p->resolved = rc == 0 && out->state != WEIR_RUN_CANCELED;
    return rc;
}

int weir_pipeline_record_update(weir_pipeline *p, const char *storage,
                                const weir_event *events, size_t n,
                                char *update_id, weir_error *err)
{
    if (!p || (n && !events))
        return WEIR_ERR(err, WEIR_EINVAL, NULL,
                        "pipeline and events are required");
    if (!storage && !p->storage)
        return WEIR_ERR(err, WEIR_EINVAL, "PIPELINE_STORAGE_ROOT_INVALID",
                        "Storage must be specified to record an update.");
    if (p->open_results)
        return WEIR_ERR(err, WEIR_EBUSY, NULL,
                        "free every query result and release every Arrow "
                        "stream of this pipeline before recording an update");
    char *own = NULL;
    if (storage) {
        int rc = storage_path(&own, storage, p->root_dir, err);
        if (rc)
            return rc;
    }
    weir__query_close(p);
    weir_db_config db;
    memset(&db, 0, sizeof(db));
    db.threads = p->session->threads;
    db.memory_limit = p->session->memory_limit;
    char id[40];
    int rc = weir__engine_record(own ? own : p->storage, &db, events, n, id,
                                 err);
    if (!rc && update_id)
        memcpy(update_id, id, sizeof(id));
    free(own);
    return rc;
}
