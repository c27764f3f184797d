/*
 * Client settings for Kafka sources and sinks: the `kafka.*` options as a
 * librdkafka configuration with bounded waits, their validation, and the
 * reachability probe of dry runs.
 */
#include "kafka/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

#define PREFIX "kafka."
#define PREFIX_LEN 6

bool weir__kafka_is_client_option(const char *key)
{
    return key && strlen(key) > PREFIX_LEN &&
           weir__str_ieqn(key, PREFIX, PREFIX_LEN);
}

const char *weir__kafka_bootstrap(const weir_kv *options, size_t n,
                                  const char *bootstrap)
{
    if (bootstrap && *bootstrap)
        return bootstrap;
    const char *v = weir__kv_get(options, n, "kafka.bootstrap.servers");
    return v ? v : "";
}

int weir__kafka_timeout_ms(const weir_kv *options, size_t n)
{
    const char *v = weir__kv_get(options, n, "kafka.socket.timeout.ms");
    long ms = v ? strtol(v, NULL, 10) : 0;
    return ms > 0 && ms < 3600000 ? (int)ms : WEIR_KAFKA_TIMEOUT_MS;
}

/* librdkafka would print connection trouble on stderr: weir reports it as
 * errors of its own instead. */
static void quiet_log(const rd_kafka_t *rk, int level, const char *fac,
                      const char *buf)
{
    (void)rk;
    (void)level;
    (void)fac;
    (void)buf;
}

static int set(rd_kafka_conf_t *conf, const char *key, const char *name,
               const char *value, weir_error *err)
{
    char why[512];
    rd_kafka_conf_res_t r = rd_kafka_conf_set(conf, name, value, why, sizeof why);
    if (r == RD_KAFKA_CONF_OK)
        return 0;
    return WEIR_ERR(err, WEIR_ESQL, "INVALID_KAFKA_OPTION",
                    "Kafka option '%s' = '%s': %s", key, value ? value : "",
                    r == RD_KAFKA_CONF_UNKNOWN
                        ? "not a setting of the Kafka client"
                        : why);
}

int weir__kafka_conf(const weir_kv *options, size_t n,
                     const char *bootstrap, rd_kafka_conf_t **out,
                     weir_error *err)
{
    *out = NULL;
    const char *servers = weir__kafka_bootstrap(options, n, bootstrap);
    if (!*servers)
        return WEIR_ERR(err, WEIR_ESQL, "INVALID_KAFKA_OPTION",
                        "Kafka needs the broker list: option "
                        "'kafka.bootstrap.servers'");
    /* Every client starts here: librdkafka is loaded now. */
    int rc = weir__rdk_load(err);
    if (rc)
        return rc;
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (!conf)
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    int timeout = weir__kafka_timeout_ms(options, n);
    char ms[32], setup_ms[32];
    snprintf(ms, sizeof ms, "%d", timeout);
    /* librdkafka takes a connection set-up timeout of 1 s at least. */
    snprintf(setup_ms, sizeof setup_ms, "%d", timeout < 1000 ? 1000 : timeout);
    /* weir's bounds first, so that options can override them. */
    const char *const bounds[] = {
        "socket.timeout.ms", ms,
        "socket.connection.setup.timeout.ms", setup_ms,
        "reconnect.backoff.max.ms", "1000",
        "log.connection.close", "false",
        NULL
    };
    for (size_t i = 0; !rc && bounds[i]; i += 2)
        rc = set(conf, bounds[i], bounds[i], bounds[i + 1], err);
    if (!rc)
        rc = set(conf, "kafka.bootstrap.servers", "bootstrap.servers", servers,
                 err);
    for (size_t i = 0; !rc && i < n; i++) {
        if (!weir__kafka_is_client_option(options[i].key) ||
            weir__str_ieq(options[i].key, "kafka.bootstrap.servers"))
            continue;
        rc = set(conf, options[i].key, options[i].key + PREFIX_LEN,
                 options[i].value, err);
    }
    if (rc) {
        rd_kafka_conf_destroy(conf);
        return rc;
    }
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    *out = conf;
    return 0;
}

int weir__kafka_check_options(const weir_kv *options, size_t n,
                              const char *bootstrap, weir_error *err)
{
    rd_kafka_conf_t *conf;
    int rc = weir__kafka_conf(options, n, bootstrap, &conf, err);
    if (!rc)
        rd_kafka_conf_destroy(conf);
    return rc;
}

int weir__kafka_probe(const weir_kv *options, size_t n,
                      const char *bootstrap, weir_error *err)
{
    rd_kafka_conf_t *conf;
    int rc = weir__kafka_conf(options, n, bootstrap, &conf, err);
    if (rc)
        return rc;
    char why[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof why);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        return WEIR_ERR(err, WEIR_ESQL, "INVALID_KAFKA_OPTION",
                        "Kafka client settings: %s", why);
    }
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e =
        rd_kafka_metadata(rk, 0, NULL, &md, weir__kafka_timeout_ms(options, n));
    if (md)
        rd_kafka_metadata_destroy(md);
    rd_kafka_destroy(rk);
    if (e)
        return WEIR_ERR(err, WEIR_EIO, "KAFKA_BROKER_UNREACHABLE",
                        "no Kafka broker answered at %s within %d ms (%s)",
                        weir__kafka_bootstrap(options, n, bootstrap),
                        weir__kafka_timeout_ms(options, n),
                        rd_kafka_err2str(e));
    return 0;
}
