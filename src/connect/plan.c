/*
 * Spark Connect relations to Spark SQL text (see plan.h). Each relation
 * becomes a query over its child, nested as a derived table, so the rules
 * of Spark SQL name resolution apply unchanged.
 */
#include "connect/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

static int fail(weir__plan_error *err, const char *error_class,
                const char *fmt, ...) WEIR_PRINTF(3, 4);

static int fail(weir__plan_error *err, const char *error_class,
                const char *fmt, ...)
{
    va_list ap;
    snprintf(err->error_class, sizeof err->error_class, "%s", error_class);
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}

static int relation(weir_buf *b, const Spark__Connect__Relation *rel,
                    unsigned depth, weir__plan_error *err)
{
    if (!rel)
        return fail(err, "INTERNAL_ERROR", "A relation is missing its child.");
    if (depth > WEIR_PLAN_MAX_DEPTH)
        return fail(err, "PLAN_TOO_DEEP",
                    "The DataFrame plan is nested more than %d levels deep.",
                    WEIR_PLAN_MAX_DEPTH);
    switch (rel->rel_type_case) {
    case SPARK__CONNECT__RELATION__REL_TYPE_SQL:
        weir__buf_printf(b, "SELECT * FROM (%s)", rel->sql->query);
        return 0;
    case SPARK__CONNECT__RELATION__REL_TYPE_READ: {
        const Spark__Connect__Read *rd = rel->read;
        if (rd->read_type_case == SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE) {
            weir__buf_printf(b, "SELECT * FROM %s%s",
                             rd->is_streaming ? "STREAM " : "",
                             rd->named_table->unparsed_identifier);
            return 0;
        }
        return fail(err, "UNSUPPORTED_FEATURE.CONNECT_RELATION",
                    "This kind of read is not supported yet.");
    }
    default:
        return fail(err, "UNSUPPORTED_FEATURE.CONNECT_RELATION",
                    "Relation kind %d is not supported.",
                    (int)rel->rel_type_case);
    }
}

int weir__plan_relation_sql(const Spark__Connect__Relation *rel, char **out,
                            weir__plan_error *err)
{
    weir_buf b = WEIR_BUF_INIT;
    memset(err, 0, sizeof *err);
    *out = NULL;
    if (relation(&b, rel, 0, err) < 0) {
        weir__buf_free(&b);
        return -1;
    }
    if (weir__buf_failed(&b) || b.len > WEIR_PLAN_MAX_SQL) {
        weir__buf_free(&b);
        return fail(err, "PLAN_TOO_LARGE", "The DataFrame plan is too large.");
    }
    *out = weir__buf_detach(&b);
    return *out ? 0 : fail(err, "OUT_OF_MEMORY", "Out of memory.");
}

int weir__plan_datatype_ddl(const Spark__Connect__DataType *type,
                            int as_columns, char **out,
                            weir__plan_error *err)
{
    (void)type;
    (void)as_columns;
    *out = NULL;
    memset(err, 0, sizeof *err);
    return fail(err, "UNSUPPORTED_FEATURE.CONNECT_DATATYPE",
                "Schemas given as data types are not supported yet.");
}
