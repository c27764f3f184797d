/*
 * libFuzzer target: weir__plan_relation_sql, the Spark Connect plan to
 * Spark SQL translator. Every input is decoded as a spark.connect.Relation
 * (most are not one) and translated: it must give SQL or an error, never
 * crash, leak or hang. The input is bounded because protobuf-c decodes
 * nested messages recursively (the server bounds message size the same
 * way).
 */
#include <stdint.h>
#include <stdlib.h>

#include "connect/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16384)
        return 0;
    Spark__Connect__Relation *r = spark__connect__relation__unpack(NULL, size, data);
    if (!r)
        return 0;
    char *sql = NULL;
    weir__plan_error err;
    if (weir__plan_relation_sql(r, &sql, &err) == 0)
        free(sql);
    spark__connect__relation__free_unpacked(r, NULL);
    return 0;
}
