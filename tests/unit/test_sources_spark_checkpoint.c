/*
 * Unit tests of the Spark checkpoint reader (sources/spark_checkpoint.c):
 * small folders in Spark's layout written to a temporary folder; the
 * committed batch, the file source log with a .compact file, file: URIs,
 * Kafka offsets, and the refusals. Real Spark checkpoints are imported by
 * tests/e2e/cases/import-checkpoint.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "sources/spark_checkpoint.h"
#include "util/fs.h"

static char root[256];

static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    char *dir = weir__path_dirname(path);
    weir_error e;
    weir__fs_mkdirs(dir, &e);
    free(dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void fresh(void)
{
    weir_error e;
    if (root[0])
        weir__fs_remove_tree(root, &e);
    snprintf(root, sizeof(root), "%s/weir-spark-cp-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root))
        root[0] = '\0';
    put("metadata", "{\"id\":\"q-1\"}\n");
}

#define META "{\"batchWatermarkMs\":0,\"batchTimestampMs\":1,\"conf\":{}}\n"

/* Read root; the error message (or "") in *msg. */
static int read_cp(weir_spark_checkpoint *sc, weir_arena *a, const char **msg)
{
    weir_error e;
    memset(&e, 0, sizeof(e));
    int rc = weir__spark_checkpoint_read(sc, a, root, &e);
    for (size_t i = 0; !rc && i < sc->n_sources; i++)
        if (sc->sources[i].kind == WEIR_SPARK_FILES)
            rc = weir__spark_checkpoint_files(sc, i, a, &e);
    *msg = rc ? weir__arena_printf(a, "[%s] %s", e.error_class, e.message) : "";
    return rc;
}

TEST(test_spark_cp__file_log_compact_and_uris)
{
    weir_arena a = WEIR_ARENA_INIT;
    fresh();
    /* Batches 0..11 planned, 0..11 committed; the source log was compacted
     * at 9; batch 12's files were logged but not committed. */
    for (int b = 0; b <= 11; b++) {
        char name[64], text[256];
        snprintf(name, sizeof(name), "offsets/%d", b);
        snprintf(text, sizeof(text), "v1\n" META "{\"logOffset\":%d}\n", b);
        put(name, text);
        snprintf(name, sizeof(name), "commits/%d", b);
        put(name, "v1\n{\"nextBatchWatermarkMs\":0}");
    }
    put("offsets/.12.tmp", "v1\n");
    put("sources/0/9.compact",
        "v1\n{\"path\":\"file:///in/a%20b.json\",\"timestamp\":5,\"batchId\":0}\n"
        "{\"path\":\"file:/in/c.json\",\"timestamp\":6,\"batchId\":9}\n");
    put("sources/0/3", "v1\n{\"path\":\"file:///gone\",\"timestamp\":1,\"batchId\":3}\n");
    put("sources/0/10", "v1\n{\"path\":\"file:///in/d.json\",\"timestamp\":7,\"batchId\":10}\n");
    put("sources/0/11", "v1\r\n{\"path\":\"file:///in/e.json\",\"timestamp\":8,\"batchId\":11}\r\n"
                        "{\"path\":\"file:///in/late.json\",\"timestamp\":9,\"batchId\":12}\n");
    weir_spark_checkpoint sc;
    const char *msg;
    CHECK_INT(read_cp(&sc, &a, &msg), 0);
    CHECK_STR(msg, "");
    CHECK_STR(sc.query_id, "q-1");
    CHECK_INT(sc.batch_id, 11);
    CHECK_INT(sc.n_sources, 1);
    CHECK_INT(sc.sources[0].kind, WEIR_SPARK_FILES);
    CHECK_INT(sc.sources[0].log_offset, 11);
    CHECK_INT(sc.sources[0].n_files, 4); /* not sources/0/3: compacted */
    if (sc.sources[0].n_files == 4) {
        CHECK_STR(sc.sources[0].files[0].path, "/in/a b.json");
        CHECK_INT(sc.sources[0].files[0].timestamp, 5);
        CHECK_STR(sc.sources[0].files[1].path, "/in/c.json");
        CHECK_STR(sc.sources[0].files[2].path, "/in/d.json");
        CHECK_STR(sc.sources[0].files[3].path, "/in/e.json");
    }
    weir__arena_free(&a);
}

TEST(test_spark_cp__kafka_offsets)
{
    weir_arena a = WEIR_ARENA_INIT;
    fresh();
    put("offsets/0", "v1\n" META "{\"t1\":{\"0\":3,\"1\":0},\"t2\":{\"4\":12}}\n");
    put("commits/0", "v2\n{\"nextBatchWatermarkMs\":0,\"stateUniqueIds\":{}}\n");
    weir_spark_checkpoint sc;
    const char *msg;
    CHECK_INT(read_cp(&sc, &a, &msg), 0);
    CHECK_STR(msg, "");
    CHECK_INT(sc.sources[0].kind, WEIR_SPARK_KAFKA);
    CHECK_INT(sc.sources[0].n_parts, 3);
    if (sc.sources[0].n_parts == 3) {
        CHECK_STR(sc.sources[0].parts[0].topic, "t1");
        CHECK_INT(sc.sources[0].parts[0].partition, 0);
        CHECK_INT(sc.sources[0].parts[0].offset, 3);
        CHECK_STR(sc.sources[0].parts[2].topic, "t2");
        CHECK_INT(sc.sources[0].parts[2].partition, 4);
        CHECK_INT(sc.sources[0].parts[2].offset, 12);
    }
    weir__arena_free(&a);
}

TEST(test_spark_cp__refused)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_spark_checkpoint sc;
    const char *msg;
    static const char *const cases[][4] = {
        /* offsets/1, commits/1 ("" = none), extra file, expected */
        { "v1\n" META "{\"logOffset\":1}\n", "", "",
          "[IMPORT_CHECKPOINT_INCOMPLETE] " },
        { "v3\n" META "{\"logOffset\":1}\n", "v1\n{}", "",
          "is written in log version v3, weir reads up to v1" },
        { "v1\n" META "7\n", "v1\n{}", "", "a source whose offset is a number" },
        { "v1\n" META "{\"sourceVersion\":1,\"reservoirId\":\"x\"}\n", "v1\n{}",
          "", "source 0 is a Delta table source" },
        { "v1\n" META "-\n", "v1\n{}", "", "source 0 has no offset" },
        { "v1\n" META "{\"t\":{\"x\":1}}\n", "v1\n{}", "", "invalid partition" },
        { "v1\n" META "{\"logOffset\":1}\n", "v1\n{}", "state/0/0/1.delta",
          "operator 0" },
        { "v1\n" META "{\"logOffset\":1}\n", "v1\n{}", "sources/0/0",
          "sources/0/1 is missing" },
        { "v1\n" META "{\"logOffset\":0}\n", "v1\n{}", "sources/0/0",
          "weir imports file sources of local files" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fresh();
        put("offsets/0", "v1\n" META "{\"logOffset\":0}\n");
        put("commits/0", "v1\n{}");
        put("offsets/1", cases[i][0]);
        if (*cases[i][1])
            put("commits/1", cases[i][1]);
        if (*cases[i][2])
            put(cases[i][2], strstr(cases[i][3], "local")
                                 ? "v1\n{\"path\":\"s3a://b/k.json\","
                                   "\"timestamp\":1,\"batchId\":0}\n"
                                 : "v1\n{\"path\":\"/in/k.json\","
                                   "\"timestamp\":1,\"batchId\":0}\n");
        CHECK(read_cp(&sc, &a, &msg) != 0);
        CHECK_CONTAINS(msg, cases[i][3]);
    }
    fresh();
    unlink(weir__arena_printf(&a, "%s/metadata", root));
    CHECK(read_cp(&sc, &a, &msg) != 0);
    CHECK_CONTAINS(msg, "is not a Structured Streaming checkpoint");
    fresh();
    CHECK(read_cp(&sc, &a, &msg) != 0);
    CHECK_CONTAINS(msg, "has no batch: offsets/ is missing");
    weir_error e;
    weir__fs_remove_tree(root, &e);
    CHECK(read_cp(&sc, &a, &msg) != 0);
    CHECK_CONTAINS(msg, "[IMPORT_CHECKPOINT_NOT_FOUND]");
    weir__arena_free(&a);
}

TEST_MAIN(RUN(test_spark_cp__file_log_compact_and_uris);
          RUN(test_spark_cp__kafka_offsets); RUN(test_spark_cp__refused);)
