/*
 * Unit tests for environments and variable substitution in src/spec:
 * weir__spec_substitute (every form of `${key}`, unbound variables with
 * their line:column, text left as is), weir__spec_set_conf (overrides) and
 * weir__spec_apply_environment (a weir-environments.yml in a temporary
 * folder).
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "harness.h"

#include <stdlib.h>
#include <unistd.h>

#include "spec/spec.h"

static const weir_spec_conf CONF[] = {
    { "a", "1", { 0, 0 }, { 0, 0 } },
    { "name", "orders", { 0, 0 }, { 0, 0 } },
    { "a", "2", { 0, 0 }, { 0, 0 } }, /* the last one wins */
};

static char *subst(const char *text, int *rc, weir__diags *d)
{
    char *out = NULL;
    size_t len = 0;
    weir_error e;
    *rc = weir__spec_substitute(&out, &len, text, strlen(text), CONF, 3,
                                "f.sql", d, &e);
    if (out)
        CHECK_INT(len, strlen(out));
    return out;
}

TEST(test_substitute_forms)
{
    int rc;
    char *s = subst("SELECT ${a}, '${name}' -- ${spark:a} ${sparkconf:a} "
                    "${hiveconf:a} ${hivevar:a}\n$ {a} $a ${} ${a b} $",
                    &rc, NULL);
    CHECK_INT(rc, 0);
    CHECK_STR(s, "SELECT 2, 'orders' -- 2 2 2 2\n$ {a} $a ${} ${a b} $");
    free(s);
    s = subst("no variables", &rc, NULL);
    CHECK_STR(s, "no variables");
    free(s);
    s = subst("unclosed ${a", &rc, NULL);
    CHECK_INT(rc, 0);
    CHECK_STR(s, "unclosed ${a");
    free(s);
}

TEST(test_substitute_unbound)
{
    weir__diags d = { 0 };
    int rc;
    char *s = subst("SELECT 1\n  , ${nope} + ${a} + ${env:HOME}\n", &rc, &d);
    CHECK(s == NULL);
    CHECK_INT(rc, WEIR_ESQL);
    CHECK_INT(d.len, 2);
    if (d.len == 2) {
        CHECK_STR(d.items[0].error_class, "UNBOUND_SQL_VARIABLE");
        CHECK_STR(d.items[0].path, "f.sql");
        CHECK_INT(d.items[0].line, 2);
        CHECK_INT(d.items[0].column, 5);
        CHECK_CONTAINS(d.items[0].message, "`nope`");
        CHECK_INT(d.items[1].line, 2);
        CHECK_INT(d.items[1].column, 22);
        CHECK_CONTAINS(d.items[1].message, "`env:HOME`");
    }
    weir__diags_free(&d);
}

TEST(test_substitution_switch)
{
    weir_spec_conf off[] = { { "spark.sql.variable.substitute", "FALSE",
                               { 0, 0 }, { 0, 0 } } };
    CHECK(!weir__spec_substitution_on(off, 1));
    CHECK(weir__spec_substitution_on(CONF, 3));
    CHECK(weir__spec_substitution_on(NULL, 0));
}

static const char *SPEC = "name: p\nstorage: st\ndatabase: db\n"
                          "configuration:\n  a: \"1\"\n  b: \"2\"\n";

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static const char *conf_of(const weir_spec *s, const char *key)
{
    for (size_t i = 0; i < s->n_conf; i++)
        if (strcmp(s->conf[i].key, key) == 0)
            return s->conf[i].value;
    return NULL;
}

TEST(test_environment_and_overrides)
{
    char dir[] = "/tmp/weir-unit-env-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char spec_path[600];
    snprintf(spec_path, sizeof spec_path, "%s/spark-pipeline.yml", dir);
    write_file(dir, "spark-pipeline.yml", SPEC);
    weir__diags d = { 0 };
    weir_error e;
    weir_spec *s = NULL;

    /* No environments file. */
    CHECK_INT(weir__spec_load(&s, spec_path, &d, &e), 0);
    CHECK_INT(weir__spec_apply_environment(s, "dev", &d, &e), WEIR_ESPEC);
    CHECK_STR(e.error_class, "ENVIRONMENTS_FILE_NOT_FOUND");
    weir__spec_free(s);
    weir__diags_free(&d);

    write_file(dir, WEIR_ENV_FILE,
               "dev:\n  storage: dev-st\n  catalog: cat\n"
               "  configuration:\n    b: \"20\"\n    c: \"30\"\n"
               "prod: {}\n");
    CHECK_INT(weir__spec_load(&s, spec_path, &d, &e), 0);
    CHECK_INT(weir__spec_apply_environment(s, "dev", &d, &e), 0);
    CHECK_CONTAINS(s->storage, "/dev-st");
    CHECK_STR(s->catalog, "cat");
    CHECK_STR(s->database, "db"); /* kept from the spec */
    CHECK_INT(s->n_conf, 3);
    CHECK_STR(conf_of(s, "a"), "1");
    CHECK_STR(conf_of(s, "b"), "20");
    CHECK_STR(conf_of(s, "c"), "30");
    CHECK_INT(weir__spec_set_conf(s, "a", "x=y", &d, &e), 0);
    CHECK_INT(weir__spec_set_conf(s, "new", "v", &d, &e), 0);
    CHECK_STR(conf_of(s, "a"), "x=y");
    CHECK_STR(conf_of(s, "new"), "v");
    CHECK_INT(s->n_conf, 4);
    weir__spec_free(s);

    CHECK_INT(weir__spec_load(&s, spec_path, &d, &e), 0);
    CHECK_INT(weir__spec_apply_environment(s, "staging", &d, &e), WEIR_ESPEC);
    CHECK_STR(e.error_class, "UNKNOWN_ENVIRONMENT");
    CHECK_INT(e.line, 1);
    CHECK_INT(e.column, 1);
    CHECK_CONTAINS(e.message, "`dev`, `prod`");
    CHECK_CONTAINS(e.path, WEIR_ENV_FILE);
    weir__spec_free(s);
    weir__diags_free(&d);

    write_file(dir, WEIR_ENV_FILE, "dev:\n  catalog: 3\n  extra: x\n");
    CHECK_INT(weir__spec_load(&s, spec_path, &d, &e), 0);
    CHECK_INT(weir__spec_apply_environment(s, "dev", &d, &e), WEIR_ESPEC);
    CHECK_INT(d.len, 2);
    CHECK_INT(e.line, 2);
    CHECK_INT(e.column, 12);
    weir__spec_free(s);
    weir__diags_free(&d);

    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, WEIR_ENV_FILE);
    unlink(path);
    unlink(spec_path);
    rmdir(dir);
}

TEST_MAIN(RUN(test_substitute_forms); RUN(test_substitute_unbound);
          RUN(test_substitution_switch); RUN(test_environment_and_overrides))
