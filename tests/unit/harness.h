/*
 * A tiny unit-test harness. A test file defines TEST(name) functions and
 * ends with TEST_MAIN(RUN(a); RUN(b); ...). Checks record a failure and
 * carry on; `-s name` runs only tests whose name contains `name`. The last
 * line printed is "N passed, N failed".
 */
#ifndef WEIR_TEST_HARNESS_H
#define WEIR_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct test_state {
    int failures;     /* in the current test */
    int passed, failed;
    const char *filter;
} test_state;

static test_state T_ = { 0, 0, 0, NULL };

#define TEST(name) static void name(void)

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__,          \
                    __LINE__, #cond);                                         \
            T_.failures++;                                                    \
        }                                                                     \
    } while (0)

#define CHECK_INT(a, b)                                                       \
    do {                                                                      \
        long long a_ = (long long)(a), b_ = (long long)(b);                   \
        if (a_ != b_) {                                                       \
            fprintf(stderr, "  %s:%d: %s == %lld, expected %lld\n", __FILE__, \
                    __LINE__, #a, a_, b_);                                    \
            T_.failures++;                                                    \
        }                                                                     \
    } while (0)

#define CHECK_STR(a, b)                                                       \
    do {                                                                      \
        const char *a_ = (a), *b_ = (b);                                      \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                              \
            fprintf(stderr, "  %s:%d: %s == \"%s\", expected \"%s\"\n",       \
                    __FILE__, __LINE__, #a, a_ ? a_ : "(null)",               \
                    b_ ? b_ : "(null)");                                      \
            T_.failures++;                                                    \
        }                                                                     \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                           \
    do {                                                                      \
        const char *h_ = (hay), *n_ = (needle);                               \
        if (!h_ || !strstr(h_, n_)) {                                         \
            fprintf(stderr, "  %s:%d: \"%s\" does not contain \"%s\"\n",      \
                    __FILE__, __LINE__, h_ ? h_ : "(null)", n_);              \
            T_.failures++;                                                    \
        }                                                                     \
    } while (0)

#define RUN(name)                                                             \
    do {                                                                      \
        if (T_.filter && !strstr(#name, T_.filter))                           \
            break;                                                            \
        T_.failures = 0;                                                      \
        name();                                                               \
        if (T_.failures) {                                                    \
            T_.failed++;                                                      \
            fprintf(stderr, "FAIL %s\n", #name);                              \
        } else {                                                              \
            T_.passed++;                                                      \
        }                                                                     \
    } while (0)

#define TEST_MAIN(body)                                                       \
    int main(int argc, char **argv)                                           \
    {                                                                         \
        for (int i = 1; i + 1 < argc; i++)                                    \
            if (strcmp(argv[i], "-s") == 0)                                   \
                T_.filter = argv[i + 1];                                      \
        body;                                                                 \
        printf("%d passed, %d failed\n", T_.passed, T_.failed);               \
        return T_.failed ? 1 : 0;                                             \
    }

#endif
