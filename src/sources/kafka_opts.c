/*
 * The options of read_kafka(...) (see kafka.h and docs/kafka.md): Spark's
 * Kafka source options as named arguments, checked before anything
 * connects, so that a dry run reports them.
 */
#include "sources/kafka.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kafka/kafka.h"
#include "util/json.h"
#include "util/str.h"

static int bad(weir_error *err, const weir_sql_arg *a, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(weir_error *err, const weir_sql_arg *a, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    WEIR_ERR(err, WEIR_ESQL, "INVALID_KAFKA_OPTION", "read_kafka(): %s", msg);
    if (err && a && a->pos.line) {
        err->line = a->pos.line;
        err->column = a->pos.column;
    }
    return WEIR_ESQL;
}

/* Spark options that mean nothing here: accepted, no effect. */
static bool ignored(const char *k)
{
    static const char *const names[] = {
        "groupIdPrefix", "kafka.group.id", "minPartitions", "maxTriggerDelay",
        "minOffsetsPerTrigger", "fetchOffset.numRetries",
        "fetchOffset.retryIntervalMs", "kafkaConsumer.pollTimeoutMs",
        "startingOffsetsByTimestampStrategy", "endingOffsets",
        "kafka.auto.offset.reset", "kafka.enable.auto.commit",
        "kafka.key.deserializer", "kafka.value.deserializer",
        "kafka.interceptor.classes"
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (weir__str_ieq(k, names[i]))
            return true;
    return false;
}

static bool parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* subscribe => 'a, b': the names, trimmed. */
static int split_topics(weir_kafka_opts *o, weir_arena *a, const char *v,
                        const weir_sql_arg *arg, weir_error *err)
{
    size_t cap = 1;
    for (const char *p = v; *p; p++)
        cap += *p == ',';
    o->topics = weir__arena_array(a, cap, sizeof(char *));
    if (!o->topics)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (const char *p = v;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t'))
            p++, len--;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len) {
            char *t = weir__arena_strndup(a, p, len);
            if (!t)
                return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
            o->topics[o->n_topics++] = t;
        }
        if (!e)
            break;
        p = e + 1;
    }
    if (!o->n_topics)
        return bad(err, arg, "subscribe names no topic: '%s'", v);
    return 0;
}

/* assign => '{"t": [0, 1]}' */
static int parse_assign(weir_kafka_opts *o, weir_arena *a, const char *v,
                        const weir_sql_arg *arg, weir_error *err)
{
    weir_json *j = NULL;
    weir_error je;
    if (weir__json_parse(&j, a, v, strlen(v), &je) || j->type != WEIR_JSON_OBJECT)
        return bad(err, arg,
                   "assign must be a JSON object of topics and partition "
                   "lists, like {\"topicA\":[0,1]}, not '%s'", v);
    size_t n = 0;
    for (size_t i = 0; i < j->len; i++) {
        if (j->items[i]->type != WEIR_JSON_ARRAY)
            return bad(err, arg, "assign: topic '%s' needs a list of "
                                 "partitions", j->keys[i]);
        n += j->items[i]->len;
    }
    o->assigned = weir__arena_array(a, n + 1, sizeof(*o->assigned));
    if (!o->assigned)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < j->len; i++)
        for (size_t k = 0; k < j->items[i]->len; k++) {
            const weir_json *p = j->items[i]->items[k];
            int64_t id;
            if (p->type != WEIR_JSON_NUMBER || !parse_i64(p->text, &id) ||
                id < 0 || id > INT32_MAX)
                return bad(err, arg, "assign: topic '%s' has a partition that "
                                     "is not a number >= 0", j->keys[i]);
            weir_kafka_opt_partition *ap = &o->assigned[o->n_assigned++];
            ap->topic = j->keys[i];
            ap->partition = (int32_t)id;
            ap->offset = 0;
        }
    if (!o->n_assigned)
        return bad(err, arg, "assign names no partition: '%s'", v);
    return 0;
}

/* startingOffsets => 'earliest' | 'latest' | '{"t": {"0": 23, "1": -2}}' */
static int parse_starting(weir_kafka_opts *o, weir_arena *a, const char *v,
                          const weir_sql_arg *arg, weir_error *err)
{
    if (weir__str_ieq(v, "earliest")) {
        o->starting = -2;
        return 0;
    }
    if (weir__str_ieq(v, "latest")) {
        o->starting = -1;
        return 0;
    }
    weir_json *j = NULL;
    weir_error je;
    if (weir__json_parse(&j, a, v, strlen(v), &je) || j->type != WEIR_JSON_OBJECT)
        return bad(err, arg,
                   "startingOffsets must be 'earliest', 'latest' or JSON like "
                   "{\"topicA\":{\"0\":23,\"1\":-2}} (-2 earliest, -1 latest), "
                   "not '%s'", v);
    size_t n = 0;
    for (size_t i = 0; i < j->len; i++) {
        if (j->items[i]->type != WEIR_JSON_OBJECT)
            return bad(err, arg, "startingOffsets: topic '%s' needs an object "
                                 "of partition offsets", j->keys[i]);
        n += j->items[i]->len;
    }
    o->start_at = weir__arena_array(a, n + 1, sizeof(*o->start_at));
    if (!o->start_at)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < j->len; i++) {
        const weir_json *t = j->items[i];
        for (size_t k = 0; k < t->len; k++) {
            int64_t id, off;
            if (!parse_i64(t->keys[k], &id) || id < 0 || id > INT32_MAX)
                return bad(err, arg, "startingOffsets: topic '%s' has a "
                                     "partition '%s' that is not a number",
                           j->keys[i], t->keys[k]);
            if (t->items[k]->type != WEIR_JSON_NUMBER ||
                !parse_i64(t->items[k]->text, &off) || off < -2)
                return bad(err, arg, "startingOffsets: the offset of topic "
                                     "'%s' partition %s must be a number >= "
                                     "-2", j->keys[i], t->keys[k]);
            weir_kafka_opt_partition *sp = &o->start_at[o->n_start_at++];
            sp->topic = j->keys[i];
            sp->partition = (int32_t)id;
            sp->offset = off;
        }
    }
    o->starting = 0;
    return 0;
}

static int set_bool(bool *out, const char *k, const char *v,
                    const weir_sql_arg *a, weir_error *err)
{
    if (!weir__str_parse_bool(v, out))
        return bad(err, a, "option '%s' must be true or false, not '%s'", k, v);
    return 0;
}

int weir__kafka_opts(weir_kafka_opts *o, weir_arena *arena,
                     const weir_sql_tvf *call, weir_error *err)
{
    memset(o, 0, sizeof(*o));
    o->starting = -1;
    o->fail_on_data_loss = true;
    o->client = weir__arena_array(arena, call->n_args + 1, sizeof(*o->client));
    if (!o->client)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    const weir_sql_arg *sub_arg = NULL, *servers_arg = NULL;
    for (size_t i = 0; i < call->n_args; i++) {
        const weir_sql_arg *a = &call->args[i];
        const char *k = a->name;
        if (!k)
            return bad(err, a, "arguments must be named (name => 'value'), "
                               "got '%s'", a->text ? a->text : "?");
        if (a->kind != WEIR_SQL_ARG_STRING && a->kind != WEIR_SQL_ARG_NUMBER &&
            a->kind != WEIR_SQL_ARG_BOOL)
            return bad(err, a, "option '%s' needs a literal value", k);
        const char *v = a->text ? a->text : "";
        for (size_t p = 0; p < i; p++)
            if (call->args[p].name && weir__str_ieq(call->args[p].name, k))
                return bad(err, a, "option '%s' is given twice", k);
        int rc = 0;
        bool is_sub = weir__str_ieq(k, "subscribe") ||
                      weir__str_ieq(k, "subscribePattern") ||
                      weir__str_ieq(k, "assign");
        if (is_sub && sub_arg)
            return bad(err, a, "use one of subscribe, subscribePattern and "
                               "assign, not '%s' and '%s'",
                       sub_arg->name, k);
        if (weir__str_ieq(k, "bootstrapServers") ||
            weir__str_ieq(k, "kafka.bootstrap.servers")) {
            if (servers_arg)
                return bad(err, a, "option '%s' and '%s' both name the brokers",
                           servers_arg->name, k);
            servers_arg = a;
            o->bootstrap = v;
        } else if (weir__str_ieq(k, "subscribe")) {
            sub_arg = a;
            o->sub = WEIR_KAFKA_SUBSCRIBE;
            rc = split_topics(o, arena, v, a, err);
        } else if (weir__str_ieq(k, "subscribePattern")) {
            sub_arg = a;
            o->sub = WEIR_KAFKA_SUBSCRIBE_PATTERN;
            if (!*v)
                return bad(err, a, "subscribePattern is empty");
        } else if (weir__str_ieq(k, "assign")) {
            sub_arg = a;
            o->sub = WEIR_KAFKA_ASSIGN;
            rc = parse_assign(o, arena, v, a, err);
        } else if (weir__str_ieq(k, "startingOffsets")) {
            rc = parse_starting(o, arena, v, a, err);
        } else if (weir__str_ieq(k, "maxOffsetsPerTrigger")) {
            if (!parse_i64(v, &o->max_per_trigger) || o->max_per_trigger <= 0)
                return bad(err, a, "maxOffsetsPerTrigger must be a number > "
                                   "0, not '%s'", v);
        } else if (weir__str_ieq(k, "failOnDataLoss")) {
            rc = set_bool(&o->fail_on_data_loss, k, v, a, err);
        } else if (weir__str_ieq(k, "includeHeaders")) {
            rc = set_bool(&o->include_headers, k, v, a, err);
        } else if (ignored(k)) {
            continue;
        } else if (weir__kafka_is_client_option(k)) {
            o->client[o->n_client].key = k;
            o->client[o->n_client++].value = v;
        } else {
            return bad(err, a, "unknown option '%s' (options: bootstrapServers, "
                               "subscribe, subscribePattern, assign, "
                               "startingOffsets, maxOffsetsPerTrigger, "
                               "failOnDataLoss, includeHeaders, kafka.*)",
                       k);
        }
        if (rc)
            return rc;
        if (is_sub)
            o->sub_text = v;
    }
    if (!o->bootstrap)
        return bad(err, NULL, "needs the brokers: bootstrapServers => "
                              "'host:port' (or kafka.bootstrap.servers)");
    if (!sub_arg)
        return bad(err, NULL, "needs one of subscribe, subscribePattern and "
                              "assign");
    if (o->sub == WEIR_KAFKA_ASSIGN && o->starting == 0) {
        /* Spark: specific starting offsets must be of assigned partitions. */
        for (size_t i = 0; i < o->n_start_at; i++) {
            bool found = false;
            for (size_t k = 0; k < o->n_assigned && !found; k++)
                found = o->assigned[k].partition == o->start_at[i].partition &&
                        !strcmp(o->assigned[k].topic, o->start_at[i].topic);
            if (!found) {
                char what[300];
                snprintf(what, sizeof(what), "%s partition %d",
                         o->start_at[i].topic, (int)o->start_at[i].partition);
                return bad(err, NULL, "startingOffsets names %s, which assign "
                                      "does not", what);
            }
        }
    }
    return weir__kafka_check_options(o->client, o->n_client, o->bootstrap, err);
}
