/*
 * Unit tests for the file-system side of src/spec: finding the spec file
 * upward from a folder, loading it from disk, and expanding `libraries`
 * globs into files (order, hidden and __pycache__ entries, symlinks,
 * duplicates, extension errors). Every test works in its own mkdtemp
 * folder.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, realpath, symlink */
#include "harness.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec.h"
#include "util/fs.h"

/* A fresh temporary folder (realpath'd, as the spec module reports it). */
static char *tmpdir(void)
{
    char tmpl[] = "/tmp/weir-spec-XXXXXX";
    if (!mkdtemp(tmpl))
        return NULL;
    return realpath(tmpl, NULL);
}

static void rmtree(char *dir)
{
    if (dir)
        weir__fs_remove_tree(dir, NULL);
    free(dir);
}

/* Create root/rel (and its folders) holding text. */
static void put(const char *root, const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    char *dir = weir__path_dirname(path);
    weir__fs_mkdirs(dir, NULL);
    free(dir);
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void mkdirs(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    weir__fs_mkdirs(path, NULL);
}

static char *join(const char *a, const char *b)
{
    return weir__path_join(a, b);
}

/* --- Discovery ------------------------------------------------------------- */

TEST(test_spec_find_current_and_parent)
{
    char *root = tmpdir();
    CHECK(root != NULL);
    if (!root)
        return;
    put(root, "spark-pipeline.yml", "name: p\nstorage: s\n");
    mkdirs(root, "a/b/c");
    char *found = NULL, *want = join(root, "spark-pipeline.yml");
    weir_error err;
    CHECK_INT(weir__spec_find(&found, root, &err), 0);
    CHECK_STR(found, want);
    free(found);
    char *deep = join(root, "a/b/c");
    CHECK_INT(weir__spec_find(&found, deep, &err), 0);
    CHECK_STR(found, want);
    free(found);
    /* The nearest folder wins; .yaml is found too. */
    put(root, "a/spark-pipeline.yaml", "name: q\nstorage: s\n");
    char *want2 = join(root, "a/spark-pipeline.yaml");
    CHECK_INT(weir__spec_find(&found, deep, &err), 0);
    CHECK_STR(found, want2);
    free(found);
    /* A relative start folder resolves against the current directory. */
    char *cwd = weir__path_cwd();
    if (cwd && chdir(root) == 0) {
        CHECK_INT(weir__spec_find(&found, "a/b", &err), 0);
        CHECK_STR(found, want2);
        free(found);
        CHECK_INT(weir__spec_find(&found, NULL, &err), 0);
        CHECK_STR(found, want);
        free(found);
        CHECK(chdir(cwd) == 0);
    }
    free(cwd);
    free(deep);
    free(want);
    free(want2);
    rmtree(root);
}

TEST(test_spec_find_both_names)
{
    char *root = tmpdir();
    if (!root)
        return;
    put(root, "spark-pipeline.yml", "");
    put(root, "spark-pipeline.yaml", "");
    mkdirs(root, "child");
    char *child = join(root, "child");
    char *found = NULL;
    weir_error err;
    CHECK_INT(weir__spec_find(&found, child, &err), WEIR_ESPEC);
    CHECK(found == NULL);
    CHECK_STR(err.error_class, "MULTIPLE_PIPELINE_SPEC_FILES_FOUND");
    CHECK_CONTAINS(err.message, root);
    CHECK_CONTAINS(err.message, "--spec");
    free(child);
    rmtree(root);
}

TEST(test_spec_find_not_found)
{
    char *root = tmpdir();
    if (!root)
        return;
    mkdirs(root, "x/y");
    /* Folders named like the spec do not count. */
    mkdirs(root, "x/spark-pipeline.yml");
    char *start = join(root, "x/y");
    char *found = NULL;
    weir_error err;
    int rc = weir__spec_find(&found, start, &err);
    if (rc == 0 && found && strncmp(found, root, strlen(root)) != 0) {
        fprintf(stderr, "  (skipped: %s exists above the test folder)\n",
                found);
    } else {
        CHECK_INT(rc, WEIR_ENOTFOUND);
        CHECK(found == NULL);
        CHECK_STR(err.error_class, "PIPELINE_SPEC_FILE_NOT_FOUND");
        char want[4200];
        snprintf(want, sizeof(want),
                 "No spark-pipeline.yaml or spark-pipeline.yml file provided "
                 "in arguments or found in directory `%s` or readable "
                 "ancestor directories.",
                 start);
        CHECK_STR(err.message, want);
    }
    free(found);
    free(start);
    rmtree(root);
}

/* --- Loading from disk -------------------------------------------------------- */

TEST(test_spec_load_paths)
{
    char *root = tmpdir();
    if (!root)
        return;
    put(root, "proj/custom-name.txt",
        "name: p\nstorage: file:///tmp/st\nlibraries: []\n");
    mkdirs(root, "proj/dir.yml");
    char *spec_path = join(root, "proj/custom-name.txt");
    weir_spec *s = NULL;
    weir__diags d = { NULL, 0, 0, 0 };
    weir_error err;
    /* --spec accepts any file name. */
    CHECK_INT(weir__spec_check_path(spec_path, &err), 0);
    CHECK_INT(weir__spec_load(&s, spec_path, &d, &err), 0);
    if (s) {
        CHECK_STR(s->path, spec_path);
        CHECK_STR(s->storage, "/tmp/st");
        char *dir = join(root, "proj");
        CHECK_STR(s->dir, dir);
        free(dir);
    }
    weir__spec_free(s);
    /* Not there, or not a regular file. */
    char *missing = join(root, "proj/none.yml");
    char *folder = join(root, "proj/dir.yml");
    const char *bad[] = { missing, folder };
    for (int i = 0; i < 2; i++) {
        CHECK_INT(weir__spec_check_path(bad[i], &err), WEIR_ENOTFOUND);
        CHECK_STR(err.error_class, "PIPELINE_SPEC_FILE_DOES_NOT_EXIST");
        char want[4200];
        snprintf(want, sizeof(want),
                 "The pipeline spec file `%s` does not exist.", bad[i]);
        CHECK_STR(err.message, want);
        CHECK_INT(weir__spec_load(&s, bad[i], &d, &err), WEIR_ENOTFOUND);
        CHECK(s == NULL);
        CHECK_STR(err.error_class, "PIPELINE_SPEC_FILE_DOES_NOT_EXIST");
    }
    CHECK_INT(d.len, 0);
    /* Problems carry the file's path. */
    char *broken = join(root, "proj/spark-pipeline.yml");
    put(root, "proj/spark-pipeline.yml", "name: p\nstorage: s\nextra: 1\n");
    CHECK_INT(weir__spec_load(&s, broken, &d, &err), WEIR_ESPEC);
    CHECK_INT(d.len, 1);
    if (d.len) {
        CHECK_STR(d.items[0].path, broken);
        CHECK_INT(d.items[0].line, 3);
        CHECK_STR(d.items[0].line_text, "extra: 1");
    }
    weir__diags_free(&d);
    free(broken);
    free(missing);
    free(folder);
    free(spec_path);
    rmtree(root);
}

TEST(test_spec_load_through_symlink)
{
    /* Spark resolves the spec's folder (Path.resolve()) before globbing. */
    char *root = tmpdir();
    if (!root)
        return;
    put(root, "real/spark-pipeline.yml",
        "name: p\nstorage: st\nlibraries:\n  - glob: {include: a.sql}\n");
    put(root, "real/a.sql", "SELECT 1");
    char *real = join(root, "real"), *link = join(root, "link");
    CHECK(symlink(real, link) == 0);
    char *path = join(link, "spark-pipeline.yml");
    weir_spec *s = NULL;
    CHECK_INT(weir__spec_load(&s, path, NULL, NULL), 0);
    if (s) {
        CHECK_STR(s->path, path);
        CHECK_STR(s->dir, real);
        char *st = join(real, "st");
        CHECK_STR(s->storage, st);
        free(st);
        weir_spec_file *files = NULL;
        size_t n = 0;
        CHECK_INT(weir__spec_library_files(&files, &n, s, NULL, NULL), 0);
        CHECK_INT(n, 1);
        if (n == 1)
            CHECK_STR(files[0].rel_path, "a.sql");
    }
    weir__spec_free(s);
    free(path);
    free(real);
    free(link);
    rmtree(root);
}

/* --- Globs ---------------------------------------------------------------- */

/* Load root/proj/spark-pipeline.yml with these library lines. */
static weir_spec *load_with(const char *root, const char *libraries)
{
    char text[4096];
    snprintf(text, sizeof(text), "name: p\nstorage: st\nlibraries:\n%s",
             libraries);
    put(root, "proj/spark-pipeline.yml", text);
    char *path = join(root, "proj/spark-pipeline.yml");
    weir_spec *s = NULL;
    weir__diags d = { NULL, 0, 0, 0 };
    int rc = weir__spec_load(&s, path, &d, NULL);
    if (rc) {
        fprintf(stderr, "  load failed (%d):\n%s\n", rc, text);
        for (size_t i = 0; i < d.len; i++)
            fprintf(stderr, "    %s: %s\n", d.items[i].error_class,
                    d.items[i].message);
    }
    weir__diags_free(&d);
    free(path);
    return s;
}

TEST(test_spec_files_expand)
{
    char *root = tmpdir();
    if (!root)
        return;
    put(root, "proj/t/b.sql", "");
    put(root, "proj/t/a.sql", "");
    put(root, "proj/t/sub/c.sql", "");
    put(root, "proj/t/sub/deeper/d.sql", "");
    put(root, "proj/t/.hidden.sql", "");
    put(root, "proj/t/.git/config.sql", "");
    put(root, "proj/t/__pycache__/x.sql", "");
    put(root, "proj/t/_private.sql", "");
    put(root, "proj/one.sql", "");
    put(root, "other/o.sql", "");
    put(root, "other/inner/p.sql", "");
    char *other = join(root, "other"), *one = join(root, "proj/one.sql");
    char *lnk_dir = join(root, "proj/t/linked"),
         *lnk_file = join(root, "proj/t/lnk.sql");
    CHECK(symlink(other, lnk_dir) == 0);  /* not descended into */
    CHECK(symlink(one, lnk_file) == 0);   /* counts as a file */
    weir_spec *s = load_with(root, "  - glob: {include: t/**}\n"
                                   "  - glob: {include: ./one.sql}\n"
                                   "  - glob: {include: ../other/**}\n"
                                   "  - glob: {include: missing.sql}\n"
                                   "  - glob: {include: t}\n"
                                   "  - glob: {include: one.sql}\n"
                                   "  - glob: {include: nowhere/**}\n"
                                   "  - glob: {include: t/.hidden.sql}\n");
    CHECK(s != NULL);
    if (!s)
        goto out;
    weir_spec_file *f = NULL;
    size_t n = 0;
    weir__diags d = { NULL, 0, 0, 0 };
    CHECK_INT(weir__spec_library_files(&f, &n, s, &d, NULL), 0);
    CHECK_INT(d.len, 0);
    static const char *const want[] = {
        "t/_private.sql", "t/a.sql", "t/b.sql", "t/lnk.sql", "t/sub/c.sql",
        "t/sub/deeper/d.sql", "one.sql", "../other/inner/p.sql",
        "../other/o.sql", "one.sql", "t/.hidden.sql",
    };
    CHECK_INT(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n && i < sizeof(want) / sizeof(want[0]); i++) {
        CHECK_STR(f[i].rel_path, want[i]);
        char *abs = weir__path_absolute(want[i], s->dir);
        CHECK_STR(f[i].path, abs);
        free(abs);
    }
    static const size_t matched[] = { 6, 1, 2, 0, 0, 1, 0, 1 };
    CHECK_INT(s->n_libraries, 8);
    for (size_t i = 0; i < 8 && i < s->n_libraries; i++)
        CHECK_INT(s->libraries[i].matched, matched[i]);
    if (n == 11) {
        CHECK(f[0].library == &s->libraries[0]);
        CHECK(f[6].library == &s->libraries[1]);
        CHECK(f[9].library == &s->libraries[5]);
    }
    CHECK_STR(s->libraries[2].pattern, "../other/**/*");
    /* A second call gives the same answer. */
    size_t n2 = 0;
    CHECK_INT(weir__spec_library_files(&f, &n2, s, &d, NULL), 0);
    CHECK_INT(n2, n);
    weir__diags_free(&d);
    weir__spec_free(s);
out:
    free(other);
    free(one);
    free(lnk_dir);
    free(lnk_file);
    rmtree(root);
}

TEST(test_spec_files_extensions)
{
    char *root = tmpdir();
    if (!root)
        return;
    put(root, "proj/t/a.sql", "");
    put(root, "proj/t/defs.py", "");
    put(root, "proj/t/notes.md", "");
    put(root, "proj/t/UPPER.SQL", "");
    put(root, "proj/t/noext", "");
    put(root, "proj/solo.py", "");
    weir_spec *s = load_with(root, "  - glob:\n      include: t/**\n"
                                   "  - glob: {include: solo.py}\n");
    CHECK(s != NULL);
    if (!s) {
        rmtree(root);
        return;
    }
    weir_spec_file *f = NULL;
    size_t n = 7;
    weir__diags d = { NULL, 0, 0, 0 };
    weir_error err;
    CHECK_INT(weir__spec_library_files(&f, &n, s, &d, &err), WEIR_ESPEC);
    CHECK(f == NULL);
    CHECK_INT(n, 0);
    CHECK_INT(s->libraries[0].matched, 5);
    CHECK_INT(s->libraries[1].matched, 1);
    /* Python files are definitions too (the front end imports them). */
    CHECK_INT(d.len, 3);
    const char *ext = "PIPELINE_UNSUPPORTED_DEFINITIONS_FILE_EXTENSION";
    static const char *const files[] = { "UPPER.SQL", "noext", "notes.md" };
    for (size_t i = 0; i < d.len && i < 3; i++) {
        CHECK_STR(d.items[i].error_class, ext);
        CHECK_CONTAINS(d.items[i].message, files[i]);
        CHECK_CONTAINS(d.items[i].path, "spark-pipeline.yml");
        CHECK_INT(d.items[i].line, 5);
        CHECK_INT(d.items[i].column, 16);
    }
    if (d.len >= 1) {
        CHECK_CONTAINS(d.items[0].message, "unsupported extension");
        CHECK_CONTAINS(d.items[0].message, "`.py` and `.sql`");
        CHECK_STR(d.items[0].line_text, "      include: t/**");
    }
    CHECK_STR(err.error_class, ext);
    weir__diags_free(&d);
    weir__spec_free(s);
    rmtree(root);
}

TEST(test_spec_files_whole_folder)
{
    /* A whole-folder glob of the spec folder matches the spec file
     * itself, which Spark rejects too. */
    char *root = tmpdir();
    if (!root)
        return;
    put(root, "proj/q.sql", "");
    weir_spec *s = load_with(root, "  - glob: {include: ./**}\n");
    if (s) {
        weir_spec_file *f = NULL;
        size_t n = 0;
        weir__diags d = { NULL, 0, 0, 0 };
        CHECK_INT(weir__spec_library_files(&f, &n, s, &d, NULL), WEIR_ESPEC);
        CHECK_INT(d.len, 1);
        if (d.len)
            CHECK_CONTAINS(d.items[0].message, "spark-pipeline.yml");
        CHECK_INT(s->libraries[0].matched, 2);
        weir__diags_free(&d);
    }
    weir__spec_free(s);
    rmtree(root);
}

TEST(test_spec_files_pycache_root)
{
    /* Spark skips every match whose path has a __pycache__ part, even
     * when it is above the spec. */
    char *root = tmpdir();
    if (!root)
        return;
    put(root, "__pycache__/proj/spark-pipeline.yml",
        "name: p\nstorage: s\nlibraries:\n  - glob: {include: a.sql}\n");
    put(root, "__pycache__/proj/a.sql", "");
    char *path = join(root, "__pycache__/proj/spark-pipeline.yml");
    weir_spec *s = NULL;
    CHECK_INT(weir__spec_load(&s, path, NULL, NULL), 0);
    if (s) {
        weir_spec_file *f = NULL;
        size_t n = 3;
        CHECK_INT(weir__spec_library_files(&f, &n, s, NULL, NULL), 0);
        CHECK_INT(n, 0);
        CHECK_INT(s->libraries[0].matched, 0);
    }
    weir__spec_free(s);
    free(path);
    rmtree(root);
}

TEST(test_spec_files_empty)
{
    weir_spec *s = NULL;
    const char *text = "name: p\nstorage: s\n";
    CHECK_INT(weir__spec_parse(&s, "/nowhere/spark-pipeline.yml", text,
                               strlen(text), NULL, NULL),
              0);
    weir_spec_file *f = (weir_spec_file *)1;
    size_t n = 9;
    CHECK_INT(weir__spec_library_files(&f, &n, s, NULL, NULL), 0);
    CHECK(f == NULL);
    CHECK_INT(n, 0);
    weir__spec_free(s);
}

TEST_MAIN(RUN(test_spec_find_current_and_parent);
          RUN(test_spec_find_both_names); RUN(test_spec_find_not_found);
          RUN(test_spec_load_paths); RUN(test_spec_load_through_symlink);
          RUN(test_spec_files_expand); RUN(test_spec_files_extensions);
          RUN(test_spec_files_whole_folder);
          RUN(test_spec_files_pycache_root); RUN(test_spec_files_empty))
