/*
 * Unit tests for src/util: buffers, arenas, maps, vectors, JSON, paths,
 * errors, Spark's file sink log.
 */
#define _GNU_SOURCE
#include "harness.h"

#include "util/arena.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/map.h"
#include "util/spark_sink_log.h"
#include "util/str.h"
#include "util/url.h"
#include "util/vec.h"

TEST(test_util_buf__append_and_quote)
{
    weir_buf b = WEIR_BUF_INIT;
    CHECK_STR(weir__buf_cstr(&b), "");
    weir__buf_puts(&b, "a");
    weir__buf_printf(&b, "%d-%s", 42, "x");
    weir__buf_put_sql_string(&b, "it's");
    weir__buf_put_sql_ident(&b, "q\"d");
    weir__buf_put_json_string(&b, "t\"ab\n");
    CHECK_STR(weir__buf_cstr(&b), "a42-x'it''s'\"q\"\"d\"\"t\\\"ab\\n\"");
    weir__buf_truncate(&b, 1);
    CHECK_STR(weir__buf_cstr(&b), "a");
    for (int i = 0; i < 1000; i++)
        weir__buf_printf(&b, "%0300d", i);
    CHECK_INT(b.len, 1 + 300 * 1000);
    CHECK(!weir__buf_failed(&b));
    weir__buf_free(&b);
}

TEST(test_util_arena__many_allocs)
{
    weir_arena a = WEIR_ARENA_INIT;
    for (int i = 0; i < 10000; i++) {
        char *s = weir__arena_printf(&a, "item-%d", i);
        CHECK(s != NULL);
    }
    void *big = weir__arena_alloc(&a, 100000);
    CHECK(big != NULL);
    CHECK_STR(weir__arena_strndup(&a, "hello", 3), "hel");
    CHECK(!weir__arena_failed(&a));
    weir__arena_free(&a);
}

TEST(test_util_map__case_insensitive)
{
    weir_map m = WEIR_MAP_INIT(true);
    char keys[500][16];
    for (int i = 0; i < 500; i++) {
        snprintf(keys[i], sizeof(keys[i]), "Key%d", i);
        CHECK_INT(weir__map_put(&m, keys[i], (void *)(long)(i + 1)), 0);
    }
    CHECK_INT(m.len, 500);
    CHECK_INT((long)weir__map_get(&m, "KEY7"), 8);
    CHECK_INT((long)weir__map_get(&m, "key499"), 500);
    CHECK(weir__map_get(&m, "nope") == NULL);
    size_t it = 0, n = 0;
    const char *k;
    while (weir__map_next(&m, &it, &k, NULL))
        n++;
    CHECK_INT(n, 500);
    weir__map_free(&m);
}

TEST(test_util_vec__push)
{
    WEIR_VEC(int) v = WEIR_VEC_INIT;
    for (int i = 0; i < 100; i++)
        CHECK_INT(WEIR_VEC_PUSH(&v, i), 0);
    CHECK_INT(v.len, 100);
    CHECK_INT(v.items[99], 99);
    WEIR_VEC_FREE(&v);
}

TEST(test_util_json__parse)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_json *j;
    const char *text = "{\"a\": [1, 2.5, true, null], \"b\": \"x\\u00e9\\n\"}";
    CHECK_INT(weir__json_parse(&j, &a, text, strlen(text), NULL), 0);
    CHECK_INT(j->type, WEIR_JSON_OBJECT);
    const weir_json *arr = weir__json_get(j, "a");
    CHECK(arr && arr->len == 4);
    CHECK(arr->items[1]->number == 2.5);
    CHECK_STR(weir__json_get_str(j, "b"), "x\xc3\xa9\n");
    weir_error e;
    CHECK_INT(weir__json_parse(&j, &a, "{\"a\":", 5, &e), WEIR_ECORRUPT);
    CHECK_INT(weir__json_parse(&j, &a, "[1] x", 5, &e), WEIR_ECORRUPT);
    char deep[600];
    memset(deep, '[', sizeof(deep));
    CHECK_INT(weir__json_parse(&j, &a, deep, sizeof(deep), &e), WEIR_ECORRUPT);
    /* Numbers follow RFC 8259's grammar. */
    const char *bad[] = { "01", "1.", ".5", "-", "1e", "1e+", "+1", "0x1", "--1", "1.5.2" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_INT(weir__json_parse(&j, &a, bad[i], strlen(bad[i]), &e), WEIR_ECORRUPT);
    }
    const char *good[] = { "0", "-0", "10", "-2.50", "1e9", "1E-3", "0.5e+2" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        CHECK_INT(weir__json_parse(&j, &a, good[i], strlen(good[i]), NULL), 0);
    }
    weir__arena_free(&a);
}

TEST(test_util_path__absolute)
{
    char *p = weir__path_absolute("a/./b/../c", "/root/x");
    CHECK_STR(p, "/root/x/a/c");
    free(p);
    p = weir__path_absolute("/../..", NULL);
    CHECK_STR(p, "/");
    free(p);
    p = weir__path_join("/a/", "b");
    CHECK_STR(p, "/a/b");
    free(p);
    p = weir__path_dirname("/a/b/c.sql");
    CHECK_STR(p, "/a/b");
    free(p);
    CHECK_STR(weir__path_basename("/a/b/c.sql"), "c.sql");
}

TEST(test_util_path__names)
{
    /* Names become one safe path segment, one to one. */
    static const char *const cases[][2] = {
        { "orders", "orders" },       { "My Cat-1.x", "My Cat-1.x" },
        { "../../x", "..%2F..%2Fx" }, { "..", "%2E%2E" },
        { ".", "%2E" },               { "a\\b%2F", "a%5Cb%252F" },
        { "t\tab", "t%09ab" },        { "...x", "...x" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        weir_buf b = WEIR_BUF_INIT, back = WEIR_BUF_INIT;
        weir__path_put_name(&b, cases[i][0]);
        CHECK_STR(weir__buf_cstr(&b), cases[i][1]);
        CHECK(weir__path_decode_name(&back, b.ptr, b.len));
        CHECK_STR(weir__buf_cstr(&back), cases[i][0]);
        weir__buf_free(&b);
        weir__buf_free(&back);
    }
    weir_buf b = WEIR_BUF_INIT;
    CHECK(!weir__path_decode_name(&b, "a%2", 3));
    CHECK(!weir__path_decode_name(&b, "a%00", 4));
    weir__buf_free(&b);
}

TEST(test_util_error__location)
{
    weir_error e;
    const char *text = "line one\nline two here\nthree";
    WEIR_ERR(&e, WEIR_ESQL, "PARSE_SYNTAX_ERROR", "bad %s", "thing");
    weir__error_at_offset(&e, "f.sql", text, strlen(text), 14);
    CHECK_INT(e.line, 2);
    CHECK_INT(e.column, 6);
    CHECK_STR(e.line_text, "line two here");
    CHECK_STR(e.error_class, "PARSE_SYNTAX_ERROR");
    CHECK_STR(e.message, "bad thing");
    weir__diags d = { 0 };
    CHECK_INT(weir__diags_add(&d, &e), 0);
    CHECK_INT(d.len, 1);
    weir__diags_free(&d);
}

TEST(test_util_error__line_of)
{
    weir_error e;
    const char *text = "one\ntwo\r\nthree";
    WEIR_ERR(&e, WEIR_ESQL, NULL, "x");
    weir__error_set_line_of(&e, text, strlen(text), 2);
    CHECK_STR(e.line_text, "two");
    weir__error_set_line_of(&e, text, strlen(text), 3);
    CHECK_STR(e.line_text, "three");
    weir__error_set_line_of(&e, text, strlen(text), 4);
    CHECK_STR(e.line_text, "three");
    weir__error_set_line_of(&e, text, strlen(text), 0);
    CHECK_STR(e.line_text, "three");
}

TEST(test_util_str__helpers)
{
    CHECK(weir__str_ieq("ABC", "abc"));
    CHECK(!weir__str_ieq("ABC", "abd"));
    CHECK(weir__str_istarts("CREATE TABLE", "create"));
    bool b;
    CHECK(weir__str_parse_bool("FALSE", &b) && !b);
    CHECK(!weir__str_parse_bool("maybe", &b));
    unsigned long long u;
    CHECK(weir__str_parse_u64("123", &u) && u == 123);
    CHECK(!weir__str_parse_u64("12x", &u));
    char id[37];
    weir__uuid(id);
    CHECK_INT(strlen(id), 36);
    CHECK(id[14] == '4');
}

TEST(test_util_fs__file_names)
{
    weir_buf b = WEIR_BUF_INIT;
    weir__fs_put_glob_literal(&b, "/x/land[1]/a*b?.json");
    CHECK_STR(weir__buf_cstr(&b), "/x/land[[]1]/a[*]b[?].json");
    weir__buf_clear(&b);
    weir__fs_put_escaped_name(&b, "a\\b\xff c");
    CHECK_STR(weir__buf_cstr(&b), "a\\x5cb\\xff c");
    weir__buf_free(&b);
    CHECK(!weir__fs_unreadable_name("/x/{a} 'q\"/\xc3\xa9.json"));
    CHECK(!weir__fs_unreadable_name("/x/back\\slash.json"));
    CHECK(weir__fs_unreadable_name("/x/back\\sl*sh.json"));
    CHECK(weir__fs_unreadable_name("/x/\xff.json"));
    CHECK(weir__fs_unreadable_name("/x/\xc3.json"));        /* cut short */
    CHECK(weir__fs_unreadable_name("/x/\xc0\xaf.json"));    /* overlong */
    CHECK(weir__fs_unreadable_name("/x/\xed\xa0\x80.json")); /* surrogate */
}

TEST(test_util_url__schemes)
{
    CHECK(weir__url_kind("S3A://b/k") == WEIR_URL_S3);
    CHECK(weir__url_kind("gcs://b/k") == WEIR_URL_GCS);
    CHECK(weir__url_kind("abfss://c@a.dfs.core.windows.net/k") == WEIR_URL_AZURE);
    CHECK(weir__url_kind("https://h/x.json") == WEIR_URL_HTTP);
    CHECK(weir__url_kind("/data/s3://x") == WEIR_URL_NONE);
    CHECK(weir__url_kind("ftp://h/x") == WEIR_URL_NONE);
    CHECK(!weir__url_writable(WEIR_URL_HTTP) && weir__url_writable(WEIR_URL_S3));
    char *n = weir__url_normalize("s3a://bucket/landing//");
    CHECK_STR(n, "s3://bucket/landing");
    free(n);
    n = weir__url_normalize("GCS://b/p/");
    CHECK_STR(n, "gs://b/p");
    free(n);
    char b[64];
    CHECK(weir__url_bucket("s3://my-bucket/a/b", b, sizeof(b)));
    CHECK_STR(b, "my-bucket");
    CHECK(!weir__url_bucket("s3:///a", b, sizeof(b)));
    weir_url_kind k = WEIR_URL_NONE;
    const char *sql = "SELECT * FROM x://y, read_json('az://c/p')";
    const char *u = weir__url_find(sql, &k);
    CHECK(u && strncmp(u, "az://", 5) == 0 && k == WEIR_URL_AZURE);
    CHECK(!weir__url_find("SELECT 'xs3://b'", &k));
    CHECK(!weir__url_find("SELECT 1", &k));
    /* URLs are absolute paths, kept in weir's spelling. */
    CHECK(weir__path_is_abs("s3a://b/k"));
    n = weir__path_absolute("s3a://b/k/", "/proj");
    CHECK_STR(n, "s3://b/k");
    free(n);
}

static void put_file(const char *dir, const char *name, const char *text)
{
    char *p = weir__path_join(dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(p);
}

/* A log written elsewhere (paths of another folder, URI-encoded), a
 * compaction, a later delete, a partition folder, a batch's .crc and a
 * stray part file: only the committed files, mapped into the folder. */
TEST(test_util_spark_sink_log)
{
    char tmpl[] = "/tmp/weir-sink-log-XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    if (!dir)
        return;
    char sub[512], meta[512];
    snprintf(sub, sizeof(sub), "%s/k=a b", dir);
    snprintf(meta, sizeof(meta), "%s/_spark_metadata", dir);
    weir_error err;
    CHECK(!weir__spark_sink_has_log(dir));
    CHECK_INT(weir__fs_mkdirs(sub, &err), 0);
    CHECK_INT(weir__fs_mkdirs(meta, &err), 0);
    CHECK(weir__spark_sink_has_log(dir));
    put_file(dir, "p0.json", "{}\n");
    put_file(dir, "p1.json", "{}\n");
    put_file(dir, "p2.json", "{}\n");
    put_file(dir, "stray.json", "{}\n");
    put_file(sub, "p3.json", "{}\n");
#define ADD "{\"path\":\"file:///old/out/%s\",\"size\":3,\"isDir\":false," \
            "\"action\":\"%s\"}\n"
    char text[2048];
    int n = snprintf(text, sizeof(text), "v1\n");
    n += snprintf(text + n, sizeof(text) - (size_t)n, ADD, "p0.json", "add");
    n += snprintf(text + n, sizeof(text) - (size_t)n, ADD, "p1.json", "add");
    put_file(meta, "0", "v1\n{\"path\":\"file:///old/out/p9.json\",\"action\":\"add\"}\n");
    put_file(meta, "1.compact", text);
    n = snprintf(text, sizeof(text), "v1\n");
    n += snprintf(text + n, sizeof(text) - (size_t)n, ADD, "k=a%20b/p3.json", "add");
    n += snprintf(text + n, sizeof(text) - (size_t)n, ADD, "p0.json", "delete");
    put_file(meta, "2", text);
    put_file(meta, ".2.crc", "junk");
    weir_file_list l;
    CHECK_INT(weir__spark_sink_files(&l, dir, &err), 0);
    CHECK_INT((int)l.len, 2);
    if (l.len == 2) {
        CHECK_STR(weir__path_basename(l.items[0].path), "p1.json");
        char want[600];
        snprintf(want, sizeof(want), "%s/p3.json", sub);
        CHECK_STR(l.items[1].path, want);
        CHECK_INT((int)l.items[1].size, 3);
    }
    weir__fs_list_free(&l);
    /* a batch missing after the compaction, then a malformed entry */
    put_file(meta, "4", "v1\n");
    CHECK(weir__spark_sink_files(&l, dir, &err) != 0);
    put_file(meta, "3", "v1\nnot json\n");
    CHECK(weir__spark_sink_files(&l, dir, &err) != 0);
    CHECK(strstr(err.message, "not an entry of Spark's file sink log") != NULL);
    weir__fs_remove_tree(dir, &err);
#undef ADD
}

TEST_MAIN(RUN(test_util_buf__append_and_quote); RUN(test_util_arena__many_allocs);
          RUN(test_util_map__case_insensitive); RUN(test_util_vec__push);
          RUN(test_util_json__parse); RUN(test_util_path__absolute);
          RUN(test_util_path__names);
          RUN(test_util_error__location); RUN(test_util_error__line_of);
          RUN(test_util_str__helpers);
          RUN(test_util_fs__file_names); RUN(test_util_url__schemes);
          RUN(test_util_spark_sink_log))
