/*
 * weir's parser against Spark's: every statement of
 * tests/spark/grammar-expected.tsv (keywords as aliases, columns, tables,
 * CTEs, flows, struct fields, named arguments and property keys, in Spark's
 * default and ANSI-reserved keyword modes; the OPTIONS, TBLPROPERTIES and
 * read_files argument grid), generated from the pinned pyspark by
 * tests/spark/grammar.py, is parsed by weir alone (no analysis) and must be
 * accepted where Spark accepts it and refused with Spark's error class where
 * Spark refuses it. `-f FILE` reads another answer file (the Spark tier
 * passes Spark's live answers); `-v` prints every disagreement.
 */
#include "harness.h"

#include <stdbool.h>
#include <string.h>

#include "sql/sql.h"
#include "util/arena.h"
#include "util/buf.h"

#define MAX_TEMPLATES 32
#define SHOWN 40

static const char *expected_path = "../spark/grammar-expected.tsv";
static bool verbose;

typedef struct grammar {
    char *text; /* the file, split in place */
    const char *tmpl_name[MAX_TEMPLATES];
    const char *tmpl[MAX_TEMPLATES];
    int n_tmpl;
    int total, disagree, shown;
    int by_tmpl[MAX_TEMPLATES + 3]; /* disagreements per template; then
                                       options, tblproperties, read_files */
} grammar;

static bool starts_query(const char *s)
{
    return strncmp(s, "SELECT", 6) == 0 || strncmp(s, "WITH", 4) == 0;
}

/* weir's answer for one statement, parse only: "ok" or the error class. */
static void weir_answer(char *out, size_t cap, const char *text, bool ansi)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source s = { "g.sql", text, strlen(text), NULL, 0, NULL, 0, ansi };
    weir_error err;
    memset(&err, 0, sizeof(err));
    int rc;
    if (starts_query(text)) {
        weir_sql_query *q;
        rc = weir__sql_parse_query(&q, &a, &s, 0, s.len, &err);
    } else {
        weir__diags d = { 0 };
        weir_sql_stmt *st;
        size_t n;
        rc = weir__sql_parse_file(&st, &n, &a, &s, &d);
        if (rc && d.len)
            err = d.items[0];
        weir__diags_free(&d);
    }
    if (!rc)
        snprintf(out, cap, "ok");
    else
        snprintf(out, cap, "%s", err.error_class[0] ? err.error_class : "ERROR");
    if (rc && verbose)
        snprintf(out + strlen(out), cap - strlen(out), " (%s)", err.message);
    weir__arena_free(&a);
}

static void compare(grammar *g, int slot, const char *mode, const char *text,
                    const char *spark)
{
    char weir[2048];
    weir_answer(weir, sizeof(weir), text, strcmp(mode, "ansi") == 0);
    g->total++;
    size_t n = strlen(spark);
    if (strncmp(weir, spark, n) == 0 && (weir[n] == '\0' || weir[n] == ' '))
        return;
    g->disagree++;
    g->by_tmpl[slot]++;
    if (verbose || g->shown++ < SHOWN)
        fprintf(stderr, "  [%s] %s\n      spark: %s  weir: %s\n", mode, text,
                spark, weir);
}

/* tmpl with every {kw} replaced by kw. */
static void expand(weir_buf *b, const char *tmpl, const char *kw)
{
    weir__buf_clear(b);
    for (const char *s = tmpl; *s;) {
        if (strncmp(s, "{kw}", 4) == 0) {
            weir__buf_puts(b, kw);
            s += 4;
        } else {
            weir__buf_putc(b, *s++);
        }
    }
}

static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *s = line; *s && n < max; s++)
        if (*s == '\t') {
            *s = '\0';
            f[n++] = s + 1;
        }
    return n;
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
    const char *c = weir__buf_cstr(&b);
    char *s = malloc(strlen(c) + 1);
    if (s)
        memcpy(s, c, strlen(c) + 1);
    weir__buf_free(&b);
    return s;
}

TEST(test_sql_grammar__spark_parity)
{
    grammar g;
    memset(&g, 0, sizeof(g));
    g.text = read_all(expected_path);
    if (!g.text) {
        fprintf(stderr, "  cannot read %s\n", expected_path);
        CHECK(0);
        return;
    }
    weir_buf stmt = WEIR_BUF_INIT;
    for (char *line = g.text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (line[0] == '#' || !line[0])
            continue;
        char *f[MAX_TEMPLATES + 4];
        int n = split_tabs(line, f, MAX_TEMPLATES + 4);
        if (strcmp(f[0], "template") == 0 && n == 3 && g.n_tmpl < MAX_TEMPLATES) {
            g.tmpl_name[g.n_tmpl] = f[1];
            g.tmpl[g.n_tmpl++] = f[2];
        } else if (strcmp(f[0], "keyword") == 0 && n == 3 + g.n_tmpl) {
            for (int i = 0; i < g.n_tmpl; i++) {
                expand(&stmt, g.tmpl[i], f[2]);
                compare(&g, i, f[1], weir__buf_cstr(&stmt), f[3 + i]);
            }
        } else if (strcmp(f[0], "statement") == 0 && n == 5) {
            int slot = MAX_TEMPLATES + (strcmp(f[2], "options") == 0 ? 0
                                        : strcmp(f[2], "tblproperties") == 0 ? 1
                                                                             : 2);
            compare(&g, slot, f[1], f[4], f[3]);
        } else {
            fprintf(stderr, "  %s: malformed line starting %s\n", expected_path,
                    f[0]);
            CHECK(0);
        }
    }
    if (g.disagree) {
        fprintf(stderr, "  %d of %d statements disagree with Spark:", g.disagree,
                g.total);
        for (int i = 0; i < g.n_tmpl; i++)
            if (g.by_tmpl[i])
                fprintf(stderr, " %s %d", g.tmpl_name[i], g.by_tmpl[i]);
        static const char *const SECTIONS[] = { "options", "tblproperties",
                                                "read_files" };
        for (int i = 0; i < 3; i++)
            if (g.by_tmpl[MAX_TEMPLATES + i])
                fprintf(stderr, " %s %d", SECTIONS[i], g.by_tmpl[MAX_TEMPLATES + i]);
        fprintf(stderr, "\n");
    } else {
        printf("%d statements agree with Spark\n", g.total);
    }
    CHECK(g.total > 0);
    CHECK_INT(g.disagree, 0);
    weir__buf_free(&stmt);
    free(g.text);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-f") == 0 && i + 1 < argc)
            expected_path = argv[++i];
        else if (strcmp(argv[i], "-v") == 0)
            verbose = true;
    }
    RUN(test_sql_grammar__spark_parity);
    printf("%d passed, %d failed\n", T_.passed, T_.failed);
    return T_.failed ? 1 : 0;
}
