/*
 * Fuzz target for the Spark checkpoint reader (sources/spark_checkpoint.c):
 * the input is split at "\n--\n" into the files of a checkpoint folder,
 * in order metadata, offsets/0, commits/0, sources/0/0, sources/0/1,
 * sources/0/1.compact, written to a private temporary folder and read
 * (weir__spark_checkpoint_read, then each file source's log). It must
 * never crash, hang or leak, and every refusal must carry a class and a
 * message.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/spark_checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const FILES[] = { "metadata",    "offsets/0",
                                     "commits/0",   "sources/0/0",
                                     "sources/0/1", "sources/0/1.compact" };
#define N_FILES (sizeof(FILES) / sizeof(FILES[0]))

static char dir[64];

static void path_of(char *out, size_t size, const char *rel)
{
    snprintf(out, size, "%s/%s", dir, rel);
}

/* The folder goes when the process ends. */
static void cleanup(void)
{
    char p[128];
    for (size_t i = 0; i < N_FILES; i++) {
        path_of(p, sizeof(p), FILES[i]);
        unlink(p);
    }
    static const char *const subs[] = { "sources/0", "sources", "commits",
                                        "offsets", "" };
    for (size_t i = 0; i < 5; i++) {
        path_of(p, sizeof(p), subs[i]);
        rmdir(p);
    }
}

static int setup(void)
{
    if (dir[0])
        return 0;
    snprintf(dir, sizeof(dir), "/tmp/weir-fuzz-cp-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    static const char *const subs[] = { "offsets", "commits", "sources",
                                        "sources/0" };
    char p[128];
    for (size_t i = 0; i < 4; i++) {
        path_of(p, sizeof(p), subs[i]);
        if (mkdir(p, 0700) != 0)
            return -1;
    }
    atexit(cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (setup())
        return 0;
    const char *text = (const char *)data, *end = text + size;
    char p[128];
    for (size_t i = 0; i < N_FILES; i++) {
        path_of(p, sizeof(p), FILES[i]);
        unlink(p);
        if (!text)
            continue;
        const char *cut = memmem(text, (size_t)(end - text), "\n--\n", 4);
        size_t len = cut ? (size_t)(cut - text) : (size_t)(end - text);
        FILE *f = fopen(p, "wb");
        if (f) {
            if (len)
                fwrite(text, 1, len, f);
            fclose(f);
        }
        text = cut ? cut + 4 : NULL;
    }
    weir_arena a = WEIR_ARENA_INIT;
    weir_spark_checkpoint sc;
    weir_error err;
    memset(&err, 0, sizeof(err));
    int rc = weir__spark_checkpoint_read(&sc, &a, dir, &err);
    for (size_t i = 0; !rc && i < sc.n_sources; i++)
        if (sc.sources[i].kind == WEIR_SPARK_FILES)
            rc = weir__spark_checkpoint_files(&sc, i, &a, &err);
    if (rc == 0) {
        size_t n = strlen(sc.query_id);
        for (size_t i = 0; i < sc.n_sources; i++) {
            const weir_spark_source *s = &sc.sources[i];
            n += strlen(s->offset);
            for (size_t k = 0; k < s->n_files; k++)
                n += strlen(s->files[k].path);
            for (size_t k = 0; k < s->n_parts; k++)
                n += strlen(s->parts[k].topic);
        }
        if (n == SIZE_MAX)
            abort();
    } else if (rc != WEIR_ENOMEM &&
               (!err.message[0] || (!err.error_class[0] && rc != WEIR_EIO))) {
        abort();
    }
    weir__arena_free(&a);
    return 0;
}
