/*
 * Fixtures: putting a test's inputs where its pipeline reads them. Tables
 * are created and filled in the test's own storage through Spark SQL
 * (weir_pipeline_query); file fixtures (rows inline, a file beside the
 * test, or the rows of a query run in the test's storage) are written
 * under the test's root folder, which mirrors the project with symbolic
 * links so that the SQL's relative paths find the fixtures instead of the
 * project's data and everything else as it is. Each step of a test adds a file to a folder
 * fixture (what a streaming read picks up next) or rewrites a file one.
 * Kafka topics are topic.c's.
 */
#include "testing/testing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/str.h"

/* A target naming a file rather than a folder of files. */
static bool is_file_target(const char *t)
{
    return weir__str_ends(t, ".json") || weir__str_ends(t, ".jsonl") ||
           weir__str_ends(t, ".ndjson") || weir__str_ends(t, ".csv");
}

/* The test's file targets, normalised ("./a//b/" -> "a/b"), in arena. */
static size_t file_targets(weir_arena *a, const weir_test *t, char ***out)
{
    size_t n = 0;
    for (size_t s = 0; s < t->n_steps; s++)
        n += t->steps[s].n_fixtures;
    *out = weir__arena_array(a, n + 1, sizeof(char *));
    if (!*out)
        return 0;
    n = 0;
    for (size_t s = 0; s < t->n_steps; s++) {
        for (size_t i = 0; i < t->steps[s].n_fixtures; i++) {
            const weir_fixture *f = &t->steps[s].fixtures[i];
            if (f->kind != WEIR_FIXTURE_FILES)
                continue;
            char *abs = weir__path_absolute(f->target, "/");
            if (abs && abs[1])
                (*out)[n++] = weir__arena_strdup(a, abs + 1);
            free(abs);
        }
    }
    return n;
}

/* Mirror src into dst (created), with links, down to the targets. */
static int mirror(const char *src, const char *dst, const char *prefix,
                  char **targets, size_t n, weir_error *err)
{
    int rc = weir__fs_mkdirs(dst, err);
    if (rc)
        return rc;
    DIR *d = opendir(src);
    if (!d)
        return 0; /* nothing to mirror (the fixture creates the folder) */
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *rel = prefix[0] ? weir__path_join(prefix, e->d_name)
                              : strdup(e->d_name);
        char *from = weir__path_join(src, e->d_name);
        char *to = weir__path_join(dst, e->d_name);
        if (!rel || !from || !to) {
            rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
        } else {
            size_t len = strlen(rel);
            bool exact = false, above = false;
            for (size_t i = 0; i < n; i++) {
                exact |= strcmp(targets[i], rel) == 0;
                above |= strncmp(targets[i], rel, len) == 0 &&
                         targets[i][len] == '/';
            }
            if (exact)
                ; /* the fixture takes its place */
            else if (above && weir__fs_is_dir(from))
                rc = mirror(from, to, rel, targets, n, err);
            else if (!above && symlink(from, to) != 0)
                rc = WEIR_ERR(err, WEIR_EIO, NULL, "cannot link %s to %s: %s",
                              to, from, strerror(errno));
        }
        free(rel);
        free(from);
        free(to);
    }
    closedir(d);
    return rc;
}

int weir__fixture_overlay(const char *root, const char *project_dir,
                          const weir_test *t, weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    char **targets = NULL;
    size_t n = file_targets(&a, t, &targets);
    int rc = weir__arena_failed(&a)
                 ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                 : mirror(project_dir, root, "", targets, n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        char *path = weir__path_join(root, targets[i]);
        char *dir = path && is_file_target(targets[i]) ? weir__path_dirname(path)
                                                        : NULL;
        rc = !path ? WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory")
                   : weir__fs_mkdirs(dir ? dir : path, err);
        free(dir);
        free(path);
    }
    weir__arena_free(&a);
    return rc;
}

/* ---- values ---------------------------------------------------------------- */

static void put_sql_string(weir_buf *b, const char *s)
{
    weir__buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\')
            weir__buf_putc(b, '\\');
        weir__buf_putc(b, *s);
    }
    weir__buf_putc(b, '\'');
}

void weir__tvalue_put_sql(weir_buf *b, const weir_tvalue *v)
{
    switch (v->kind) {
    case WEIR_TV_NULL: weir__buf_puts(b, "NULL"); break;
    case WEIR_TV_BOOL:
    case WEIR_TV_INT:
    case WEIR_TV_FLOAT: weir__buf_puts(b, v->text); break;
    case WEIR_TV_STRING: put_sql_string(b, v->text); break;
    }
}

static void put_json_value(weir_buf *b, const weir_tvalue *v)
{
    if (v->kind == WEIR_TV_STRING)
        weir__buf_put_json_string(b, v->text);
    else
        weir__buf_puts(b, v->kind == WEIR_TV_NULL ? "null" : v->text);
}

static void put_csv_field(weir_buf *b, const char *s)
{
    if (!s)
        return;
    if (!s[strcspn(s, ",\"\r\n")]) {
        weir__buf_puts(b, s);
        return;
    }
    weir__buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            weir__buf_putc(b, '"');
        weir__buf_putc(b, *s);
    }
    weir__buf_putc(b, '"');
}

static void rows_as_file(weir_buf *b, const weir_trows *r, bool csv)
{
    if (csv) {
        for (size_t c = 0; c < r->n_cols; c++) {
            if (c)
                weir__buf_putc(b, ',');
            put_csv_field(b, r->cols[c]);
        }
        weir__buf_putc(b, '\n');
    }
    for (size_t i = 0; i < r->n_rows; i++) {
        if (!csv)
            weir__buf_putc(b, '{');
        for (size_t c = 0; c < r->n_cols; c++) {
            const weir_tvalue *v = &r->cells[i * r->n_cols + c];
            if (csv) {
                if (c)
                    weir__buf_putc(b, ',');
                put_csv_field(b, v->text);
            } else {
                if (c)
                    weir__buf_puts(b, ", ");
                weir__buf_put_json_string(b, r->cols[c]);
                weir__buf_puts(b, ": ");
                put_json_value(b, v);
            }
        }
        weir__buf_puts(b, csv ? "\n" : "}\n");
    }
}

/* A plain write: fixtures live in a folder removed after the test, so
 * they need no fsync (weir__fs_write_atomic's durability). */
static int write_file(const char *path, const char *data, size_t len,
                      weir_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    while (ok && len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        if (ok) {
            data += n;
            len -= (size_t)n;
        }
    }
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    return ok ? 0
              : WEIR_ERR(err, WEIR_EIO, NULL, "cannot write the fixture %s: %s",
                         path, strerror(saved));
}

/* The rows of a query as a file: JSON lines (numbers and booleans as
 * JSON values, NULL as null, the rest as strings) or CSV with a header
 * (NULL as an empty field). */
static void result_as_file(weir_buf *b, const weir_result *r, bool csv)
{
    size_t nc = weir_result_column_count(r), nr = weir_result_row_count(r);
    for (size_t c = 0; csv && c < nc; c++) {
        if (c)
            weir__buf_putc(b, ',');
        put_csv_field(b, weir_result_column_name(r, c));
    }
    if (csv)
        weir__buf_putc(b, '\n');
    for (size_t i = 0; i < nr; i++) {
        if (!csv)
            weir__buf_putc(b, '{');
        for (size_t c = 0; c < nc; c++) {
            const char *v = weir_result_value(r, c, i);
            if (csv) {
                if (c)
                    weir__buf_putc(b, ',');
                put_csv_field(b, v);
                continue;
            }
            if (c)
                weir__buf_puts(b, ", ");
            weir__buf_put_json_string(b, weir_result_column_name(r, c));
            weir__buf_puts(b, ": ");
            if (!v)
                weir__buf_puts(b, "null");
            else if (weir_result_column_is_numeric(r, c) &&
                     strcmp(v, "nan") && strcmp(v, "inf") && strcmp(v, "-inf"))
                weir__buf_puts(b, v);
            else
                weir__buf_put_json_string(b, v);
        }
        weir__buf_puts(b, csv ? "\n" : "}\n");
    }
}

static int apply_files(weir_pipeline *p, const char *root,
                       const weir_fixture *f, size_t step, size_t index,
                       weir_error *err)
{
    weir_buf data = WEIR_BUF_INIT;
    int rc = 0;
    bool csv = weir__str_ieq(f->format, "csv");
    if (f->source == WEIR_FSRC_ROWS) {
        rows_as_file(&data, &f->rows, csv);
    } else if (f->source == WEIR_FSRC_SQL) {
        weir_result *res = NULL;
        rc = weir_pipeline_query(p, f->sql, &res, err);
        if (rc)
            weir__error_prefix(err, "fixture files %s: ", f->target);
        else
            result_as_file(&data, res, csv);
        weir_result_free(res);
    } else {
        char *text = NULL;
        size_t len = 0;
        rc = weir__fs_read(&text, &len, f->file, err);
        if (!rc)
            weir__buf_put(&data, text, len);
        free(text);
        csv = f->source == WEIR_FSRC_CSV;
    }
    char *target = weir__path_join(root, f->target);
    char *path = NULL;
    if (target && is_file_target(f->target)) {
        path = strdup(target);
    } else if (target) {
        weir_buf name = WEIR_BUF_INIT;
        weir__buf_printf(&name, "%s/step-%03zu-%03zu.%s", target, step + 1,
                         index + 1, csv ? "csv" : "json");
        path = weir__buf_detach(&name);
    }
    if (!rc && (!path || weir__buf_failed(&data)))
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc)
        rc = write_file(path, data.len ? weir__buf_cstr(&data) : "", data.len,
                        err);
    free(path);
    free(target);
    weir__buf_free(&data);
    return rc;
}

/* ---- tables ---------------------------------------------------------------- */

/* A column type for inline rows without a schema. */
static const char *column_type(const weir_trows *r, size_t c)
{
    bool ints = true, nums = true, bools = true, any = false;
    for (size_t i = 0; i < r->n_rows; i++) {
        weir_tvalue_kind k = r->cells[i * r->n_cols + c].kind;
        if (k == WEIR_TV_NULL)
            continue;
        any = true;
        ints &= k == WEIR_TV_INT;
        nums &= k == WEIR_TV_INT || k == WEIR_TV_FLOAT;
        bools &= k == WEIR_TV_BOOL;
    }
    return !any ? "STRING" : ints ? "BIGINT" : nums ? "DOUBLE"
                                  : bools ? "BOOLEAN" : "STRING";
}

static void put_values(weir_buf *q, const weir_trows *r)
{
    weir__buf_puts(q, " (");
    for (size_t c = 0; c < r->n_cols; c++) {
        if (c)
            weir__buf_puts(q, ", ");
        weir__buf_put_spark_ident(q, r->cols[c]);
    }
    weir__buf_puts(q, ") VALUES ");
    for (size_t i = 0; i < r->n_rows; i++) {
        weir__buf_puts(q, i ? ", (" : "(");
        for (size_t c = 0; c < r->n_cols; c++) {
            if (c)
                weir__buf_puts(q, ", ");
            weir__tvalue_put_sql(q, &r->cells[i * r->n_cols + c]);
        }
        weir__buf_putc(q, ')');
    }
}

/* The columns of `schema:` as parsed (define.c), written back from their
 * parts: names quoted, types as Spark spells them. */
static void put_columns(weir_buf *q, const weir_sql_column *cols, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        if (c)
            weir__buf_puts(q, ", ");
        weir__buf_put_spark_ident(q, cols[c].name);
        weir__buf_putc(q, ' ');
        weir__sql_type_to_spark(q, cols[c].type);
        if (cols[c].not_null)
            weir__buf_puts(q, " NOT NULL");
    }
}

void weir__fixture_source_query(weir_buf *q, const weir_fixture *f)
{
    if (f->source == WEIR_FSRC_SQL) {
        weir__buf_puts(q, f->sql);
        return;
    }
    weir__buf_puts(q, "SELECT * FROM read_files(");
    put_sql_string(q, f->file);
    weir__buf_puts(q, f->source == WEIR_FSRC_CSV
                          ? ", format => 'csv', header => true)"
                          : ", format => 'json')");
}

static int apply_table(weir_pipeline *p, const weir_fixture *f, bool first,
                       weir_error *err)
{
    weir_buf q = WEIR_BUF_INIT;
    bool create = first || f->replace;
    const char *dot = strrchr(f->target, '.');
    if (first && dot && !strchr(f->target, '`')) {
        weir__buf_puts(&q, "CREATE DATABASE IF NOT EXISTS ");
        weir__buf_put(&q, f->target, (size_t)(dot - f->target));
        weir__buf_puts(&q, "; ");
    }
    if (create && !first) {
        weir__buf_printf(&q, "DROP TABLE IF EXISTS %s; ", f->target);
    }
    bool rows = f->source == WEIR_FSRC_ROWS;
    if (create && (f->n_columns || rows)) {
        weir__buf_printf(&q, "CREATE TABLE %s (", f->target);
        if (f->n_columns) {
            put_columns(&q, f->columns, f->n_columns);
        } else {
            for (size_t c = 0; c < f->rows.n_cols; c++) {
                if (c)
                    weir__buf_puts(&q, ", ");
                weir__buf_put_spark_ident(&q, f->rows.cols[c]);
                weir__buf_printf(&q, " %s", column_type(&f->rows, c));
            }
        }
        weir__buf_puts(&q, "); ");
        create = false;
    }
    if (create) {
        weir__buf_printf(&q, "CREATE TABLE %s AS ", f->target);
        weir__fixture_source_query(&q, f);
    } else if (!rows) {
        weir__buf_printf(&q, "INSERT INTO %s ", f->target);
        weir__fixture_source_query(&q, f);
    } else if (f->rows.n_rows > 0) {
        weir__buf_printf(&q, "INSERT INTO %s", f->target);
        put_values(&q, &f->rows);
    }
    int rc = 0;
    if (weir__buf_failed(&q)) {
        rc = WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    } else if (q.len) {
        weir_result *res = NULL;
        rc = weir_pipeline_query(p, weir__buf_cstr(&q), &res, err);
        weir_result_free(res);
        if (rc)
            weir__error_prefix(err, "fixture table %s: ", f->target);
    }
    weir__buf_free(&q);
    return rc;
}

int weir__fixture_apply(weir_pipeline *p, const char *root,
                        const weir_fixture *f, size_t step, size_t index,
                        bool first, weir_error *err)
{
    switch (f->kind) {
    case WEIR_FIXTURE_TABLE: return apply_table(p, f, first, err);
    case WEIR_FIXTURE_FILES: return apply_files(p, root, f, step, index, err);
    case WEIR_FIXTURE_TOPIC: return weir__fixture_topic(p, f, err);
    }
    return 0;
}
