/*
 * Spark Connect confs (the Config RPC): the confs each client session set
 * (Spark keeps them per session; a session's go with its ReleaseSession)
 * over, in registration mode, the pipeline's configuration (in serving
 * mode, the served project's with weir serve --env/--conf), over the
 * answers weir gives to the confs the client reads before it uses a
 * feature. Bounded: at most MAX_CONFS entries of MAX_CONF_BYTES.
 *
 * Owns: the confs (copies). Thread-safe: one lock of its own.
 */
#include "connect/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "connect/grpc.h"
#include "util/str.h"

#define MAX_CONFS 1024
#define MAX_CONF_BYTES (64u << 10)

/* A conf a client session set. */
typedef struct conf_entry {
    char *session, *key, *value;
} conf_entry;

struct weir__cconfs {
    pthread_mutex_t lock;
    WEIR_VEC(conf_entry) confs;
    weir_pipeline *pipeline; /* registration mode: its configuration */
};

/* Answers the client reads before it uses a conf (spark-connect.md §2). */
static const struct {
    const char *key, *value;
} known_confs[] = {
    { "spark.connect.session.planCompression.threshold", "-1" },
    { "spark.connect.session.planCompression.defaultAlgorithm", "NONE" },
    { "spark.python.sql.dataFrameDebugging.enabled", "true" },
    { "spark.sql.connect.serverStacktrace.enabled", "false" },
    { "spark.sql.pyspark.jvmStacktrace.enabled", "false" },
    { "spark.sql.timestampType", "TIMESTAMP_LTZ" },
    { "spark.sql.session.timeZone", "UTC" },
    { "spark.sql.session.localRelationCacheThreshold", "67108864" },
    { "spark.sql.session.localRelationSizeLimit", "3221225472" },
    { "spark.sql.session.localRelationChunkSizeRows", "10000" },
    { "spark.sql.session.localRelationChunkSizeBytes", "16777216" },
    { "spark.sql.session.localRelationBatchOfChunksSizeBytes", "134217728" },
    { "spark.sql.execution.pandas.convertToArrowArraySafely", "false" },
    { "spark.sql.execution.pandas.inferPandasDictAsMap", "false" },
    { "spark.sql.pyspark.inferNestedDictAsStruct.enabled", "false" },
    { "spark.sql.pyspark.legacy.inferArrayTypeFromFirstElement.enabled", "false" },
    { "spark.sql.pyspark.legacy.inferMapTypeFromFirstPair.enabled", "false" },
    { "spark.sql.execution.arrow.useLargeVarTypes", "false" },
    { "spark.sql.ansi.enabled", "true" },
};

static bool conf_is(const conf_entry *e, const char *session, const char *key)
{
    return strcmp(e->session, session) == 0 && (!key || strcmp(e->key, key) == 0);
}

static void conf_free(conf_entry *e)
{
    free(e->session);
    free(e->key);
    free(e->value);
}

/* The value of a conf (the session's, then the known answers); NULL when
 * unset. Caller holds the lock. */
static const char *conf_value(weir__cconfs *c, const char *session,
                              const char *key)
{
    for (size_t i = 0; i < c->confs.len; i++)
        if (conf_is(&c->confs.items[i], session, key))
            return c->confs.items[i].value;
    /* Registration mode: the pipeline configuration (spec, environment,
     * --conf), as Spark's session confs hold the spec's configuration. */
    const char *v = c->pipeline ? weir_pipeline_conf_get(c->pipeline, key) : NULL;
    if (v)
        return v;
    for (size_t i = 0; i < sizeof known_confs / sizeof *known_confs; i++)
        if (strcmp(known_confs[i].key, key) == 0)
            return known_confs[i].value;
    return NULL;
}

/* Unset key of the session (key NULL: all its confs). */
static void conf_unset(weir__cconfs *c, const char *session,
                       const char *key)
{
    for (size_t i = 0; i < c->confs.len;)
        if (conf_is(&c->confs.items[i], session, key)) {
            conf_free(&c->confs.items[i]);
            c->confs.items[i] = c->confs.items[--c->confs.len];
        } else {
            i++;
        }
}

static int conf_set(weir__cconfs *c, const char *session,
                    const char *key, const char *value, weir__cstatus *st)
{
    if (!key || !*key)
        return weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT, "", "",
                                 "a conf needs a key");
    if (strlen(key) + strlen(value ? value : "") > MAX_CONF_BYTES)
        return weir__cstatus_set(st, WEIR_GRPC_INVALID_ARGUMENT, "", "",
                                 "conf '%.100s' is too long", key);
    conf_unset(c, session, key);
    if (!value)
        return 0;
    if (c->confs.len >= MAX_CONFS)
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "too many confs set");
    conf_entry e = { strdup(session), strdup(key), strdup(value) };
    if (!e.session || !e.key || !e.value || WEIR_VEC_PUSH(&c->confs, e)) {
        conf_free(&e);
        return weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                 "out of memory");
    }
    return 0;
}

static int pairs_add(weir__cconfs_pairs *p, const char *key, const char *value)
{
    Spark__Connect__KeyValue kv = SPARK__CONNECT__KEY_VALUE__INIT;
    kv.key = (char *)key;
    if (value) {
        kv._value_case = SPARK__CONNECT__KEY_VALUE___VALUE_VALUE;
        kv.value = (char *)value;
    }
    return WEIR_VEC_PUSH(&p->kv, kv);
}


weir__cconfs *weir__cconfs_new(weir_pipeline *pipeline)
{
    weir__cconfs *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    c->pipeline = pipeline;
    return c;
}

void weir__cconfs_free(weir__cconfs *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->confs.len; i++)
        conf_free(&c->confs.items[i]);
    WEIR_VEC_FREE(&c->confs);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

char *weir__cconfs_session_value(weir__cconfs *c, const char *session, const char *key)
{
    char *v = NULL;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->confs.len && !v; i++)
        if (conf_is(&c->confs.items[i], session ? session : "", key))
            v = strdup(c->confs.items[i].value);
    pthread_mutex_unlock(&c->lock);
    return v;
}

int weir__cconfs_session_set(weir__cconfs *c, const char *session, const char *key,
                             const char *value, weir__cstatus *st)
{
    pthread_mutex_lock(&c->lock);
    int rc = conf_set(c, session ? session : "", key, value, st);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

void weir__cconfs_drop_session(weir__cconfs *c, const char *session)
{
    pthread_mutex_lock(&c->lock);
    conf_unset(c, session ? session : "", NULL);
    pthread_mutex_unlock(&c->lock);
}

int weir__cconfs_config(weir__cconfs *c, const Spark__Connect__ConfigRequest *req,
                        Spark__Connect__ConfigResponse *resp,
                        weir__cconfs_answer *mem, weir__cstatus *st)
{
    memset(mem, 0, sizeof *mem);
    int rc = 0;
    char **dups = NULL; /* values copied out of the locked conf list */
    size_t n_dups = 0;
    const Spark__Connect__ConfigRequest__Operation *op = req->operation;
    const char *sid = req->session_id ? req->session_id : "";
    pthread_mutex_lock(&c->lock);
    switch (op ? op->op_type_case : 0) {
    case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_SET:
        for (size_t i = 0; !rc && i < op->set->n_pairs; i++) {
            const Spark__Connect__KeyValue *kv = op->set->pairs[i];
            rc = conf_set(c, sid, kv->key, kv->_value_case ? kv->value : NULL, st);
        }
        break;
    case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_UNSET:
        for (size_t i = 0; i < op->unset->n_keys; i++)
            conf_unset(c, sid, op->unset->keys[i]);
        break;
    case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET:
    case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_OPTION:
    case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_IS_MODIFIABLE: {
        size_t n = op->op_type_case == SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET
                       ? op->get->n_keys
                   : op->op_type_case == SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_OPTION
                       ? op->get_option->n_keys
                       : op->is_modifiable->n_keys;
        char **keys = op->op_type_case == SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET
                          ? op->get->keys
                      : op->op_type_case == SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_OPTION
                          ? op->get_option->keys
                          : op->is_modifiable->keys;
        dups = calloc(n ? n : 1, sizeof *dups);
        rc = dups ? 0 : -1;
        for (size_t i = 0; !rc && i < n; i++) {
            const char *v =
                op->op_type_case == SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_IS_MODIFIABLE
                    ? "true"
                    : conf_value(c, sid, keys[i]);
            dups[n_dups] = v ? strdup(v) : NULL;
            rc = pairs_add(&mem->p, keys[i], dups[n_dups]);
            n_dups++;
        }
        break;
    }
    case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_WITH_DEFAULT: {
        size_t n = op->get_with_default->n_pairs;
        dups = calloc(n ? n : 1, sizeof *dups);
        rc = dups ? 0 : -1;
        for (size_t i = 0; !rc && i < n; i++) {
            const Spark__Connect__KeyValue *kv = op->get_with_default->pairs[i];
            const char *v = conf_value(c, sid, kv->key);
            if (!v)
                v = kv->_value_case ? kv->value : NULL;
            dups[n_dups] = v ? strdup(v) : NULL;
            rc = pairs_add(&mem->p, kv->key, dups[n_dups]);
            n_dups++;
        }
        break;
    }
    case SPARK__CONNECT__CONFIG_REQUEST__OPERATION__OP_TYPE_GET_ALL: {
        const char *prefix = op->get_all->_prefix_case ? op->get_all->prefix : "";
        size_t n = c->confs.len + sizeof known_confs / sizeof *known_confs;
        dups = calloc(n ? n : 1, 2 * sizeof *dups);
        rc = dups ? 0 : -1;
        for (size_t i = 0; !rc && i < c->confs.len; i++) {
            const conf_entry *e = &c->confs.items[i];
            if (strcmp(e->session, sid) != 0 || !weir__str_starts(e->key, prefix))
                continue;
            dups[n_dups] = strdup(e->key);
            dups[n_dups + 1] = strdup(e->value);
            rc = pairs_add(&mem->p, dups[n_dups], dups[n_dups + 1]);
            n_dups += 2;
        }
        for (size_t i = 0; !rc && i < sizeof known_confs / sizeof *known_confs; i++) {
            bool shadowed = false;
            for (size_t j = 0; j < c->confs.len; j++)
                shadowed |= conf_is(&c->confs.items[j], sid, known_confs[i].key);
            if (!shadowed && weir__str_starts(known_confs[i].key, prefix))
                rc = pairs_add(&mem->p, known_confs[i].key, known_confs[i].value);
        }
        break;
    }
    default:
        rc = weir__cstatus_set(st, WEIR_GRPC_UNIMPLEMENTED, "", "",
                               "unknown config operation");
    }
    pthread_mutex_unlock(&c->lock);
    mem->dups = dups;
    mem->n_dups = n_dups;
    if (rc && !st->code)
        weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "", "out of memory");
    for (size_t i = 0; !rc && i < mem->p.kv.len; i++)
        if (WEIR_VEC_PUSH(&mem->p.ptr, &mem->p.kv.items[i]))
            rc = weir__cstatus_set(st, WEIR_GRPC_RESOURCE_EXHAUSTED, "", "",
                                   "out of memory");
    if (!rc) {
        resp->n_pairs = mem->p.ptr.len;
        resp->pairs = mem->p.ptr.items;
    }
    return rc;
}

void weir__cconfs_answer_free(weir__cconfs_answer *mem)
{
    for (size_t i = 0; i < mem->n_dups; i++)
        free(mem->dups[i]);
    free(mem->dups);
    WEIR_VEC_FREE(&mem->p.kv);
    WEIR_VEC_FREE(&mem->p.ptr);
    memset(mem, 0, sizeof *mem);
}
