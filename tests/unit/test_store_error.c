/*
 * DuckDB's errors as Spark's (store/db.h weir__db_error): the candidates
 * of an ambiguous reference leave out the relations weir made up.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include "store/db.h"

TEST(test_store_error__ambiguous_candidates)
{
    weir_error err = { 0 };
    weir__db_error(&err, "", "Binder Error: Ambiguous reference to column name \"name\" "
                             "(use: \"_p1.name\" or \"_p12.name\")", NULL);
    CHECK_STR(err.error_class, "AMBIGUOUS_REFERENCE");
    CHECK(strstr(err.message, "Reference `name` is ambiguous, could be: [`name`, `name`].") !=
          NULL);
    weir__db_error(&err, "", "Binder Error: Ambiguous reference to column name \"k\" "
                             "(use: \"a.k\" or \"_px.k\")", NULL);
    CHECK(strstr(err.message, "could be: [`a`.`k`, `_px`.`k`].") != NULL);
}

TEST_MAIN(RUN(test_store_error__ambiguous_candidates);)
