/*
 * Unit tests for src/spec/spark.c: what Apache Spark 4.1 refuses in a spec
 * weir accepts (a storage that is not an absolute URI, the expectations
 * field), located in the spec.
 */
#include "harness.h"

#include "spec/spec.h"

static void findings(weir__findings *out, weir_arena *a, const char *text)
{
    weir_spec *spec = NULL;
    weir_error err;
    memset(out, 0, sizeof(*out));
    weir__arena_init(a);
    CHECK_INT(weir__spec_parse(&spec, "/p/spark-pipeline.yml", text,
                               strlen(text), NULL, &err),
              0);
    if (spec)
        CHECK_INT(weir__spec_spark_findings(out, a, spec), 0);
    weir__spec_free(spec);
}

TEST(test_spec_spark__absolute_uris_are_portable)
{
    /* (weir's storage is local: other schemes are refused when read.) */
    static const char *const ok[] = { "file:///p/st", "file:/p/st" };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        char text[200];
        snprintf(text, sizeof text, "name: p\nstorage: %s\n", ok[i]);
        weir__findings f;
        weir_arena a;
        findings(&f, &a, text);
        CHECK_INT(f.len, 0);
        weir__findings_free(&f);
        weir__arena_free(&a);
    }
}

TEST(test_spec_spark__relative_storage)
{
    static const char *const bad[] = { "pipeline-storage", "/p/st", "./st" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[200];
        snprintf(text, sizeof text, "name: p\nstorage: %s\n", bad[i]);
        weir__findings f;
        weir_arena a;
        findings(&f, &a, text);
        CHECK_INT(f.len, 1);
        if (f.len) {
            const weir_spark_finding *x = &f.items[0];
            CHECK_STR(x->construct, "relative storage");
            CHECK(x->rejected);
            CHECK_STR(x->at.error_class, "PIPELINE_STORAGE_ROOT_INVALID");
            CHECK_STR(x->at.path, "spark-pipeline.yml");
            CHECK(x->at.line == 2 && x->at.column == 10);
            CHECK_CONTAINS(x->at.line_text, "storage:");
            CHECK_CONTAINS(x->portable, "storage: file:///p/");
        }
        weir__findings_free(&f);
        weir__arena_free(&a);
    }
}

TEST(test_spec_spark__expectations_field)
{
    weir__findings f;
    weir_arena a;
    findings(&f, &a,
             "name: p\nstorage: file:///p/st\nexpectations:\n  t:\n"
             "    - name: c\n      expect: x > 0\n");
    CHECK_INT(f.len, 1);
    if (f.len) {
        CHECK_STR(f.items[0].construct, "spec expectations");
        CHECK_STR(f.items[0].at.error_class, "PIPELINE_SPEC_UNEXPECTED_FIELD");
        CHECK(f.items[0].at.line >= 3);
    }
    weir__findings_free(&f);
    weir__arena_free(&a);
}

TEST_MAIN(RUN(test_spec_spark__absolute_uris_are_portable);
          RUN(test_spec_spark__relative_storage);
          RUN(test_spec_spark__expectations_field))
