/*
 * weir's own keys in DefineFlow.sql_conf, sent by the Databricks shim the
 * weir CLI loads into pyspark (src/cli/python/weir_shim.py, docs/python.md):
 *
 *   weir.expectations           JSON list of {"name", "constraint",
 *                               "action"} (warn | drop | fail | quarantine)
 *   weir.flow.once              "true": append_flow(once=True)
 *   weir.flow.import_checkpoint append_flow(import_checkpoint=...): the
 *                               Spark checkpoint folder to import
 *                               (docs/import-checkpoint.md)
 *
 * They are taken out of the flow's confs here; pipeline_flow.c turns them into
 * weir_flow_options.once and .import_checkpoint and expectations of the
 * target dataset.
 * Owns: the copies in a weir__shim_flow.
 */
#include "connect/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/json.h"
#include "util/str.h"

#define MAX_EXPECTATIONS 1000

void weir__shim_exps_free(weir_expectation *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free((char *)items[i].name);
        free((char *)items[i].condition);
    }
    free(items);
}

void weir__shim_flow_free(weir__shim_flow *sf)
{
    weir__shim_exps_free(sf->exps, sf->n_exps);
    free(sf->import_checkpoint);
    memset(sf, 0, sizeof *sf);
}

int weir__shim_exps_append(weir_expectation **items, size_t *n,
                           const weir_expectation *add, size_t n_add)
{
    if (n_add == 0)
        return 0;
    if (*n + n_add > MAX_EXPECTATIONS)
        return -1;
    weir_expectation *all = realloc(*items, (*n + n_add) * sizeof *all);
    if (!all)
        return -1;
    *items = all;
    for (size_t i = 0; i < n_add; i++) {
        weir_expectation *e = &all[*n];
        e->name = strdup(add[i].name);
        e->condition = strdup(add[i].condition);
        e->action = add[i].action;
        if (!e->name || !e->condition) {
            free((char *)e->name);
            free((char *)e->condition);
            return -1;
        }
        (*n)++;
    }
    return 0;
}

static bool action_of(const char *s, weir_expectation_action *out)
{
    static const struct {
        const char *name;
        weir_expectation_action action;
    } actions[] = { { "warn", WEIR_EXPECT_WARN },
                    { "drop", WEIR_EXPECT_DROP },
                    { "fail", WEIR_EXPECT_FAIL },
                    { "quarantine", WEIR_EXPECT_QUARANTINE } };
    for (size_t i = 0; s && i < sizeof actions / sizeof actions[0]; i++)
        if (strcmp(s, actions[i].name) == 0) {
            *out = actions[i].action;
            return true;
        }
    return false;
}

static int take_expectations(weir__shim_flow *sf, const char *value,
                             char *msg, size_t size)
{
    weir_arena a;
    weir_json *list = NULL;
    weir_error e;
    int rc = 0;
    weir__arena_init(&a);
    if (weir__json_parse(&list, &a, value, strlen(value), &e) ||
        list->type != WEIR_JSON_ARRAY) {
        snprintf(msg, size, "weir.expectations is not a JSON list");
        rc = -1;
    }
    for (size_t i = 0; !rc && i < list->len; i++) {
        const weir_json *item = list->items[i];
        weir_expectation x;
        x.name = weir__json_get_str(item, "name");
        x.condition = weir__json_get_str(item, "constraint");
        if (!x.name || !*x.name || !x.condition || !*x.condition ||
            !action_of(weir__json_get_str(item, "action"), &x.action)) {
            snprintf(msg, size,
                     "weir.expectations item %zu needs a name, a constraint "
                     "and an action (warn, drop, fail or quarantine)",
                     i + 1);
            rc = -1;
        } else if (weir__shim_exps_append(&sf->exps, &sf->n_exps, &x, 1)) {
            snprintf(msg, size, "too many expectations (or out of memory)");
            rc = -1;
        }
    }
    weir__arena_free(&a);
    return rc;
}

int weir__shim_take(weir__shim_flow *sf, const char *key, const char *value,
                    bool *taken, char *msg, size_t size)
{
    *taken = true;
    value = value ? value : "";
    if (strcmp(key, "weir.expectations") == 0)
        return take_expectations(sf, value, msg, size);
    if (strcmp(key, "weir.flow.once") == 0) {
        if (!weir__str_ieq(value, "true") && !weir__str_ieq(value, "false")) {
            snprintf(msg, size, "weir.flow.once must be true or false");
            return -1;
        }
        sf->once = weir__str_ieq(value, "true");
        return 0;
    }
    if (strcmp(key, "weir.flow.import_checkpoint") == 0) {
        free(sf->import_checkpoint);
        sf->import_checkpoint = strdup(value);
        if (!sf->import_checkpoint) {
            snprintf(msg, size, "out of memory");
            return -1;
        }
        return 0;
    }
    *taken = false;
    return 0;
}
