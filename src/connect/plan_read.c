/*
 * The leaves of a relation, where a DataFrame's rows come from: tables,
 * files (`read_files`), Kafka topics (`read_kafka`) and databases
 * (`read_jdbc`), STREAM for
 * readStream; spark.sql() text with its parameters bound; spark.range();
 * createDataFrame rows (plan_local.c). Each becomes the FROM item of a new
 * query (plan_query.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_query.h"
#include "util/str.h"

/* Older clients still send the deprecated fields (SQL.args, pos_args):
 * read them too. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"


/* Spark's Kafka source options, in Spark's spelling (the client keeps the
 * user's case; Spark matches them case-insensitively). */
static const char *const KAFKA_OPTIONS[] = {
    "subscribe", "subscribePattern", "assign", "startingOffsets", "endingOffsets",
    "startingOffsetsByTimestamp", "endingOffsetsByTimestamp", "startingTimestamp",
    "endingTimestamp", "startingOffsetsByTimestampStrategy", "failOnDataLoss",
    "minPartitions", "maxOffsetsPerTrigger", "minOffsetsPerTrigger", "maxTriggerDelay",
    "maxRecordsPerPartition", "kafkaConsumer.pollTimeoutMs", "fetchOffset.numRetries",
    "fetchOffset.retryIntervalMs", "groupIdPrefix", "includeHeaders", NULL
};

/* format("kafka"): read_kafka(bootstrapServers => '...', subscribe => '...',
 * ...), under STREAM for readStream. Spark's option names become named
 * arguments (known ones in Spark's case), kafka.bootstrap.servers becomes
 * bootstrapServers, and every other kafka.* client setting keeps its name as
 * a backquoted argument name (`kafka.security.protocol` => 'SSL'). The
 * client sends the options as a map in no particular order; the arguments
 * come in a fixed one: bootstrapServers, Spark's options in KAFKA_OPTIONS
 * order, then the kafka.* and any other options by name. */
typedef struct kafka_arg {
    const char *name, *value;
    int rank;
} kafka_arg;

static int kafka_arg_cmp(const void *a, const void *b)
{
    const kafka_arg *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int read_kafka(plan_ctx *c, const Spark__Connect__Read__DataSource *ds,
                      bool streaming, plan_query *out)
{
    if (ds->_schema_case && ds->schema && *ds->schema)
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "Kafka source has a fixed schema and cannot be set with a "
                               "custom one.");
    if (ds->n_paths)
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "A Kafka read takes no path: name the topics with "
                               "subscribe, subscribePattern or assign.");
    enum { N_KNOWN = sizeof KAFKA_OPTIONS / sizeof *KAFKA_OPTIONS - 1 };
    kafka_arg *args = calloc(ds->n_options ? ds->n_options : 1, sizeof *args);
    if (!args)
        return weir__plan_oom(c);
    size_t n = 0;
    for (size_t i = 0; i < ds->n_options; i++) {
        const Spark__Connect__Read__DataSource__OptionsEntry *o = ds->options[i];
        if (!o || !o->key || !o->value || !*o->key || weir__str_ieq(o->key, "path"))
            continue;
        kafka_arg *a = &args[n++];
        a->name = o->key;
        a->value = o->value;
        a->rank = weir__str_istarts(o->key, "kafka.") ? N_KNOWN + 1 : N_KNOWN + 2;
        if (weir__str_ieq(o->key, "kafka.bootstrap.servers")) {
            a->name = "bootstrapServers";
            a->rank = -1;
        }
        for (int k = 0; KAFKA_OPTIONS[k]; k++)
            if (weir__str_ieq(o->key, KAFKA_OPTIONS[k])) {
                a->name = KAFKA_OPTIONS[k];
                a->rank = k;
            }
    }
    qsort(args, n, sizeof *args, kafka_arg_cmp);
    weir_buf *b = &out->from;
    if (streaming)
        weir__buf_puts(b, "STREAM ");
    weir__buf_puts(b, "read_kafka(");
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        weir__plan_put_ident(b, args[i].name);
        weir__buf_puts(b, " => ");
        weir__plan_put_string(b, args[i].value);
    }
    free(args);
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    weir__buf_printf(b, ") AS %s", alias);
    return (out->qual = strdup(alias)) ? 0 : weir__plan_oom(c);
}

/* format("jdbc") and spark.read.jdbc(url, table, properties=...):
 * read_jdbc(url => ..., dbtable => ..., ...) with the options as named
 * arguments in the client's spelling (read_jdbc matches them
 * case-insensitively and checks them), under STREAM for readStream (the
 * incremental read by cursorColumn). */
static int read_jdbc(plan_ctx *c, const Spark__Connect__Read__DataSource *ds,
                     bool streaming, plan_query *out)
{
    if (ds->_schema_case && ds->schema && *ds->schema)
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "A JDBC read takes its schema from the database: "
                               "cast the columns instead of setting one.");
    if (ds->n_predicates)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "spark.read.jdbc(predicates=...) is not supported: "
                               "filter the DataFrame instead.");
    weir_buf *b = &out->from;
    if (streaming)
        weir__buf_puts(b, "STREAM ");
    weir__buf_puts(b, "read_jdbc(");
    size_t n = 0;
    for (size_t i = 0; i < ds->n_options; i++) {
        const Spark__Connect__Read__DataSource__OptionsEntry *o = ds->options[i];
        if (!o || !o->key || !o->value || !*o->key)
            continue;
        if (n++)
            weir__buf_puts(b, ", ");
        weir__plan_put_ident(b, o->key);
        weir__buf_puts(b, " => ");
        weir__plan_put_string(b, o->value);
    }
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    weir__buf_printf(b, ") AS %s", alias);
    return (out->qual = strdup(alias)) ? 0 : weir__plan_oom(c);
}

static int read_files(plan_ctx *c, const Spark__Connect__Read__DataSource *ds,
                      bool streaming, plan_query *out)
{
    const char *format = ds->_format_case && ds->format && *ds->format ? ds->format : NULL;
    bool cloud = format && weir__str_ieq(format, "cloudFiles");
    static const char *const FORMATS[] = { "json", "csv", "parquet", "text", NULL };
    if (format && !cloud) {
        bool ok = false;
        for (int i = 0; FORMATS[i]; i++)
            ok = ok || weir__str_ieq(format, FORMATS[i]);
        if (!ok)
            return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                   "Reading format '%.100s' is not supported (use json, "
                                   "csv, parquet, text or cloudFiles).",
                                   format);
    }
    const char *path = ds->n_paths ? ds->paths[0] : NULL;
    for (size_t i = 0; i < ds->n_options; i++)
        if (ds->options[i] && ds->options[i]->key && weir__str_ieq(ds->options[i]->key, "path"))
            path = path ? path : ds->options[i]->value;
    if (ds->n_paths > 1)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "Reading several paths in one load() is not supported; "
                               "union one read per path.");
    if (!path || !*path)
        return weir__plan_fail(c, PLAN_E_INVALID, "A file read has no path.");
    weir_buf *b = &out->from;
    if (streaming)
        weir__buf_puts(b, "STREAM ");
    weir__buf_puts(b, "read_files(");
    weir__plan_put_string(b, path);
    if (format && !cloud) {
        weir__buf_puts(b, ", format => ");
        weir__plan_put_string(b, format);
    }
    if (ds->_schema_case && ds->schema && *ds->schema) {
        weir_buf ddl = WEIR_BUF_INIT;
        if (weir__plan_schema_ddl(c, &ddl, ds->schema) < 0) {
            weir__buf_free(&ddl);
            return -1;
        }
        weir__buf_puts(b, ", schema => ");
        weir__plan_put_string(b, weir__buf_cstr(&ddl));
        weir__buf_free(&ddl);
    }
    for (size_t i = 0; i < ds->n_options; i++) {
        const Spark__Connect__Read__DataSource__OptionsEntry *o = ds->options[i];
        if (!o || !o->key)
            continue;
        const char *k = o->key;
        if (weir__str_ieq(k, "path"))
            continue;
        if (weir__str_istarts(k, "cloudFiles.")) {
            k += strlen("cloudFiles.");
            if (weir__str_ieq(k, "format")) {
                weir__buf_puts(b, ", format => ");
                weir__plan_put_string(b, o->value);
                continue;
            }
        }
        if (!weir__str_is_identifier(k))
            return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                   "Read option '%.200s' is not supported.", o->key);
        weir__buf_printf(b, ", %s => ", k);
        weir__plan_put_string(b, o->value);
    }
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    weir__buf_printf(b, ") AS %s", alias);
    return (out->qual = strdup(alias)) ? 0 : weir__plan_oom(c);
}

/* format("delta").load(path): delta.`path`, STREAM for readStream (a
 * stream of the table's log, sources/delta.c). Spark's Delta reader
 * options are not taken: a stream's skipChangeCommits is the reading
 * table's property here (docs/delta.md). */
static int read_delta(plan_ctx *c, const Spark__Connect__Read__DataSource *ds,
                      bool streaming, plan_query *out)
{
    const char *path = ds->n_paths ? ds->paths[0] : NULL;
    for (size_t i = 0; i < ds->n_options; i++) {
        const Spark__Connect__Read__DataSource__OptionsEntry *o = ds->options[i];
        if (!o || !o->key)
            continue;
        if (!weir__str_ieq(o->key, "path"))
            return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                                   "Delta read option '%.200s' is not supported "
                                   "(a stream's skipChangeCommits is the table "
                                   "property pipelines.skipChangeCommits of the "
                                   "table it writes).",
                                   o->key);
        path = path ? path : o->value;
    }
    if (ds->n_paths > 1)
        return weir__plan_fail(c, PLAN_E_UNSUPPORTED,
                               "Reading several Delta tables in one load() is not "
                               "supported; union one read per path.");
    if (!path || !*path || strchr(path, '`'))
        return weir__plan_fail(c, PLAN_E_INVALID,
                               "A Delta read needs the table's path (without "
                               "backquotes).");
    weir_buf *b = &out->from;
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    weir__buf_printf(b, "%sdelta.`%s` AS %s", streaming ? "STREAM " : "", path,
                     alias);
    return (out->qual = strdup(alias)) ? 0 : weir__plan_oom(c);
}

int weir__plan_read(plan_ctx *c, const Spark__Connect__Read *rd, plan_query *out)
{
    if (!rd)
        return weir__plan_fail(c, PLAN_E_INVALID, "A read has no source.");
    if (rd->read_type_case == SPARK__CONNECT__READ__READ_TYPE_DATA_SOURCE && rd->data_source) {
        const Spark__Connect__Read__DataSource *ds = rd->data_source;
        if (ds->_format_case && ds->format && weir__str_ieq(ds->format, "kafka"))
            return read_kafka(c, ds, rd->is_streaming, out);
        if (ds->_format_case && ds->format && weir__str_ieq(ds->format, "jdbc"))
            return read_jdbc(c, ds, rd->is_streaming, out);
        if (ds->_format_case && ds->format && weir__str_ieq(ds->format, "delta"))
            return read_delta(c, ds, rd->is_streaming, out);
        return read_files(c, ds, rd->is_streaming, out);
    }
    if (rd->read_type_case != SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE || !rd->named_table)
        return weir__plan_fail(c, PLAN_E_INVALID, "A read has no source.");
    const char *name = rd->named_table->unparsed_identifier;
    if (rd->is_streaming)
        weir__buf_puts(&out->from, "STREAM ");
    if (weir__plan_put_name(c, &out->from, name, "table") < 0)
        return -1;
    size_t n = strlen(name);
    char *last = malloc(n + 1);
    if (!last)
        return weir__plan_oom(c);
    weir_buf qb = WEIR_BUF_INIT;
    if (weir__plan_last_part(name, last, NULL) == 0)
        weir__plan_put_ident(&qb, last);
    free(last);
    out->qual = weir__buf_detach(&qb);
    out->bare_table = true;
    return 0;
}

/* ---- spark.sql(query, args) ---------------------------------------------- */

static const Spark__Connect__Expression *named_arg(const Spark__Connect__SQL *s,
                                                   const char *name, size_t n,
                                                   const Spark__Connect__Expression__Literal **lit)
{
    *lit = NULL;
    for (size_t i = 0; i < s->n_named_arguments; i++) {
        const char *k = s->named_arguments[i]->key;
        if (k && strlen(k) == n && strncmp(k, name, n) == 0)
            return s->named_arguments[i]->value;
    }
    for (size_t i = 0; i < s->n_args; i++) {
        const char *k = s->args[i]->key;
        if (k && strlen(k) == n && strncmp(k, name, n) == 0) {
            *lit = s->args[i]->value;
            return NULL;
        }
    }
    return NULL;
}

/* Replace :name and ? parameter markers (outside quotes and comments). */
static int sql_params(plan_ctx *c, weir_buf *b, const Spark__Connect__SQL *s)
{
    const char *t = s->query;
    size_t pos = 0;
    size_t n_pos = s->n_pos_arguments ? s->n_pos_arguments : s->n_pos_args;
    for (size_t i = 0; t[i]; i++) {
        char ch = t[i];
        if (ch == '\'' || ch == '"' || ch == '`') {
            size_t j = i + 1;
            while (t[j] && t[j] != ch) {
                if (t[j] == '\\' && ch != '`' && t[j + 1])
                    j++;
                j++;
            }
            weir__buf_put(b, t + i, (t[j] ? j + 1 : j) - i);
            i = t[j] ? j : j - 1;
            continue;
        }
        if (ch == '-' && t[i + 1] == '-') {
            size_t j = i;
            while (t[j] && t[j] != '\n')
                j++;
            weir__buf_put(b, t + i, j - i);
            i = j - 1;
            continue;
        }
        if (ch == '/' && t[i + 1] == '*') {
            const char *e = strstr(t + i + 2, "*/");
            size_t j = e ? (size_t)(e - t) + 2 : strlen(t);
            weir__buf_put(b, t + i, j - i);
            i = j - 1;
            continue;
        }
        bool named = (s->n_named_arguments || s->n_args) && ch == ':' && (i == 0 || t[i - 1] != ':') && t[i + 1] != ':' &&
                     ((t[i + 1] >= 'a' && t[i + 1] <= 'z') ||
                      (t[i + 1] >= 'A' && t[i + 1] <= 'Z') || t[i + 1] == '_');
        if (named) {
            size_t j = i + 1;
            while ((t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z') ||
                   (t[j] >= '0' && t[j] <= '9') || t[j] == '_')
                j++;
            const Spark__Connect__Expression__Literal *lit;
            const Spark__Connect__Expression *e = named_arg(s, t + i + 1, j - i - 1, &lit);
            if (!e && !lit)
                return weir__plan_fail(c, "UNBOUND_SQL_PARAMETER",
                                       "spark.sql(): no value for the parameter :%.*s.",
                                       (int)(j - i - 1), t + i + 1);
            weir__buf_putc(b, '(');
            if ((e ? weir__plan_expr(c, b, e) : weir__plan_literal(c, b, lit)) < 0)
                return -1;
            weir__buf_putc(b, ')');
            i = j - 1;
            continue;
        }
        if (ch == '?' && n_pos) {
            if (pos >= n_pos)
                return weir__plan_fail(c, "UNBOUND_SQL_PARAMETER",
                                       "spark.sql(): more ? markers than arguments.");
            weir__buf_putc(b, '(');
            int rc = s->n_pos_arguments
                         ? weir__plan_expr(c, b, s->pos_arguments[pos])
                         : weir__plan_literal(c, b, s->pos_args[pos]);
            if (rc < 0)
                return -1;
            weir__buf_putc(b, ')');
            pos++;
            continue;
        }
        weir__buf_putc(b, ch);
    }
    return 0;
}

int weir__plan_sql(plan_ctx *c, const Spark__Connect__SQL *s, plan_query *out)
{
    if (!s || !s->query)
        return weir__plan_fail(c, PLAN_E_INVALID, "spark.sql() has no query.");
    /* A trailing ';' is harmless; anything else after one is not. */
    size_t n = strlen(s->query);
    while (n && strchr(" \t\r\n;", s->query[n - 1]))
        n--;
    char *text = strndup(s->query, n);
    if (!text)
        return weir__plan_oom(c);
    Spark__Connect__SQL copy = *s;
    copy.query = text;
    int rc = weir__plan_check_text(c, text, "spark.sql() query");
    weir__buf_putc(&out->from, '(');
    if (rc == 0)
        rc = sql_params(c, &out->from, &copy);
    free(text);
    if (rc < 0)
        return -1;
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    weir__buf_printf(&out->from, "%s) AS %s", strstr(s->query, "--") ? "\n" : "", alias);
    return (out->qual = strdup(alias)) ? 0 : weir__plan_oom(c);
}


int weir__plan_range(plan_ctx *c, const Spark__Connect__Range *r, plan_query *out)
{
    if (!r)
        return weir__plan_fail(c, PLAN_E_INVALID, "A range is empty.");
    if (r->step == 0)
        return weir__plan_fail(c, PLAN_E_INVALID, "spark.range(): step must not be 0.");
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    weir__buf_printf(&out->from, "range(%" PRId64 ", %" PRId64 ", %" PRId64 ") AS %s",
                     r->_start_case ? r->start : 0, r->end, r->step, alias);
    return (out->qual = strdup(alias)) ? 0 : weir__plan_oom(c);
}

/* spark.createDataFrame(local rows) (plan_local.c). */
int weir__plan_local_rel(plan_ctx *c, const Spark__Connect__LocalRelation *lr, plan_query *out)
{
    char alias[32];
    weir__plan_next_alias(c, alias, sizeof alias);
    if (weir__plan_local_relation(c, lr, &out->from))
        return -1;
    weir__buf_printf(&out->from, " AS %s", alias);
    return (out->qual = strdup(alias)) ? 0 : weir__plan_oom(c);
}

