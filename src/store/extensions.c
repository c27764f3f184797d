/*
 * Loading DuckDB's extensions from weir's folder, once per instance (see
 * extensions.h). The folder is laid out as DuckDB's extension_directory
 * (<dir>/<version>/<platform>/<name>.duckdb_extension), so a LOAD by name
 * finds the file there and nowhere else.
 */
#define _GNU_SOURCE /* dladdr */
#include "store/extensions.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/buf.h"

/* DuckDB's names, and the file each is in. */
static const struct {
    const char *name, *file;
} KNOWN[] = {
    { "httpfs", "httpfs" },     { "aws", "aws" },
    { "azure", "azure" },       { "delta", "delta" },
    { "postgres", "postgres_scanner" }, { "mysql", "mysql_scanner" },
    { "sqlite", "sqlite_scanner" },     { "tpch", "tpch" },
};
#define N_KNOWN (sizeof(KNOWN) / sizeof(KNOWN[0]))

struct weir_extensions {
    pthread_mutex_t mu;
    bool loaded[N_KNOWN];
};

int weir__extensions_new(weir_extensions **out)
{
    *out = calloc(1, sizeof(**out));
    if (!*out)
        return WEIR_ENOMEM;
    pthread_mutex_init(&(*out)->mu, NULL);
    return 0;
}

void weir__extensions_free(weir_extensions *e)
{
    if (!e)
        return;
    pthread_mutex_destroy(&e->mu);
    free(e);
}

bool weir__extensions_dir(char *out, size_t size)
{
    const char *env = getenv("WEIR_DUCKDB_EXTENSIONS");
    if (env && *env)
        return (size_t)snprintf(out, size, "%s", env) < size;
    /* The file libduckdb was loaded from, by an address in it (a union:
     * ISO C has no cast from a function pointer to void *). */
    union {
        duckdb_state (*fn)(const char *, duckdb_database *, duckdb_config,
                           char **);
        void *addr;
    } in_lib = { .fn = duckdb_open_ext };
    Dl_info info;
    if (!dladdr(in_lib.addr, &info) || !info.dli_fname)
        return false;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash)
        return false;
    int n = snprintf(out, size, "%.*s/duckdb_extensions",
                     (int)(slash - info.dli_fname), info.dli_fname);
    return n > 0 && (size_t)n < size;
}

/* The file of extension i as the instance would load it. */
static void file_path(char *out, size_t size, duckdb_connection c, size_t i)
{
    char dir[3072] = "";
    duckdb_result r;
    if (duckdb_query(c, "SELECT current_setting('extension_directory'), "
                        "(SELECT platform FROM pragma_platform())",
                     &r) != DuckDBError) {
        char *d = duckdb_value_varchar(&r, 0, 0);
        char *p = duckdb_value_varchar(&r, 1, 0);
        snprintf(dir, sizeof(dir), "%s/%s/%s", d ? d : "",
                 duckdb_library_version(), p ? p : "");
        duckdb_free(d);
        duckdb_free(p);
    }
    duckdb_destroy_result(&r);
    snprintf(out, size, "%s/%s.duckdb_extension", dir, KNOWN[i].file);
}

int weir__extensions_load(weir_extensions *e, duckdb_database db,
                          const char *name, const char *what,
                          weir_error *err)
{
    size_t i = 0;
    while (i < N_KNOWN && strcmp(KNOWN[i].name, name) != 0)
        i++;
    if (i == N_KNOWN)
        return WEIR_ERR(err, WEIR_EINVAL, "DUCKDB_EXTENSION_UNKNOWN",
                        "weir knows no DuckDB extension named '%s'", name);
    pthread_mutex_lock(&e->mu);
    int rc = 0;
    duckdb_connection c = NULL;
    if (e->loaded[i])
        goto out;
    if (duckdb_connect(db, &c) == DuckDBError) {
        rc = WEIR_ERR(err, WEIR_EENGINE, NULL, "cannot connect to DuckDB");
        goto out;
    }
    char file[4096];
    file_path(file, sizeof(file), c, i);
    struct stat st;
    if (stat(file, &st) != 0) {
        weir_buf m = WEIR_BUF_INIT;
        weir__buf_printf(&m, "DuckDB's %s extension", name);
        if (what)
            weir__buf_printf(&m, ", which %s need,", what);
        weir__buf_printf(&m, " is not installed (no %s): run "
                             "scripts/bootstrap.sh, which installs the pinned "
                             "extensions beside libduckdb.so, or set "
                             "WEIR_DUCKDB_EXTENSIONS to a folder that holds "
                             "them",
                         file);
        rc = WEIR_ERR(err, WEIR_EINVAL, "DUCKDB_EXTENSION_MISSING", "%s",
                      weir__buf_cstr(&m));
        weir__buf_free(&m);
        goto out;
    }
    char sql[64];
    snprintf(sql, sizeof(sql), "LOAD %s", KNOWN[i].file);
    duckdb_result r;
    if (duckdb_query(c, sql, &r) == DuckDBError)
        rc = WEIR_ERR(err, WEIR_EENGINE, "DUCKDB_EXTENSION_LOAD_FAILED",
                      "DuckDB could not load its %s extension from %s: %s",
                      name, file, duckdb_result_error(&r));
    else
        e->loaded[i] = true;
    duckdb_destroy_result(&r);
out:
    if (c)
        duckdb_disconnect(&c);
    pthread_mutex_unlock(&e->mu);
    return rc;
}
