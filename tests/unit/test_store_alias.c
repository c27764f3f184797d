/*
 * DuckDB aliases of Spark catalogs (store/storage.h): the catalog's own and
 * the one a sample run reads the real storage's file under.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include "store/storage.h"

TEST(test_store_alias__catalog)
{
    char a[300];
    weir__storage_catalog_alias(a, sizeof(a), "Spark_Catalog");
    CHECK_STR(a, "spark_catalog");
    weir__storage_catalog_alias(a, sizeof(a), "MAIN");
    CHECK_STR(a, "main_catalog");
    weir__storage_catalog_alias(a, sizeof(a), WEIR_SYSTEM_ALIAS);
    CHECK_STR(a, WEIR_SYSTEM_ALIAS "_catalog");
}

TEST(test_store_alias__input)
{
    char a[300 + sizeof(WEIR_INPUT_ALIAS_SUFFIX)];
    weir__storage_input_alias(a, sizeof(a), "Sales");
    CHECK_STR(a, "sales" WEIR_INPUT_ALIAS_SUFFIX);
    weir__storage_input_alias(a, sizeof(a), "memory");
    CHECK_STR(a, "memory_catalog" WEIR_INPUT_ALIAS_SUFFIX);
    /* a small buffer truncates, terminated */
    char small[6];
    weir__storage_input_alias(small, sizeof(small), "sales");
    CHECK_STR(small, "sales");
}

TEST_MAIN(RUN(test_store_alias__catalog); RUN(test_store_alias__input);)
