/*
 * sqltrace: an LD_PRELOAD shim that times every call weir makes into
 * DuckDB's C API (open, connect, query, prepare) and logs it, so a run's
 * wall time can be split into "inside DuckDB" and "weir's own" time
 * without touching src/. Used by bench/profile.sh; not part of weir.
 *
 *   cc -O2 -shared -fPIC -o sqltrace.so sqltrace.c -ldl -lpthread
 *   SQLTRACE=/tmp/trace.tsv LD_PRELOAD=./sqltrace.so weir run
 *
 * Each line of the log: start_us (since the shim loaded), duration_us,
 * thread id, function, the SQL (newlines as spaces; the first
 * $SQLTRACE_LEN bytes, default 400).
 * A final "#total" line sums the durations.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef void *handle;
typedef int state;

static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double t0;
static double total_us;
static size_t max_len = 400;
static long calls;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

__attribute__((constructor)) static void init(void)
{
    t0 = now_us();
    const char *path = getenv("SQLTRACE");
    if (path && *path)
        out = fopen(path, "w");
    const char *len = getenv("SQLTRACE_LEN");
    if (len && atol(len) > 0)
        max_len = (size_t)atol(len);
}

__attribute__((destructor)) static void fini(void)
{
    if (!out)
        return;
    fprintf(out, "#total\t%.0f\t%ld calls\t%.0f us since load\n", total_us,
            calls, now_us() - t0);
    fclose(out);
    out = NULL;
}

static void record(const char *fn, double start, double end, const char *sql)
{
    if (!out)
        return;
    char small[401];
    char *buf = max_len < sizeof(small) ? small : malloc(max_len + 1);
    if (!buf)
        return;
    size_t n = 0;
    for (const char *p = sql ? sql : ""; *p && n < max_len; p++)
        buf[n++] = (*p == '\n' || *p == '\t' || *p == '\r') ? ' ' : *p;
    buf[n] = 0;
    pthread_mutex_lock(&lock);
    total_us += end - start;
    calls++;
    fprintf(out, "%.0f\t%.0f\t%ld\t%s\t%s\n", start - t0, end - start,
            (long)syscall(SYS_gettid), fn, buf);
    pthread_mutex_unlock(&lock);
    if (buf != small)
        free(buf);
}

typedef state (*query_fn)(handle, const char *, void *);
typedef state (*open_fn)(const char *, void *, void *, char **);
typedef state (*connect_fn)(handle, void *);
typedef void (*close_fn)(void *);

#define REAL(name, type)                                                      \
    static type real_##name;                                                  \
    if (!real_##name)                                                         \
    real_##name = (type)dlsym(RTLD_NEXT, #name)

state duckdb_query(handle conn, const char *sql, void *result)
{
    REAL(duckdb_query, query_fn);
    double a = now_us();
    state s = real_duckdb_query(conn, sql, result);
    record("query", a, now_us(), sql);
    return s;
}

state duckdb_prepare(handle conn, const char *sql, void *stmt)
{
    REAL(duckdb_prepare, query_fn);
    double a = now_us();
    state s = real_duckdb_prepare(conn, sql, stmt);
    record("prepare", a, now_us(), sql);
    return s;
}

typedef state (*exec_fn)(void *, void *);

/* Prepared statements run here (weir__conn_query's fast path); the SQL
 * text was recorded by the prepare. */
state duckdb_execute_prepared(void *stmt, void *result)
{
    REAL(duckdb_execute_prepared, exec_fn);
    double a = now_us();
    state s = real_duckdb_execute_prepared(stmt, result);
    record("execute", a, now_us(), "(the prepared statement above)");
    return s;
}

state duckdb_open_ext(const char *path, void *db, void *config, char **err)
{
    REAL(duckdb_open_ext, open_fn);
    double a = now_us();
    state s = real_duckdb_open_ext(path, db, config, err);
    record("open", a, now_us(), path ? path : ":memory:");
    return s;
}

state duckdb_connect(handle db, void *conn)
{
    REAL(duckdb_connect, connect_fn);
    double a = now_us();
    state s = real_duckdb_connect(db, conn);
    record("connect", a, now_us(), "");
    return s;
}

void duckdb_disconnect(void *conn)
{
    REAL(duckdb_disconnect, close_fn);
    double a = now_us();
    real_duckdb_disconnect(conn);
    record("disconnect", a, now_us(), "");
}

void duckdb_close(void *db)
{
    REAL(duckdb_close, close_fn);
    double a = now_us();
    real_duckdb_close(db);
    record("close", a, now_us(), "");
}
