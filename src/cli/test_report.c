/*
 * The reports of `weir test`: JUnit XML (the testsuites / testsuite /
 * testcase / failure shape CI tools read, one testsuite per test file)
 * and one JSON document with every result, both in definition order.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

double test_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Text as XML character data or attribute value. Characters XML 1.0
 * cannot hold (controls other than tab and line breaks) become '?'. */
static void xml_put(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        case '\t':
        case '\n':
        case '\r': fputc(ch, out); break;
        default: fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, out); break;
        }
    }
}

/* "tests/orders.yml" -> "tests.orders", JUnit's class name. */
static void put_classname(FILE *out, const char *path)
{
    const char *dot = strrchr(path, '.');
    size_t n = dot ? (size_t)(dot - path) : strlen(path);
    for (size_t i = 0; i < n; i++)
        fputc(path[i] == '/' ? '.' : path[i], out);
}

static void put_case(FILE *out, const weir_test_result *r)
{
    fputs("    <testcase name=\"", out);
    xml_put(out, r->name);
    fputs("\" classname=\"", out);
    put_classname(out, r->path);
    fputs("\" file=\"", out);
    xml_put(out, r->path);
    fprintf(out, "\" line=\"%u\" time=\"%.3f\"", r->line, r->seconds);
    if (r->status == WEIR_TEST_PASSED) {
        fputs("/>\n", out);
        return;
    }
    fputs(">\n      <failure message=\"", out);
    xml_put(out, r->message);
    fputs("\" type=\"", out);
    xml_put(out, r->failure_class ? r->failure_class : "FAILED");
    fputs("\">", out);
    xml_put(out, r->message);
    if (r->details) {
        fputc('\n', out);
        xml_put(out, r->details);
    }
    fputs("</failure>\n    </testcase>\n", out);
}

bool test_report_junit(const char *path, const weir_test_suite *s,
                       double seconds)
{
    FILE *out = fopen(path, "w");
    if (!out)
        return false;
    size_t n = weir_test_suite_count(s), failed = 0;
    for (size_t i = 0; i < n; i++) {
        const weir_test_result *r = weir_test_suite_result(s, i);
        failed += r && r->status == WEIR_TEST_FAILED;
    }
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out,
            "<testsuites name=\"weir test\" tests=\"%zu\" failures=\"%zu\" "
            "errors=\"0\" time=\"%.3f\">\n",
            n, failed, seconds);
    /* One testsuite per file, files in order of their first test. */
    for (size_t i = 0; i < n; i++) {
        const weir_test_result *first = weir_test_suite_result(s, i);
        bool earlier = false;
        for (size_t j = 0; first && j < i && !earlier; j++) {
            const weir_test_result *o = weir_test_suite_result(s, j);
            earlier = o && strcmp(o->path, first->path) == 0;
        }
        if (!first || earlier)
            continue;
        size_t tests = 0, fails = 0;
        double time = 0;
        for (size_t j = i; j < n; j++) {
            const weir_test_result *r = weir_test_suite_result(s, j);
            if (!r || strcmp(r->path, first->path) != 0)
                continue;
            tests++;
            fails += r->status == WEIR_TEST_FAILED;
            time += r->seconds;
        }
        fputs("  <testsuite name=\"", out);
        put_classname(out, first->path);
        fprintf(out,
                "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" "
                "time=\"%.3f\" timestamp=\"%s\" file=\"",
                tests, fails, time, stamp);
        xml_put(out, first->path);
        fputs("\">\n", out);
        for (size_t j = i; j < n; j++) {
            const weir_test_result *r = weir_test_suite_result(s, j);
            if (r && strcmp(r->path, first->path) == 0)
                put_case(out, r);
        }
        fputs("  </testsuite>\n", out);
    }
    fputs("</testsuites>\n", out);
    bool ok = !ferror(out);
    return fclose(out) == 0 && ok;
}

void test_report_json(FILE *out, const weir_test_suite *s, double seconds)
{
    size_t n = weir_test_suite_count(s), failed = 0;
    fputs("{\"tests\": [", out);
    for (size_t i = 0; i < n; i++) {
        const weir_test_result *r = weir_test_suite_result(s, i);
        if (!r)
            continue;
        failed += r->status == WEIR_TEST_FAILED;
        fputs(i ? ", {\"name\": " : "{\"name\": ", out);
        json_put_string(out, r->name);
        fputs(", \"file\": ", out);
        json_put_string(out, r->path);
        fprintf(out, ", \"line\": %u, \"status\": \"%s\", \"seconds\": %.3f, "
                     "\"steps_run\": %u, \"failure_class\": ",
                r->line, r->status == WEIR_TEST_PASSED ? "passed" : "failed",
                r->seconds, r->steps_run);
        json_put_string(out, r->failure_class);
        fputs(", \"message\": ", out);
        json_put_string(out, r->message);
        fputs(", \"details\": ", out);
        json_put_string(out, r->details);
        fputc('}', out);
    }
    fprintf(out,
            "], \"summary\": {\"tests\": %zu, \"passed\": %zu, \"failed\": %zu, "
            "\"seconds\": %.3f}}\n",
            n, n - failed, failed, seconds);
}
