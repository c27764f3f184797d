/*
 * Unit tests of the Kafka source's options (sources/kafka_opts.c): the
 * named arguments of read_kafka(...) as parsed from SQL, decoded or
 * refused with INVALID_KAFKA_OPTION.
 */
#include <string.h>

#include "harness.h"
#include "sources/kafka.h"
#include "sql/sql.h"

/* Parse "SELECT * FROM STREAM read_kafka(<args>)" and decode its options;
 * the error's message (or "") in *msg. */
static int opts_of(weir_kafka_opts *o, weir_arena *a, const char *args,
                   const char **msg)
{
    const char *text = weir__arena_printf(
        a, "SELECT * FROM STREAM read_kafka(%s)", args);
    weir_sql_source s = { "p.sql", text, strlen(text), NULL, 0, NULL, 0, false };
    weir_sql_query *q = NULL;
    weir_sql_reads r;
    weir_error err;
    memset(&err, 0, sizeof(err));
    int rc = weir__sql_parse_query(&q, a, &s, 0, s.len, &err);
    if (!rc)
        rc = weir__sql_query_reads(&r, a, q, &err);
    if (!rc)
        rc = r.n_tvfs == 1 ? weir__kafka_opts(o, a, &r.tvfs[0], &err) : -1;
    *msg = rc ? weir__arena_strdup(a, err.message) : "";
    if (rc && strcmp(err.error_class, "INVALID_KAFKA_OPTION"))
        fprintf(stderr, "  class %s: %s\n", err.error_class, err.message);
    return rc;
}

TEST(test_kafka_opts__defaults_and_subscribe)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_kafka_opts o;
    const char *msg;
    CHECK_INT(opts_of(&o, &a, "bootstrapServers => 'h:1', subscribe => ' a, b ,c'",
                      &msg), 0);
    CHECK_STR(o.bootstrap, "h:1");
    CHECK_INT(o.sub, WEIR_KAFKA_SUBSCRIBE);
    CHECK_INT(o.n_topics, 3);
    CHECK_STR(o.topics[0], "a");
    CHECK_STR(o.topics[1], "b");
    CHECK_STR(o.topics[2], "c");
    CHECK_INT(o.starting, -1); /* latest */
    CHECK(o.fail_on_data_loss);
    CHECK(!o.include_headers);
    CHECK_INT(o.max_per_trigger, 0);
    weir__arena_free(&a);
}

TEST(test_kafka_opts__backquoted_and_values)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_kafka_opts o;
    const char *msg;
    CHECK_INT(opts_of(&o, &a,
                      "`kafka.bootstrap.servers` => 'h:1', SUBSCRIBEPATTERN => "
                      "'t.*', maxOffsetsPerTrigger => 500, failOnDataLoss => "
                      "false, includeHeaders => 'true', `kafka.client.id` => "
                      "'me', groupIdPrefix => 'ignored'",
                      &msg), 0);
    CHECK_STR(o.bootstrap, "h:1");
    CHECK_INT(o.sub, WEIR_KAFKA_SUBSCRIBE_PATTERN);
    CHECK_STR(o.sub_text, "t.*");
    CHECK_INT(o.max_per_trigger, 500);
    CHECK(!o.fail_on_data_loss);
    CHECK(o.include_headers);
    CHECK_INT(o.n_client, 1);
    CHECK_STR(o.client[0].key, "kafka.client.id");
    weir__arena_free(&a);
}

TEST(test_kafka_opts__offsets_json)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_kafka_opts o;
    const char *msg;
    CHECK_INT(opts_of(&o, &a,
                      "bootstrapServers => 'h:1', assign => '{\"t\": [0, 2], "
                      "\"u\": [1]}', startingOffsets => '{\"t\": {\"0\": 23, "
                      "\"2\": -2}, \"u\": {\"1\": -1}}'",
                      &msg), 0);
    CHECK_INT(o.n_assigned, 3);
    CHECK_STR(o.assigned[1].topic, "t");
    CHECK_INT(o.assigned[1].partition, 2);
    CHECK_INT(o.starting, 0);
    CHECK_INT(o.n_start_at, 3);
    CHECK_INT(o.start_at[0].offset, 23);
    CHECK_INT(o.start_at[1].partition, 2);
    CHECK_INT(o.start_at[1].offset, -2);
    CHECK_STR(o.start_at[2].topic, "u");
    CHECK_INT(o.start_at[2].offset, -1);
    CHECK_INT(opts_of(&o, &a, "bootstrapServers => 'h:1', subscribe => 't', "
                              "startingOffsets => 'EARLIEST'", &msg), 0);
    CHECK_INT(o.starting, -2);
    weir__arena_free(&a);
}

TEST(test_kafka_opts__refused)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_kafka_opts o;
    const char *msg;
    static const char *const cases[][2] = {
        { "subscribe => 't'", "needs the brokers" },
        { "bootstrapServers => 'h:1'", "needs one of subscribe" },
        { "bootstrapServers => 'h:1', subscribe => 't', assign => '{\"t\":[0]}'",
          "not 'subscribe' and 'assign'" },
        { "bootstrapServers => 'h:1', `kafka.bootstrap.servers` => 'h:2', "
          "subscribe => 't'", "both name the brokers" },
        { "bootstrapServers => 'h:1', subscribe => 't', subscribe => 'u'",
          "given twice" },
        { "bootstrapServers => 'h:1', subscribe => 't', nope => 1",
          "unknown option 'nope'" },
        { "bootstrapServers => 'h:1', subscribe => ' , '", "names no topic" },
        { "bootstrapServers => 'h:1', assign => '[0]'", "assign must be a JSON" },
        { "bootstrapServers => 'h:1', assign => '{\"t\": [-1]}'",
          "not a number >= 0" },
        { "bootstrapServers => 'h:1', subscribe => 't', startingOffsets => "
          "'{\"t\": {\"x\": 1}}'", "partition 'x' that is not a number" },
        { "bootstrapServers => 'h:1', subscribe => 't', startingOffsets => "
          "'{\"t\": {\"0\": -3}}'", "must be a number >= -2" },
        { "bootstrapServers => 'h:1', assign => '{\"t\": [0]}', "
          "startingOffsets => '{\"t\": {\"1\": 5}}'",
          "names t partition 1, which assign does not" },
        { "bootstrapServers => 'h:1', subscribe => 't', maxOffsetsPerTrigger "
          "=> 'many'", "maxOffsetsPerTrigger must be a number > 0" },
        { "bootstrapServers => 'h:1', subscribe => 't', failOnDataLoss => "
          "'maybe'", "must be true or false" },
        { "bootstrapServers => 'h:1', subscribe => 't', `kafka.bogus.x` => 1",
          "not a setting of the Kafka client" },
        { "bootstrapServers => 'h:1', subscribe => upper('t')",
          "needs a literal value" },
        { "'h:1', subscribe => 't'", "arguments must be named" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = opts_of(&o, &a, cases[i][0], &msg);
        CHECK(rc != 0);
        CHECK_CONTAINS(msg, cases[i][1]);
    }
    weir__arena_free(&a);
}

TEST_MAIN(RUN(test_kafka_opts__defaults_and_subscribe);
          RUN(test_kafka_opts__backquoted_and_values);
          RUN(test_kafka_opts__offsets_json); RUN(test_kafka_opts__refused);)
