/*
 * weir's Spark-function macros (sql/session.c) created on first use, for
 * instances that only resolve a graph (a dry run): creating all of them
 * binds every body and is a quarter of a dry run's work, while a graph
 * usually calls a few. Before a statement runs, the weir_* names in its
 * text, and the macros those use in turn, are created in memory.main
 * through the instance's own autocommit connection, so every later
 * transaction sees them. A statement that may open a transaction (BEGIN
 * in its text, or weir__conn_begin) gets all of them first: a transaction
 * does not see catalog entries committed after it began.
 */
#include "store/macros.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "weir.h"

typedef struct macro {
    char name[64];     /* lower case */
    const char *body;  /* the statement, in the setup text */
    size_t len;
    bool made;
} macro;

struct weir_macros {
    pthread_mutex_t mu;
    duckdb_connection conn;
    macro *m;
    size_t n;
    /* Set (release) once every macro is made; read without mu (acquire):
     * true means their creation committed before it was set. */
    atomic_bool all_made;
};

static const char TEMP_MACRO[] = "CREATE OR REPLACE TEMP MACRO ";

int weir__macros_new(weir_macros **out, duckdb_database db, const char *setup)
{
    *out = NULL;
    weir_macros *ms = calloc(1, sizeof(*ms));
    if (!ms)
        return WEIR_ENOMEM;
    size_t cap = 0;
    for (const char *p = setup; (p = strstr(p, TEMP_MACRO)); p++)
        cap++;
    ms->m = calloc(cap + 1, sizeof(*ms->m));
    atomic_init(&ms->all_made, false);
    if (!ms->m || pthread_mutex_init(&ms->mu, NULL)) {
        free(ms->m);
        free(ms);
        return WEIR_ENOMEM;
    }
    if (duckdb_connect(db, &ms->conn) == DuckDBError) {
        pthread_mutex_destroy(&ms->mu);
        free(ms->m);
        free(ms);
        return WEIR_EENGINE;
    }
    for (const char *p = setup; *p;) {
        const char *end = strstr(p, ";\n");
        size_t len = end ? (size_t)(end - p) + 2 : strlen(p);
        if (strncmp(p, TEMP_MACRO, sizeof(TEMP_MACRO) - 1) == 0 && ms->n < cap) {
            macro *x = &ms->m[ms->n++];
            const char *name = p + sizeof(TEMP_MACRO) - 1;
            size_t k = 0;
            while (k + 1 < sizeof(x->name) &&
                   (isalnum((unsigned char)name[k]) || name[k] == '_')) {
                x->name[k] = (char)tolower((unsigned char)name[k]);
                k++;
            }
            x->body = p;
            x->len = len;
        }
        p += len;
    }
    *out = ms;
    return 0;
}

void weir__macros_free(weir_macros *ms)
{
    if (!ms)
        return;
    duckdb_disconnect(&ms->conn);
    pthread_mutex_destroy(&ms->mu);
    free(ms->m);
    free(ms);
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Mark the macros text (len bytes) names in need. */
static void scan(const weir_macros *ms, const char *text, size_t len,
                 bool *need)
{
    for (size_t i = 0; i + 5 <= len; i++) {
        if ((text[i] != 'w' && text[i] != 'W') || (i && ident_char(text[i - 1])) ||
            strncasecmp(text + i, "weir_", 5) != 0)
            continue;
        size_t k = i;
        while (k < len && ident_char(text[k]))
            k++;
        for (size_t j = 0; j < ms->n; j++)
            if (strlen(ms->m[j].name) == k - i &&
                strncasecmp(ms->m[j].name, text + i, k - i) == 0)
                need[j] = true;
        i = k;
    }
}

static bool mentions_begin(const char *sql)
{
    for (const char *p = sql; *p; p++)
        if ((*p == 'b' || *p == 'B') && strncasecmp(p, "begin", 5) == 0)
            return true;
    return false;
}

/* Create the needed macros not made yet, in the setup's order (a macro's
 * uses come before it). The caller holds ms->mu. */
static void create(weir_macros *ms, const bool *need)
{
    weir_buf sql = WEIR_BUF_INIT;
    for (size_t j = 0; j < ms->n; j++) {
        const macro *x = &ms->m[j];
        if (!need[j] || x->made)
            continue;
        const char *rest = x->body + sizeof(TEMP_MACRO) - 1;
        weir__buf_puts(&sql, "CREATE OR REPLACE MACRO memory.main.");
        weir__buf_put(&sql, rest, x->len - (size_t)(rest - x->body));
    }
    if (!sql.len || sql.failed) {
        weir__buf_free(&sql);
        return;
    }
    duckdb_result r;
    bool ok = duckdb_query(ms->conn, weir__buf_cstr(&sql), &r) != DuckDBError;
    duckdb_destroy_result(&r);
    weir__buf_free(&sql);
    bool all = true;
    for (size_t j = 0; j < ms->n; j++) {
        if (ok && need[j])
            ms->m[j].made = true;
        all &= ms->m[j].made;
    }
    if (all)
        atomic_store_explicit(&ms->all_made, true, memory_order_release);
}

void weir__macros_ensure(weir_macros *ms, const char *sql)
{
    if (!ms || !sql ||
        atomic_load_explicit(&ms->all_made, memory_order_acquire))
        return;
    bool begin = mentions_begin(sql);
    bool *need = calloc(2 * ms->n + 1, sizeof(bool));
    if (!need)
        return;
    bool *scanned = need + ms->n; /* bodies whose uses are in need */
    pthread_mutex_lock(&ms->mu);
    if (begin) {
        for (size_t j = 0; j < ms->n; j++)
            need[j] = true;
    } else {
        scan(ms, sql, strlen(sql), need);
        for (bool more = true; more;) {
            more = false;
            for (size_t j = 0; j < ms->n; j++) {
                if (need[j] && !scanned[j] && !ms->m[j].made) {
                    scan(ms, ms->m[j].body + sizeof(TEMP_MACRO) - 1,
                         ms->m[j].len - (sizeof(TEMP_MACRO) - 1), need);
                    scanned[j] = more = true;
                }
            }
        }
    }
    create(ms, need);
    pthread_mutex_unlock(&ms->mu);
    free(need);
}
