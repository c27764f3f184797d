/*
 * Unit tests for src/spec reading and validation (weir__spec_parse): every
 * field, every error class with its line:column, and the YAML corners
 * (JSON form, typing of plain scalars, anchors, merge keys, tags, several
 * documents, nesting, encoding). File discovery and globs are in
 * test_spec_files.c.
 */
#include "harness.h"

#include "spec/spec.h"

#define SPEC_PATH "/proj/spark-pipeline.yml"

static weir__diags D;
static weir_error E;

/* Parse text; the diagnostics land in D. */
static int parse(weir_spec **out, const char *text)
{
    weir__diags_free(&D);
    memset(&E, 0, sizeof(E));
    return weir__spec_parse(out, SPEC_PATH, text, strlen(text), &D, &E);
}

static void dump(void)
{
    for (size_t i = 0; i < D.len; i++)
        fprintf(stderr, "    diag %u:%u %s: %s\n", D.items[i].line,
                D.items[i].column, D.items[i].error_class,
                D.items[i].message);
}

/* A spec that must load. */
static weir_spec *ok(const char *text)
{
    weir_spec *spec = NULL;
    int rc = parse(&spec, text);
    if (rc != 0 || !spec) {
        fprintf(stderr, "  expected success, got %d for:\n%s\n", rc, text);
        dump();
    }
    return spec;
}

/* The spec fails and some diagnostic has class cls at line:col whose
 * message holds msg (NULL = any). */
static bool has(const char *text, const char *cls, unsigned line,
                unsigned col, const char *msg)
{
    weir_spec *spec = NULL;
    int rc = parse(&spec, text);
    bool found = false;
    for (size_t i = 0; i < D.len && !found; i++)
        found = strcmp(D.items[i].error_class, cls) == 0 &&
                D.items[i].line == line && D.items[i].column == col &&
                (!msg || strstr(D.items[i].message, msg)) &&
                D.items[i].code == WEIR_ESPEC &&
                strcmp(D.items[i].path, SPEC_PATH) == 0;
    if (rc != WEIR_ESPEC || spec || !found) {
        fprintf(stderr, "  expected %s at %u:%u (%s), rc %d, for:\n%s\n", cls,
                line, col, msg ? msg : "", rc, text);
        dump();
        weir__spec_free(spec);
        return false;
    }
    return true;
}

/* Exactly one diagnostic, as in has(). */
static bool only(const char *text, const char *cls, unsigned line,
                 unsigned col, const char *msg)
{
    if (!has(text, cls, line, col, msg))
        return false;
    if (D.len != 1) {
        fprintf(stderr, "  expected one problem, got %zu for:\n%s\n", D.len,
                text);
        dump();
        return false;
    }
    return true;
}

/* --- Fields ------------------------------------------------------------------ */

TEST(test_spec_full_yaml)
{
    weir_spec *s = ok("name: sales_pipeline\n"
                      "storage: file:///var/lib/weir/sales\n"
                      "catalog: main\n"
                      "database: analytics\n"
                      "configuration:\n"
                      "  spark.sql.shuffle.partitions: \"1000\"\n"
                      "  mode: fast\n"
                      "libraries:\n"
                      "  - glob:\n"
                      "      include: transformations/**\n"
                      "  - glob: {include: extra/one.sql}\n");
    if (!s)
        return;
    CHECK_STR(s->name, "sales_pipeline");
    CHECK_INT(s->name_pos.line, 1);
    CHECK_INT(s->name_pos.column, 7);
    CHECK_STR(s->storage, "/var/lib/weir/sales");
    CHECK_STR(s->storage_uri, "file:///var/lib/weir/sales");
    CHECK_INT(s->storage_pos.line, 2);
    CHECK_INT(s->storage_pos.column, 10);
    CHECK_STR(s->catalog, "main");
    CHECK_STR(s->database, "analytics");
    CHECK_INT(s->database_pos.line, 4);
    CHECK_STR(s->path, SPEC_PATH);
    CHECK_STR(s->dir, "/proj");
    CHECK_INT(s->n_conf, 2);
    CHECK_STR(s->conf[0].key, "spark.sql.shuffle.partitions");
    CHECK_STR(s->conf[0].value, "1000");
    CHECK_INT(s->conf[0].pos.line, 6);
    CHECK_INT(s->conf[0].pos.column, 3);
    CHECK_INT(s->conf[0].value_pos.column, 33);
    CHECK_STR(s->conf[1].key, "mode");
    CHECK_STR(s->conf[1].value, "fast");
    CHECK_INT(s->n_libraries, 2);
    CHECK_STR(s->libraries[0].include, "transformations/**");
    CHECK_STR(s->libraries[0].pattern, "transformations/**/*");
    CHECK(s->libraries[0].recursive);
    CHECK_INT(s->libraries[0].pos.line, 10);
    CHECK_INT(s->libraries[0].pos.column, 16);
    CHECK_STR(s->libraries[1].include, "extra/one.sql");
    CHECK_STR(s->libraries[1].pattern, "extra/one.sql");
    CHECK(!s->libraries[1].recursive);
    CHECK_INT(s->libraries[1].pos.line, 11);
    CHECK_INT(s->libraries[1].pos.column, 21);
    CHECK_INT(s->n_expectations, 0);
    CHECK(s->text && s->text_len > 0);
    weir__spec_free(s);
}

TEST(test_spec_json_form)
{
    /* Spark's own CLI test: JSON, indented, with a trailing comma. */
    weir_spec *s = ok("\n"
                      "                {\n"
                      "                    \"name\": \"test_pipeline\",\n"
                      "                    \"catalog\": \"test_catalog\",\n"
                      "                    \"schema\": \"test_database\",\n"
                      "                    \"configuration\": {\n"
                      "                        \"key1\": \"value1\",\n"
                      "                        \"key2\": \"value2\"\n"
                      "                    },\n"
                      "                    \"libraries\": [\n"
                      "                        {\"glob\": {\"include\": "
                      "\"test_include\"}}\n"
                      "                    ],\n"
                      "                    \"storage\": \"storage_path\",\n"
                      "                }\n");
    if (!s)
        return;
    CHECK_STR(s->name, "test_pipeline");
    CHECK_STR(s->catalog, "test_catalog");
    CHECK_STR(s->database, "test_database");
    CHECK_INT(s->n_conf, 2);
    CHECK_STR(s->conf[1].key, "key2");
    CHECK_STR(s->conf[1].value, "value2");
    CHECK_INT(s->n_libraries, 1);
    CHECK_STR(s->libraries[0].include, "test_include");
    CHECK_STR(s->storage, "/proj/storage_path");
    CHECK_STR(s->storage_uri, "storage_path");
    CHECK_INT(s->name_pos.line, 3);
    CHECK_INT(s->name_pos.column, 29);
    weir__spec_free(s);
    s = ok("{\"name\":\"p\",\"storage\":\"/s\"}");
    CHECK(s && s->n_conf == 0 && s->n_libraries == 0);
    weir__spec_free(s);
}

TEST(test_spec_database_schema_catalog)
{
    weir_spec *s = ok("name: p\nstorage: s\nschema: sch\n");
    CHECK(s && strcmp(s->database, "sch") == 0 && s->database_pos.line == 3);
    CHECK(s && s->catalog == NULL);
    weir__spec_free(s);
    s = ok("name: p\nstorage: s\nschema: sch\ndatabase: db\n");
    CHECK(s && strcmp(s->database, "db") == 0 && s->database_pos.line == 4);
    weir__spec_free(s);
    /* `database: null` still wins over `schema` (Spark's dict.get). */
    s = ok("name: p\nstorage: s\nschema: sch\ndatabase:\ncatalog: ~\n");
    CHECK(s && s->database == NULL && s->catalog == NULL);
    weir__spec_free(s);
    CHECK(only("name: p\nstorage: s\ncatalog: ''\n",
               "PIPELINE_SPEC_INVALID_FIELD_VALUE", 3, 10, "`catalog`"));
    CHECK(only("name: p\nstorage: s\nschema: [a]\n",
               "PIPELINE_SPEC_INVALID_FIELD_TYPE", 3, 9,
               "Pipeline spec field `schema` should be a string, got list."));
    CHECK(only("name: p\nstorage: s\ndatabase: 12\n",
               "PIPELINE_SPEC_INVALID_FIELD_TYPE", 3, 11, "got int"));
}

TEST(test_spec_storage)
{
    static const struct {
        const char *written, *local;
    } good[] = {
        { "file:///abs/store", "/abs/store" },
        { "file:/abs/store", "/abs/store" },
        { "FILE://localhost/abs/x", "/abs/x" },
        { "file:///a%20b/c%2Fd", "/a b/c/d" },
        { "/abs/./store/../st", "/abs/st" },
        { "pipeline-storage", "/proj/pipeline-storage" },
        { "./a/../b", "/proj/b" },
        { "../up", "/up" },
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        char text[256];
        snprintf(text, sizeof(text), "name: p\nstorage: \"%s\"\n",
                 good[i].written);
        weir_spec *s = ok(text);
        CHECK(s != NULL);
        if (s) {
            CHECK_STR(s->storage, good[i].local);
            CHECK_STR(s->storage_uri, good[i].written);
        }
        weir__spec_free(s);
    }
    const char *cls = "PIPELINE_STORAGE_ROOT_INVALID";
    CHECK(only("name: p\nstorage: s3://bucket/x\n", cls, 2, 10,
               "weir only supports local storage"));
    CHECK(only("name: p\nstorage: hdfs:///x\n", cls, 2, 10, "`hdfs:`"));
    CHECK(only("name: p\nstorage: file://host/x\n", cls, 2, 10,
               "without a host"));
    CHECK(only("name: p\nstorage: file:rel\n", cls, 2, 10, "absolute"));
    CHECK(only("name: p\nstorage: file:///a%zz\n", cls, 2, 10, "percent"));
    CHECK(only("name: p\nstorage: file:///a%00\n", cls, 2, 10, "percent"));
    CHECK(only("name: p\nstorage: ''\n", cls, 2, 10,
               "Storage must be specified to start a run."));
    CHECK(only("name: p\nstorage: {a: b}\n",
               "PIPELINE_SPEC_INVALID_FIELD_TYPE", 2, 10, "got dict"));
}

TEST(test_spec_required_and_unexpected)
{
    CHECK(has("catalog: c\n", "PIPELINE_SPEC_MISSING_REQUIRED_FIELD", 1, 1,
              "Pipeline spec missing required field `name`."));
    CHECK_INT(D.len, 2);
    CHECK(has("catalog: c\n", "PIPELINE_SPEC_MISSING_REQUIRED_FIELD", 1, 1,
              "`storage`"));
    CHECK(only("name: p\nstorage: s\ncatalogtypo: c\n",
               "PIPELINE_SPEC_UNEXPECTED_FIELD", 3, 1,
               "Pipeline spec field `catalogtypo` is unexpected."));
    CHECK(only("name: p\nstorage: s\n1: x\n", "PIPELINE_SPEC_UNEXPECTED_FIELD",
               3, 1, "`1`"));
    CHECK(only("name: p\nstorage: s\n~: x\n", "PIPELINE_SPEC_UNEXPECTED_FIELD",
               3, 1, "`None`"));
    /* Pre-4.1 spellings are not accepted. */
    CHECK(has("name: p\nstorage: s\ndefinitions: []\ntarget: x\n",
              "PIPELINE_SPEC_UNEXPECTED_FIELD", 3, 1, "`definitions`"));
    CHECK(has("name: p\nstorage: s\ndefinitions: []\ntarget: x\n",
              "PIPELINE_SPEC_UNEXPECTED_FIELD", 4, 1, "`target`"));
    /* Both problems at once, in source order; err holds the first. */
    CHECK(has("bogus: 1\nstorage: s\n", "PIPELINE_SPEC_UNEXPECTED_FIELD", 1,
              1, NULL));
    CHECK_INT(D.len, 2);
    CHECK_STR(D.items[0].error_class, "PIPELINE_SPEC_UNEXPECTED_FIELD");
    CHECK_STR(D.items[1].error_class, "PIPELINE_SPEC_MISSING_REQUIRED_FIELD");
    CHECK_STR(E.error_class, "PIPELINE_SPEC_UNEXPECTED_FIELD");
    CHECK_INT(E.code, WEIR_ESPEC);
    CHECK_STR(E.line_text, "bogus: 1");
}

TEST(test_spec_name_types)
{
    const char *cls = "PIPELINE_SPEC_INVALID_FIELD_TYPE";
    CHECK(only("name: [a]\nstorage: s\n", cls, 1, 7,
               "Pipeline spec field `name` should be a string, got list."));
    CHECK(only("name: 42\nstorage: s\n", cls, 1, 7, "got int"));
    CHECK(only("name:\nstorage: s\n", cls, 1, 6, "got NoneType"));
    CHECK(only("name: yes\nstorage: s\n", cls, 1, 7, "got bool"));
    CHECK(only("name: 2024-01-02\nstorage: s\n", cls, 1, 7, "got date"));
    CHECK(only("name: \"a\\0b\"\nstorage: s\n",
               "PIPELINE_SPEC_INVALID_FIELD_VALUE", 1, 7, "NUL"));
    weir_spec *s = ok("name: '42'\nstorage: s\n");
    CHECK(s && strcmp(s->name, "42") == 0);
    weir__spec_free(s);
    s = ok("name: !!str 42\nstorage: !!str s\n");
    CHECK(s && strcmp(s->name, "42") == 0);
    weir__spec_free(s);
}

TEST(test_spec_configuration)
{
    CHECK(only("name: p\nstorage: s\nconfiguration: not_a_dict\n",
               "PIPELINE_SPEC_FIELD_NOT_DICT", 3, 16,
               "Pipeline spec field `configuration` should be a dict, got "
               "str."));
    CHECK(only("name: p\nstorage: s\nconfiguration: [a]\n",
               "PIPELINE_SPEC_FIELD_NOT_DICT", 3, 16, "got list"));
    CHECK(only("name: p\nstorage: s\nconfiguration:\n",
               "PIPELINE_SPEC_FIELD_NOT_DICT", 3, 15, "got NoneType"));
    CHECK(only("name: p\nstorage: s\nconfiguration:\n  1: x\n",
               "PIPELINE_SPEC_DICT_KEY_NOT_STRING", 4, 3,
               "For pipeline spec field `configuration`, key should be a "
               "string, got int."));
    CHECK(only("name: p\nstorage: s\nconfiguration:\n  true: x\n",
               "PIPELINE_SPEC_DICT_KEY_NOT_STRING", 4, 3, "got bool"));
    const char *v = "PIPELINE_SPEC_DICT_VALUE_NOT_STRING";
    const char *text = "name: p\n"
                       "storage: s\n"
                       "configuration:\n"
                       "  a: 1000\n"
                       "  b: true\n"
                       "  c: 1.5\n"
                       "  d:\n"
                       "  e: {x: y}\n"
                       "  f: Off\n"
                       "  g: 0x1F\n"
                       "  h: \"1000\"\n"
                       "  i: 1e5\n"
                       "  j: 1:30\n";
    CHECK(has(text, v, 4, 6,
              "For pipeline spec field `configuration`, value for key `a` "
              "should be a string, got int."));
    CHECK_INT(D.len, 8);
    CHECK(has(text, v, 5, 6, "got bool"));
    CHECK(has(text, v, 6, 6, "got float"));
    CHECK(has(text, v, 7, 5, "got NoneType"));
    CHECK(has(text, v, 8, 6, "got dict"));
    CHECK(has(text, v, 9, 6, "got bool"));
    CHECK(has(text, v, 10, 6, "got int"));
    CHECK(has(text, v, 13, 6, "got int")); /* YAML 1.1 sexagesimal */
    weir_spec *s = ok("name: p\nstorage: s\nconfiguration:\n  h: \"1000\"\n"
                      "  i: 1e5\n  j: 'true'\n  k: ! 1x\n  l: !!str 7\n"
                      "  m: >-\n    folded\n    text\n");
    if (s) {
        CHECK_INT(s->n_conf, 6);
        CHECK_STR(s->conf[1].value, "1e5"); /* not a float in YAML 1.1 */
        CHECK_STR(s->conf[4].value, "7");
        CHECK_STR(s->conf[5].value, "folded text");
    }
    weir__spec_free(s);
    s = ok("name: p\nstorage: s\nconfiguration: {}\n");
    CHECK(s && s->n_conf == 0);
    weir__spec_free(s);
}

/* --- Libraries -------------------------------------------------------------- */

TEST(test_spec_libraries_shapes)
{
    const char *cls = "PIPELINE_SPEC_INVALID_LIBRARY";
    CHECK(only("name: p\nstorage: s\nlibraries: x.sql\n",
               "PIPELINE_SPEC_INVALID_FIELD_TYPE", 3, 12,
               "Pipeline spec field `libraries` should be a list, got str."));
    CHECK(only("name: p\nstorage: s\nlibraries:\n",
               "PIPELINE_SPEC_INVALID_FIELD_TYPE", 3, 11, "got NoneType"));
    CHECK(only("name: p\nstorage: s\nlibraries:\n  - x.sql\n", cls, 4, 5,
               "A `libraries` entry should be a dict, got str"));
    CHECK(only("name: p\nstorage: s\nlibraries:\n  - {}\n", cls, 4, 5,
               "missing the `glob` key"));
    CHECK(only("name: p\nstorage: s\nlibraries:\n  - notebook: {path: x}\n",
               cls, 4, 5, "Unsupported `libraries` entry `notebook`"));
    CHECK(only("name: p\nstorage: s\nlibraries:\n  - glob: x.sql\n", cls, 4,
               11, "`glob` in a `libraries` entry should be a dict, got str"));
    CHECK(only("name: p\nstorage: s\nlibraries:\n  - glob: {}\n", cls, 4, 11,
               "missing the `include` key"));
    CHECK(only("name: p\nstorage: s\nlibraries:\n  - glob:\n      include: "
               "[a, b]\n",
               "PIPELINE_SPEC_INVALID_FIELD_TYPE", 5, 16,
               "`libraries.glob.include` should be a string, got list"));
    CHECK(only("name: p\nstorage: s\nlibraries:\n  - glob:\n      include: "
               "a.sql\n      exclude: b.sql\n",
               cls, 6, 7, "Unexpected key `exclude` in `glob`"));
    CHECK(only("name: p\nstorage: s\nlibraries:\n  - glob: {include: a.sql}\n"
               "    file: x\n",
               cls, 5, 5, "Unexpected key `file` in a `libraries` entry"));
    weir_spec *s = ok("name: p\nstorage: s\nlibraries: []\n");
    CHECK(s && s->n_libraries == 0);
    weir__spec_free(s);
}

TEST(test_spec_glob_patterns)
{
    static const struct {
        const char *include, *pattern;
        bool recursive;
    } good[] = {
        { "src/main.py", "src/main.py", false },
        { "data/file.sql", "data/file.sql", false },
        { "src/**", "src/**/*", true },
        { "transformations/**", "transformations/**/*", true },
        { "notebooks/production/**", "notebooks/production/**/*", true },
        { "./**", "./**/*", true },
        { "../shared/**", "../shared/**/*", true },
        { "odd name.sql", "odd name.sql", false },
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        char text[256];
        snprintf(text, sizeof(text),
                 "name: p\nstorage: s\nlibraries:\n  - glob:\n      "
                 "include: '%s'\n",
                 good[i].include);
        weir_spec *s = ok(text);
        CHECK(s && s->n_libraries == 1);
        if (s && s->n_libraries == 1) {
            CHECK_STR(s->libraries[0].include, good[i].include);
            CHECK_STR(s->libraries[0].pattern, good[i].pattern);
            CHECK_INT(s->libraries[0].recursive, good[i].recursive);
        }
        weir__spec_free(s);
    }
    static const char *const bad[] = {
        "transformations/**/*.py", "src/**/utils/*.py", "*/main.py",
        "src/*/test/*.py", "**/*.py", "data/*/file.sql", "*.sql",
        "a?.sql", "[ab].sql", "**", "src/*", "/abs/path.sql", "/abs/**",
        ".", "./", "",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[256];
        snprintf(text, sizeof(text),
                 "name: p\nstorage: s\nlibraries:\n  - glob:\n      "
                 "include: '%s'\n",
                 bad[i]);
        char want[128];
        snprintf(want, sizeof(want), "Invalid glob pattern `%s`", bad[i]);
        CHECK(only(text, "PIPELINE_SPEC_INVALID_GLOB_PATTERN", 5, 16, want));
    }
    /* Every bad entry is reported; good ones around them are kept. */
    CHECK(has("name: p\nstorage: s\nlibraries:\n"
              "  - glob: {include: '*.sql'}\n"
              "  - glob: {include: ok/**}\n"
              "  - glob: {include: 'x/**/*.sql'}\n",
              "PIPELINE_SPEC_INVALID_GLOB_PATTERN", 6, 21, "x/**/*.sql"));
    CHECK_INT(D.len, 2);
    CHECK_INT(D.items[0].line, 4);
}

/* --- Expectations (weir) ---------------------------------------------------- */

TEST(test_spec_expectations)
{
    weir_spec *s = ok("name: p\nstorage: s\n"
                      "expectations:\n"
                      "  sales:\n"
                      "    - name: positive\n"
                      "      expect: amount > 0\n"
                      "      on_violation: drop\n"
                      "    - {name: has_id, expect: \"id IS NOT NULL\"}\n"
                      "  db.customers:\n"
                      "    - {name: c, expect: 'x = 1', on_violation: FAIL}\n"
                      "  \"`odd.name`.t\":\n"
                      "    - {name: q, expect: y, on_violation: quarantine}\n"
                      "  cat.db.empty: []\n");
    if (!s)
        return;
    CHECK_INT(s->n_expectations, 4);
    const weir_spec_expectation *e = s->expectations;
    CHECK_STR(e[0].dataset, "sales");
    CHECK_STR(e[0].name, "positive");
    CHECK_STR(e[0].condition, "amount > 0");
    CHECK_STR(e[0].action, "drop");
    CHECK_INT(e[0].on_violation, WEIR_EXPECT_DROP);
    CHECK_INT(e[0].pos.line, 5);
    CHECK_INT(e[0].pos.column, 7);
    CHECK_INT(e[0].dataset_pos.line, 4);
    CHECK_INT(e[0].condition_pos.line, 6);
    CHECK_INT(e[0].condition_pos.column, 15);
    CHECK_STR(e[1].name, "has_id");
    CHECK_STR(e[1].action, "warn");
    CHECK_INT(e[1].on_violation, WEIR_EXPECT_WARN);
    CHECK_STR(e[2].dataset, "db.customers");
    CHECK_STR(e[2].action, "fail");
    CHECK_INT(e[2].on_violation, WEIR_EXPECT_FAIL);
    CHECK_STR(e[3].dataset, "`odd.name`.t");
    CHECK_INT(e[3].on_violation, WEIR_EXPECT_QUARANTINE);
    weir__spec_free(s);
}

TEST(test_spec_expectations_errors)
{
    const char *cls = "PIPELINE_SPEC_INVALID_EXPECTATION";
    CHECK(only("name: p\nstorage: s\nexpectations: [a]\n",
               "PIPELINE_SPEC_FIELD_NOT_DICT", 3, 15, "`expectations`"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  t: {name: a}\n", cls, 4,
               6, "should be a list, got dict"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  t: [x > 0]\n", cls, 4,
               7, "should be a dict"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  a.b.c.d: []\n", cls, 4,
               3, "`a.b.c.d` is not a dataset name"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  a..b: []\n", cls, 4, 3,
               "not a dataset name"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  1: []\n", cls, 4, 3,
               "`1` is not a dataset name"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  t:\n    - expect: x\n",
               cls, 5, 7, "missing `name`"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  t:\n    - name: n\n",
               cls, 5, 7, "missing `expect`"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  t:\n"
               "    - {name: n, expect: 1}\n",
               cls, 5, 25, "`expect` of an expectation of dataset `t` should "
                           "be a string, got int"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  t:\n"
               "    - {name: '', expect: x}\n",
               cls, 5, 14, "should not be empty"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  t:\n"
               "    - {name: n, expect: x, on_violation: explode}\n",
               cls, 5, 42, "one of warn, drop, fail, quarantine; got "
                           "`explode`"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  t:\n"
               "    - {name: n, expect: x, on_violation: [drop]}\n",
               cls, 5, 42, "got list"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  t:\n"
               "    - {name: n, expect: x, level: 3}\n",
               cls, 5, 28, "Unexpected key `level` in an expectation"));
    CHECK(only("name: p\nstorage: s\nexpectations:\n  t:\n"
               "    - {name: n, expect: x}\n    - {name: n, expect: y}\n",
               cls, 6, 14, "Duplicate expectation name `n` for dataset `t`"));
    /* The same name on two datasets is fine. */
    weir_spec *s = ok("name: p\nstorage: s\nexpectations:\n"
                      "  t: [{name: n, expect: x}]\n"
                      "  u: [{name: n, expect: x}]\n");
    CHECK(s && s->n_expectations == 2);
    weir__spec_free(s);
}

/* --- YAML ------------------------------------------------------------------- */

TEST(test_spec_yaml_syntax_errors)
{
    const char *cls = "PIPELINE_SPEC_YAML_ERROR";
    CHECK(only("name: n\nstorage: s\n  bad: indent\n", cls, 3, 6,
               "mapping values are not allowed"));
    CHECK_STR(D.items[0].line_text, "  bad: indent");
    CHECK(only("name: \"unterminated\nstorage: s\n", cls, 3, 1,
               "while scanning a quoted scalar started at line 1, column 7"));
    CHECK(only("{\"name\": \"p\", \"storage\": \"s\"\n", cls, 2, 1, NULL));
    CHECK(only("name: n\nstorage: [a, b\n", cls, 3, 1, NULL));
    CHECK(only("name: p\n\tstorage: s\n", cls, 2, 1, NULL));
    /* Invalid UTF-8 is reported at its byte. */
    CHECK(only("name: p\nstorage: \xff\n", cls, 2, 10, "UTF-8"));
    CHECK(only("name: p\nstorage: s\x01\n", cls, 2, 11, NULL));
}

TEST(test_spec_empty_and_not_a_dict)
{
    CHECK(only("", "PIPELINE_SPEC_EMPTY", 1, 1, "empty"));
    CHECK(only("# only a comment\n\n", "PIPELINE_SPEC_EMPTY", 1, 1, NULL));
    CHECK(only("---\n...\n", "PIPELINE_SPEC_EMPTY", 2, 1, NULL));
    CHECK(only("~\n", "PIPELINE_SPEC_EMPTY", 1, 1, NULL));
    CHECK(only("- a\n- b\n", "PIPELINE_SPEC_NOT_A_DICT", 1, 1, "got list"));
    CHECK(only("just text\n", "PIPELINE_SPEC_NOT_A_DICT", 1, 1, "got str"));
    CHECK(only("42", "PIPELINE_SPEC_NOT_A_DICT", 1, 1, "got int"));
    CHECK(only("!!set {a, b}\n", "PIPELINE_SPEC_NOT_A_DICT", 1, 1,
               "got set"));
}

TEST(test_spec_documents)
{
    CHECK(only("name: p\nstorage: s\n---\nname: q\n",
               "PIPELINE_SPEC_YAML_ERROR", 3, 1,
               "expected a single document in the stream"));
    weir_spec *s = ok("%YAML 1.1\n---\nname: p\nstorage: s\n...\n");
    CHECK(s && strcmp(s->name, "p") == 0);
    weir__spec_free(s);
}

TEST(test_spec_duplicate_keys)
{
    const char *cls = "PIPELINE_SPEC_DUPLICATE_KEY";
    CHECK(only("name: p\nstorage: s\nname: q\n", cls, 3, 1,
               "Duplicate key `name` in a mapping (first defined at line 1, "
               "column 1)."));
    CHECK(only("name: p\nstorage: s\nconfiguration:\n  a: '1'\n  a: '2'\n",
               cls, 5, 3, "`a`"));
    /* Other problems are still reported alongside. */
    CHECK(has("name: p\nstorage: s\nname: q\nfoo: 1\n", cls, 3, 1, NULL));
    CHECK(has("name: p\nstorage: s\nname: q\nfoo: 1\n",
              "PIPELINE_SPEC_UNEXPECTED_FIELD", 4, 1, NULL));
    CHECK_INT(D.len, 2);
    /* `1` and "1" are different keys. */
    CHECK(only("name: p\nstorage: s\nconfiguration: {1: a, '1': b}\n",
               "PIPELINE_SPEC_DICT_KEY_NOT_STRING", 3, 17, NULL));
}

TEST(test_spec_anchors_and_aliases)
{
    weir_spec *s = ok("name: &n shared\nstorage: *n\n"
                      "configuration: &c {a: '1'}\n"
                      "expectations:\n"
                      "  t: &e [{name: x, expect: y}]\n"
                      "  u: *e\n");
    if (s) {
        CHECK_STR(s->storage, "/proj/shared");
        CHECK_INT(s->storage_pos.line, 2); /* the alias, not the anchor */
        CHECK_INT(s->storage_pos.column, 10);
        CHECK_INT(s->n_expectations, 2);
        CHECK_STR(s->expectations[1].dataset, "u");
    }
    weir__spec_free(s);
    const char *cls = "PIPELINE_SPEC_YAML_ERROR";
    CHECK(only("name: *nope\nstorage: s\n", cls, 1, 7,
               "found undefined alias 'nope'"));
    CHECK(only("name: &a [*a]\nstorage: s\n", cls, 1, 11, "recursive alias"));
    CHECK(only("name: &a p\nstorage: &a s\n", cls, 2, 10,
               "found duplicate anchor 'a'; first occurrence at line 1, "
               "column 7"));
    /* Billion laughs: aliases share nodes, so this is instant. */
    const char *laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                         "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                         "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                         "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                         "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                         "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                         "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
                         "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
                         "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n"
                         "name: p\nstorage: s\n"
                         "libraries: *i\n";
    CHECK(has(laughs, "PIPELINE_SPEC_UNEXPECTED_FIELD", 1, 1, NULL));
    /* Entries reached through an alias point where they were written. */
    CHECK(has(laughs, "PIPELINE_SPEC_INVALID_LIBRARY", 9, 8,
              "should be a dict, got list"));
    CHECK_INT(D.len, 19); /* 9 fields + 10 entries */
}

TEST(test_spec_merge_keys)
{
    /* PyYAML's order: {'b': '2', 'c': '4', 'a': '0', 'd': '5'}. */
    weir_spec *s = ok("name: n\nstorage: s\n"
                      "configuration:\n"
                      "  <<: [&x {a: '1', b: '2'}, {b: '3', c: '4'}]\n"
                      "  d: '5'\n"
                      "  a: '0'\n");
    if (s) {
        CHECK_INT(s->n_conf, 4);
        CHECK_STR(s->conf[0].key, "b");
        CHECK_STR(s->conf[0].value, "2");
        CHECK_STR(s->conf[1].key, "c");
        CHECK_STR(s->conf[2].key, "a");
        CHECK_STR(s->conf[2].value, "0");
        CHECK_INT(s->conf[2].pos.line, 6);
        CHECK_STR(s->conf[3].key, "d");
    }
    weir__spec_free(s);
    CHECK(has("base: &b {name: p, storage: s}\n<<: *b\n",
              "PIPELINE_SPEC_UNEXPECTED_FIELD", 1, 1, "`base`"));
    CHECK_INT(D.len, 1); /* name and storage came through the merge */
    CHECK(only("name: p\nstorage: s\nconfiguration: {<<: 3}\n",
               "PIPELINE_SPEC_YAML_ERROR", 3, 21,
               "expected a mapping or list of mappings for merging, but "
               "found scalar"));
    CHECK(only("name: p\nstorage: s\nconfiguration: {<<: [{a: b}, c]}\n",
               "PIPELINE_SPEC_YAML_ERROR", 3, 30,
               "expected a mapping for merging, but found scalar"));
    CHECK(only("name: p\nstorage: s\ncatalog: <<\n",
               "PIPELINE_SPEC_YAML_ERROR", 3, 10, "yaml.org,2002:merge"));
    /* A quoted "<<" is an ordinary key. */
    CHECK(only("name: p\nstorage: s\n'<<': 1\n",
               "PIPELINE_SPEC_UNEXPECTED_FIELD", 3, 1, "`<<`"));
}

TEST(test_spec_tags)
{
    const char *cls = "PIPELINE_SPEC_YAML_ERROR";
    CHECK(only("name: p\nstorage: s\ncatalog: !foo x\n", cls, 3, 10,
               "could not determine a constructor for the tag '!foo'"));
    CHECK(only("name: !!map x\nstorage: s\n", cls, 1, 7,
               "expected a mapping node, but found scalar"));
    CHECK(only("name: !!str [x]\nstorage: s\n", cls, 1, 7,
               "expected a scalar node, but found sequence"));
    CHECK(only("name: !!seq {a: b}\nstorage: s\n", cls, 1, 7,
               "expected a sequence node, but found mapping"));
    CHECK(only("name: !!int '5'\nstorage: s\n",
               "PIPELINE_SPEC_INVALID_FIELD_TYPE", 1, 7, "got int"));
    CHECK(only("name: !!binary aGk=\nstorage: s\n",
               "PIPELINE_SPEC_INVALID_FIELD_TYPE", 1, 7, "got bytes"));
    CHECK(only("name: p\nstorage: s\nconfiguration: !!omap [{a: b}]\n",
               "PIPELINE_SPEC_FIELD_NOT_DICT", 3, 16, "got omap"));
    CHECK(only("name: p\nstorage: s\nconfiguration:\n  ? [a]\n  : b\n", cls, 4,
               5, "found unhashable key"));
    CHECK(only("name: p\nstorage: s\ncatalog: =\n", cls, 3, 10,
               "yaml.org,2002:value"));
    weir_spec *s = ok("!!map {name: !!str p, storage: !<tag:yaml.org,2002:str> "
                      "s, catalog: ! 'c'}\n");
    CHECK(s && strcmp(s->catalog, "c") == 0);
    weir__spec_free(s);
}

TEST(test_spec_deep_nesting)
{
    char text[4096];
    size_t n = 0;
    n += (size_t)snprintf(text, sizeof(text), "name: p\nstorage: s\nx: ");
    for (int i = 0; i < 1000; i++)
        text[n++] = '[';
    text[n] = '\0';
    CHECK(only(text, "PIPELINE_SPEC_YAML_ERROR", 3, 259, "deeper than 256"));
}

TEST(test_spec_too_many_problems)
{
    char *text = malloc(200 * 16 + 64);
    size_t n = (size_t)sprintf(text, "name: p\nstorage: s\n");
    for (int i = 0; i < 200; i++)
        n += (size_t)sprintf(text + n, "f%d: 1\n", i);
    weir_spec *s = NULL;
    CHECK_INT(parse(&s, text), WEIR_ESPEC);
    CHECK_INT(D.len, WEIR_SPEC_MAX_PROBLEMS + 1);
    CHECK_STR(D.items[D.len - 1].error_class, "PIPELINE_SPEC_TOO_MANY_ERRORS");
    CHECK_INT(D.items[0].line, 3);
    free(text);
}

TEST(test_spec_positions_and_line_text)
{
    /* Columns count characters; CRLF and a BOM-less UTF-8 file. */
    CHECK(only("name: p\r\nstorage: s\r\nconfiguration: {\xc3\xa9t\xc3\xa9: 1}\r\n",
               "PIPELINE_SPEC_DICT_VALUE_NOT_STRING", 3, 22, "`\xc3\xa9t\xc3\xa9`"));
    CHECK_STR(D.items[0].line_text, "configuration: {\xc3\xa9t\xc3\xa9: 1}");
    CHECK(only("name: p\rstorage: s\rbad: 1\r", "PIPELINE_SPEC_UNEXPECTED_FIELD",
               3, 1, NULL));
    CHECK_STR(D.items[0].line_text, "bad: 1");
    CHECK(only("\xef\xbb\xbfname: p\nstorage: s\nbad: 1\n",
               "PIPELINE_SPEC_UNEXPECTED_FIELD", 3, 1, NULL));
    /* Messages stay short for huge keys (an explicit `?` key has no
     * length limit). */
    char big[1200];
    memset(big, 'k', sizeof(big));
    memcpy(big, "name: p\nstorage: s\n? ", 21);
    memcpy(big + sizeof(big) - 6, "\n: 1\n", 6);
    big[sizeof(big) - 1] = '\0';
    if (only(big, "PIPELINE_SPEC_UNEXPECTED_FIELD", 3, 3, "kkk"))
        CHECK(strlen(D.items[0].message) < 300);
}

TEST(test_spec_parse_misc)
{
    /* NULL diagnostics: err still gets the first problem. */
    weir_spec *s = NULL;
    weir_error err;
    const char *text = "name: p\nbogus: 1\n";
    CHECK_INT(weir__spec_parse(&s, SPEC_PATH, text, strlen(text), NULL, &err),
              WEIR_ESPEC);
    CHECK(s == NULL);
    CHECK_STR(err.error_class, "PIPELINE_SPEC_UNEXPECTED_FIELD");
    CHECK_INT(err.line, 2);
    /* Text is not required to be NUL-terminated. */
    const char buf[] = { 'n', 'a', 'm', 'e', ':', ' ', 'p', '\n', 's', 't',
                         'o', 'r', 'a', 'g', 'e', ':', ' ', 's', 'X' };
    CHECK_INT(weir__spec_parse(&s, "rel/spark-pipeline.yml", buf,
                               sizeof(buf) - 1, NULL, &err),
              0);
    CHECK(s && strcmp(s->storage_uri, "s") == 0);
    CHECK(s && s->path[0] == '/');
    weir__spec_free(s);
    weir__spec_free(NULL);
    /* Appends to existing diagnostics. */
    weir__diags d = { NULL, 0, 0, 0 };
    weir_error first = { .code = WEIR_ESQL };
    weir__diags_add(&d, &first);
    CHECK_INT(weir__spec_parse(&s, SPEC_PATH, text, strlen(text), &d, NULL),
              WEIR_ESPEC);
    CHECK_INT(d.len, 3);
    CHECK_INT(d.items[0].code, WEIR_ESQL);
    weir__diags_free(&d);
}

TEST_MAIN(RUN(test_spec_full_yaml); RUN(test_spec_json_form);
          RUN(test_spec_database_schema_catalog); RUN(test_spec_storage);
          RUN(test_spec_required_and_unexpected); RUN(test_spec_name_types);
          RUN(test_spec_configuration); RUN(test_spec_libraries_shapes);
          RUN(test_spec_glob_patterns); RUN(test_spec_expectations);
          RUN(test_spec_expectations_errors);
          RUN(test_spec_yaml_syntax_errors);
          RUN(test_spec_empty_and_not_a_dict); RUN(test_spec_documents);
          RUN(test_spec_duplicate_keys); RUN(test_spec_anchors_and_aliases);
          RUN(test_spec_merge_keys); RUN(test_spec_tags);
          RUN(test_spec_deep_nesting); RUN(test_spec_too_many_problems);
          RUN(test_spec_positions_and_line_text); RUN(test_spec_parse_misc);
          weir__diags_free(&D))
