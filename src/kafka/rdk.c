/*
 * Loading librdkafka with dlopen the first time a Kafka client is
 * configured (kafka/rdk.h says why). What this file owns: the process's
 * table of librdkafka's functions, written once.
 */
#define WEIR_RDK_LOADER
#include "kafka/rdk.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t rdk_once = PTHREAD_ONCE_INIT;
static weir_rdk rdk_table;
static char rdk_failure[300]; /* why loading failed; "" when it did not */

static void rdk_open(void)
{
    void *h = dlopen(WEIR_RDK_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(rdk_failure, sizeof(rdk_failure), "%s",
                 why ? why : WEIR_RDK_SONAME " not found");
        return;
    }
    void *p;
#define WEIR_RDK_FIND(f)                                                       \
    if (!rdk_failure[0]) {                                                     \
        p = dlsym(h, #f);                                                      \
        if (p)                                                                 \
            memcpy(&rdk_table.f, &p, sizeof(p));                               \
        else                                                                   \
            snprintf(rdk_failure, sizeof(rdk_failure),                         \
                     WEIR_RDK_SONAME " has no function " #f);                  \
    }
    WEIR_RDK_FUNCTIONS(WEIR_RDK_FIND)
#undef WEIR_RDK_FIND
    /* Kept loaded for the life of the process. */
}

/* A failure is the process's answer for good (pthread_once): a library
 * installed later is seen by the next process. */
int weir__rdk_load(weir_error *err)
{
    pthread_once(&rdk_once, rdk_open);
    if (!rdk_failure[0])
        return 0;
    return WEIR_ERR(err, WEIR_ERROR, "KAFKA_LIBRARY_MISSING",
                    "Kafka needs librdkafka (Debian: librdkafka1), which "
                    "cannot be loaded: %s",
                    rdk_failure);
}

const weir_rdk *weir__rdk(void)
{
    return &rdk_table;
}
