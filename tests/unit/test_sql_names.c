/*
 * weir's generated column names against Spark's: every query of
 * tests/spark/names-expected.jsonl (each built-in function's documented
 * examples and the extra queries of tests/spark/names.py, with the names
 * Spark 4.1 gave their columns) is parsed by weir and the name weir gives
 * each column (weir__sql_query_names: src/sql/pretty.c) must be Spark's.
 * Queries weir cannot parse are counted, not failed (other tests cover
 * the parser). `-v` prints every difference.
 */
#include "harness.h"

#include <stdbool.h>
#include <string.h>

#include "sql/sql.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/json.h"

static const char *expected_path = "../spark/names-expected.jsonl";

/* Queries whose names weir knows it gives otherwise, and why. */
static const struct {
    const char *q, *why;
} KNOWN[] = {
    { "array_append(CAST(null", "Spark drops a cast of NULL inside a call" },
    { "array_prepend(CAST(null", "Spark drops a cast of NULL inside a call" },
    { "SELECT current_time", "weir has no TIME type" },
    { "S ilike r", "Spark's lateral column alias shows in the name" },
    { "S like r", "Spark's lateral column alias shows in the name" },
    { "pad(unhex(", "the pad default depends on the type (binary: X'00')" },
    { NULL, NULL }
};

static bool known(const char *q)
{
    for (int i = 0; KNOWN[i].q; i++)
        if (strstr(q, KNOWN[i].q))
            return true;
    return false;
}
static bool verbose;

/* weir's names of query q, one a line, into out; false when weir cannot
 * parse it. */
static bool weir_names(const char *q, weir_buf *out)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s = { "n.sql", q, strlen(q), NULL, 0, NULL, 0, false };
    weir_error err;
    memset(&err, 0, sizeof(err));
    weir_sql_query *query;
    bool ok = weir__sql_parse_query(&query, &a, &s, 0, s.len, &err) == 0;
    if (ok)
        weir__sql_query_names(query, out);
    weir__error_clear(&err);
    weir__arena_free(&a);
    return ok;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    weir_buf b = WEIR_BUF_INIT;
    char chunk[8192];
    size_t k;
    while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
        weir__buf_put(&b, chunk, k);
    fclose(f);
    char *s = weir__buf_detach(&b);
    return s;
}

TEST(names_match_spark)
{
    weir_error err;
    memset(&err, 0, sizeof(err));
    char *text = read_all(expected_path);
    CHECK(text != NULL);
    if (!text)
        return;
    int total = 0, unparsed = 0, differ = 0, columns = 0;
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        weir_arena a = WEIR_ARENA_INIT;
        weir_json *j = NULL;
        if (weir__json_parse(&j, &a, line, strlen(line), &err) != 0) {
            CHECK(!"a line of names-expected.jsonl is not JSON");
            weir__error_clear(&err);
            weir__arena_free(&a);
            continue;
        }
        const char *q = weir__json_get_str(j, "q");
        const weir_json *cols = weir__json_get(j, "cols");
        total++;
        weir_buf got = WEIR_BUF_INIT;
        if (q && known(q)) {
            weir__arena_free(&a);
            continue;
        }
        if (!q || !cols || !weir_names(q, &got)) {
            unparsed++;
            weir__buf_free(&got);
            weir__arena_free(&a);
            continue;
        }
        /* Compare column by column; `*` and generators are not named by
         * the rule. */
        const char *g = weir__buf_cstr(&got);
        for (size_t i = 0; i < cols->len; i++) {
            size_t n = strcspn(g, "\n");
            const char *want = cols->items[i]->text;
            bool skip = (n == 1 && (g[0] == '*' || g[0] == '?'));
            if (skip)
                break; /* the columns after a star are not aligned */
            columns++;
            if (strlen(want) != n || strncmp(want, g, n) != 0) {
                differ++;
                if (verbose)
                    fprintf(stderr, "  %s\n    Spark: %s\n    weir:  %.*s\n", q, want,
                            (int)n, g);
            }
            g += n;
            if (*g == '\n')
                g++;
        }
        weir__buf_free(&got);
        weir__arena_free(&a);
    }
    free(text);
    printf("names: %d queries, %d unparsed, %d of %d columns named otherwise than Spark\n",
           total, unparsed, differ, columns);
    CHECK(total > 1000);
    CHECK_INT(differ, 0);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0)
            verbose = true;
        else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc)
            expected_path = argv[++i];
    }
    RUN(names_match_spark);
    printf("%d passed, %d failed\n", T_.passed, T_.failed);
    return T_.failed ? 1 : 0;
}
