/*
 * weir's Spark-function macros (sql/session.c) created on first use, for
 * the instances of updates and dry runs: creating all of them binds every
 * body, a quarter of a dry run's work and a tenth of a small update's,
 * while a graph usually calls a few. Before a statement runs, the weir_*
 * names in its text, and the macros those use in turn, are created as
 * TEMP macros of the statement's own connection, once per connection.
 * Being the connection's own, they are visible to the transaction it may
 * have open (a macro another connection commits to memory.main is not:
 * a transaction does not see catalog entries committed after it began).
 * Those made inside a transaction that rolls back are made again.
 */
#include "store/macros.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "weir.h"

typedef struct macro {
    char name[64];     /* lower case */
    const char *body;  /* the statement, in the setup text */
    size_t len;
} macro;

struct weir_macros {
    macro *m; /* read-only once made: shared by every connection */
    size_t n;
};

static const char TEMP_MACRO[] = "CREATE OR REPLACE TEMP MACRO ";

int weir__macros_new(weir_macros **out, const char *setup)
{
    *out = NULL;
    weir_macros *ms = calloc(1, sizeof(*ms));
    if (!ms)
        return WEIR_ENOMEM;
    size_t cap = 0;
    for (const char *p = setup; (p = strstr(p, TEMP_MACRO)); p++)
        cap++;
    ms->m = calloc(cap + 1, sizeof(*ms->m));
    if (!ms->m) {
        free(ms);
        return WEIR_ENOMEM;
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
    free(ms->m);
    free(ms);
}

bool *weir__macros_made_new(const weir_macros *ms)
{
    return ms ? calloc(ms->n + 1, sizeof(bool)) : NULL;
}

void weir__macros_forget(const weir_macros *ms, bool *made)
{
    if (ms && made)
        memset(made, 0, ms->n * sizeof(bool));
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

/* Create the needed macros not made on the connection yet, in the
 * setup's order (a macro's uses come before it). */
static void create(const weir_macros *ms, duckdb_connection c, bool *made,
                   const bool *need)
{
    weir_buf sql = WEIR_BUF_INIT;
    for (size_t j = 0; j < ms->n; j++)
        if (need[j] && !made[j])
            weir__buf_put(&sql, ms->m[j].body, ms->m[j].len);
    if (!sql.len || sql.failed) {
        weir__buf_free(&sql);
        return;
    }
    duckdb_result r;
    bool ok = duckdb_query(c, weir__buf_cstr(&sql), &r) != DuckDBError;
    duckdb_destroy_result(&r);
    weir__buf_free(&sql);
    for (size_t j = 0; ok && j < ms->n; j++)
        made[j] |= need[j];
}

void weir__macros_ensure(const weir_macros *ms, duckdb_connection c,
                         bool *made, const char *sql)
{
    if (!ms || !made || !sql)
        return;
    bool *need = calloc(2 * ms->n + 1, sizeof(bool));
    if (!need)
        return;
    bool *scanned = need + ms->n; /* bodies whose uses are in need */
    scan(ms, sql, strlen(sql), need);
    bool any = false;
    for (bool more = true; more;) {
        more = false;
        for (size_t j = 0; j < ms->n; j++) {
            if (need[j] && !scanned[j] && !made[j]) {
                scan(ms, ms->m[j].body + sizeof(TEMP_MACRO) - 1,
                     ms->m[j].len - (sizeof(TEMP_MACRO) - 1), need);
                scanned[j] = more = any = true;
            }
        }
    }
    if (any)
        create(ms, c, made, need);
    free(need);
}
