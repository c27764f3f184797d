/*
 * Unit tests of the checkpoint store's records of table reads
 * (state/table_reads.c): the fingerprint of the latest batch only, the
 * sample of row hashes kept to its smallest WEIR_CHECKPOINT_SAMPLE_MAX and
 * marked incomplete once trimmed, a rebase that empties it, a big batch's
 * sample found under a bound (and whole when duplicates defeat it), and
 * the sources of a batch.
 */
#define _DEFAULT_SOURCE
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "state/checkpoint.h"
#include "store/storage.h"
#include "util/fs.h"

typedef struct fixture {
    char dir[64];
    weir_storage *st;
    weir_error err;
    weir_checkpoint cp;
} fixture;

static int setup(fixture *fx)
{
    memset(fx, 0, sizeof(*fx));
    snprintf(fx->dir, sizeof(fx->dir), "/tmp/weir-test-checkpoint-XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    char *root = weir__path_join(fx->dir, "storage");
    int rc = weir__storage_open(&fx->st, root, WEIR_STORAGE_RUN, NULL,
                                weir__state_schema(), &fx->err);
    free(root);
    if (!rc)
        rc = weir__storage_use_catalog(fx->st, "spark_catalog", "default",
                                       &fx->err);
    weir_checkpoint cp = { fx->st ? fx->st->conn : NULL, "spark_catalog",
                           "c.d.f", "c.d.t", "u1", &fx->err };
    fx->cp = cp;
    return rc;
}

static void teardown(fixture *fx)
{
    weir__storage_close(fx->st);
    weir__fs_remove_tree(fx->dir, NULL);
}

static int64_t count(fixture *fx, const char *sql)
{
    int64_t n = -1;
    weir__conn_scalar_i64(fx->st->conn, sql, &n, NULL, &fx->err);
    return n;
}

/* One batch: its checkpoint row and its table read. */
static int batch(fixture *fx, int64_t id, const char *source, int64_t rows,
                 const char *hash, bool rebase, const char *hashes)
{
    weir_checkpoint_row row = { source, 0, rows };
    weir_checkpoint_table_read r = { false, "id\x1fINTEGER", rows, hash, true };
    int rc = weir__checkpoint_add_batch(&fx->cp, 0, id, &row, 1, rows);
    if (!rc)
        rc = weir__checkpoint_table_add(&fx->cp, 0, id, source, &r, rebase,
                                        hashes, rows);
    return rc;
}

TEST(test_checkpoint__table_read_latest_batch)
{
    fixture fx;
    CHECK_INT(setup(&fx), 0);
    weir_arena a = WEIR_ARENA_INIT;
    weir_checkpoint_table_read r;
    /* Nothing recorded yet. */
    CHECK_INT(weir__checkpoint_table_read(&fx.cp, 0, "s", &a, &r), 0);
    CHECK(!r.found);
    CHECK_INT(batch(&fx, 0, "s", 10, "123", true,
                    "SELECT hash(range) FROM range(10)"), 0);
    CHECK_INT(batch(&fx, 1, "s", 12, "18446744073709551617", false,
                    "SELECT hash(range) FROM range(10, 12)"), 0);
    CHECK_INT(weir__checkpoint_table_read(&fx.cp, 0, "s", &a, &r), 0);
    CHECK(r.found);
    CHECK_INT(r.rows, 12);
    CHECK_STR(r.hash, "18446744073709551617"); /* a HUGEINT sum */
    CHECK_STR(r.columns, "id\x1fINTEGER");
    CHECK(r.complete);
    CHECK_INT(count(&fx, "SELECT count(*) FROM spark_catalog._weir.table_sample"),
              12);
    /* Another generation, another source: nothing. */
    CHECK_INT(weir__checkpoint_table_read(&fx.cp, 1, "s", &a, &r), 0);
    CHECK(!r.found);
    CHECK_INT(weir__checkpoint_table_read(&fx.cp, 0, "other", &a, &r), 0);
    CHECK(!r.found);
    /* A checkpoint row without its table read (storage written before
     * they were kept): the older record is not used. */
    weir_checkpoint_row row = { "s", 0, 13 };
    CHECK_INT(weir__checkpoint_add_batch(&fx.cp, 0, 2, &row, 1, 1), 0);
    CHECK_INT(weir__checkpoint_table_read(&fx.cp, 0, "s", &a, &r), 0);
    CHECK(!r.found);
    /* The batch's sources. */
    weir_rows *rows = NULL;
    CHECK_INT(weir__checkpoint_batch_sources(&fx.cp, 0, 2, &rows), 0);
    CHECK_INT((int64_t)rows->n_rows, 1);
    CHECK_STR(weir__rows_get(rows, 0, 0), "s");
    weir__rows_free(rows);
    weir__arena_free(&a);
    teardown(&fx);
}

TEST(test_checkpoint__sample_trimmed_and_rebased)
{
    fixture fx;
    CHECK_INT(setup(&fx), 0);
    weir_arena a = WEIR_ARENA_INIT;
    weir_checkpoint_table_read r;
    int n = WEIR_CHECKPOINT_SAMPLE_MAX;
    char sql[256];
    /* Duplicates count once; more distinct hashes than kept: the smallest
     * stay and the sample is incomplete from then on. */
    snprintf(sql, sizeof(sql),
             "SELECT hash(range %% %d) FROM range(%d)", n + 10, 2 * n);
    CHECK_INT(batch(&fx, 0, "s", 2 * n, "1", true, sql), 0);
    CHECK_INT(weir__checkpoint_table_read(&fx.cp, 0, "s", &a, &r), 0);
    CHECK(r.found);
    CHECK(!r.complete);
    CHECK_INT(count(&fx, "SELECT count(*) FROM spark_catalog._weir.table_sample"),
              n);
    snprintf(sql, sizeof(sql),
             "SELECT count(*) FROM (SELECT hash(range) AS h FROM range(%d) "
             "ORDER BY h LIMIT %d) WHERE h NOT IN (SELECT hash FROM "
             "spark_catalog._weir.table_sample)", n + 10, n);
    CHECK_INT(count(&fx, sql), 0);
    /* A small batch after it does not make it complete again. */
    CHECK_INT(batch(&fx, 1, "s", 2 * n + 1, "2", false, "SELECT hash(-1)"), 0);
    CHECK_INT(weir__checkpoint_table_read(&fx.cp, 0, "s", &a, &r), 0);
    CHECK(!r.complete);
    /* A rebase starts the sample again from its own rows. */
    CHECK_INT(batch(&fx, 2, "s", 3, "3", true,
                    "SELECT hash(range) FROM range(3)"), 0);
    CHECK_INT(weir__checkpoint_table_read(&fx.cp, 0, "s", &a, &r), 0);
    CHECK(r.complete);
    CHECK_INT(count(&fx, "SELECT count(*) FROM spark_catalog._weir.table_sample"),
              3);
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "SELECT count(*) FROM ");
    weir__checkpoint_put_sample(&q, &fx.cp, 0, "s");
    weir__buf_puts(&q, " AS s");
    CHECK_INT(count(&fx, weir__buf_cstr(&q)), 3);
    weir__buf_free(&q);
    weir__arena_free(&a);
    teardown(&fx);
}

/* Rows of the sample that are not the smallest n distinct hashes of
 * `values` (a subquery of one column, v), plus how far its size is off. */
static int64_t sample_wrong(fixture *fx, const char *values, int n)
{
    char sql[512];
    snprintf(sql, sizeof(sql),
             "SELECT (SELECT count(*) FROM (SELECT hash FROM "
             "spark_catalog._weir.table_sample EXCEPT SELECT h FROM (SELECT "
             "DISTINCT hash(v) AS h FROM (%s) ORDER BY h LIMIT %d))) + abs("
             "(SELECT count(*) FROM spark_catalog._weir.table_sample) - %d)",
             values, n, n);
    return count(fx, sql);
}

TEST(test_checkpoint__big_batch_sample_exact)
{
    fixture fx;
    CHECK_INT(setup(&fx), 0);
    weir_arena a = WEIR_ARENA_INIT;
    weir_checkpoint_table_read r;
    int n = WEIR_CHECKPOINT_SAMPLE_MAX;
    char sql[256];
    /* A batch big enough for the bound: distinct rows. */
    CHECK_INT(batch(&fx, 0, "s", 1000000, "1", true,
                    "SELECT hash(range) FROM range(1000000)"), 0);
    CHECK_INT(sample_wrong(&fx, "SELECT range AS v FROM range(1000000)", n), 0);
    CHECK_INT(weir__checkpoint_table_read(&fx.cp, 0, "s", &a, &r), 0);
    CHECK(!r.complete);
    /* Each row ten times: under the bound too few distinct hashes, so the
     * whole batch is looked at; the sample is still the smallest. */
    snprintf(sql, sizeof(sql),
             "SELECT hash(range %% %d) FROM range(%d)", 150000, 1500000);
    CHECK_INT(batch(&fx, 1, "s", 1500000, "2", true, sql), 0);
    CHECK_INT(sample_wrong(&fx, "SELECT range AS v FROM range(150000)", n), 0);
    /* Fewer distinct hashes than kept, in a big batch: all of them, and
     * the sample is complete. */
    CHECK_INT(batch(&fx, 2, "s", 1000000, "3", true,
                    "SELECT hash(range % 5000) FROM range(1000000)"), 0);
    CHECK_INT(sample_wrong(&fx, "SELECT range AS v FROM range(5000)", 5000), 0);
    CHECK_INT(weir__checkpoint_table_read(&fx.cp, 0, "s", &a, &r), 0);
    CHECK(r.complete);
    weir__arena_free(&a);
    teardown(&fx);
}

TEST_MAIN(RUN(test_checkpoint__table_read_latest_batch);
          RUN(test_checkpoint__sample_trimmed_and_rebased);
          RUN(test_checkpoint__big_batch_sample_exact))
