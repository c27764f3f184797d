/*
 * weir's `expectations` spec field: per dataset, a list of named SQL
 * conditions with an action on violation (warn, drop, fail, quarantine).
 * Spark's open-source spec has no such field; the format is in
 * docs/spec.md. Checks the shape and fills spec->expectations.
 */
#include "spec/spec_internal.h"

#include <string.h>

#include "util/str.h"

#define BAD_EXPECT "PIPELINE_SPEC_INVALID_EXPECTATION"

typedef weir_spec_ynode ynode;

/* 1 to 3 non-empty dot-separated parts; backquoted parts may hold dots. */
static bool valid_dataset_name(const char *s)
{
    unsigned parts = 1;
    size_t len = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '`') {
            size_t j = i + 1;
            while (s[j] && !(s[j] == '`' && s[j + 1] != '`')) {
                if (s[j] == '`')
                    j++; /* `` is an escaped backquote */
                j++;
            }
            if (!s[j])
                return false;
            len += j - i + 1;
            i = j;
        } else if (s[i] == '.') {
            if (len == 0)
                return false;
            parts++;
            len = 0;
        } else {
            len++;
        }
    }
    return len > 0 && parts <= 3;
}

static bool parse_action(const char *s, weir_expectation_action *out,
                         const char **canon)
{
    static const struct {
        const char *name;
        weir_expectation_action action;
    } actions[] = { { "warn", WEIR_EXPECT_WARN },
                    { "drop", WEIR_EXPECT_DROP },
                    { "fail", WEIR_EXPECT_FAIL },
                    { "quarantine", WEIR_EXPECT_QUARANTINE } };
    for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
        if (weir__str_ieq(s, actions[i].name)) {
            *out = actions[i].action;
            *canon = actions[i].name;
            return true;
        }
    }
    return false;
}

/* A required, non-empty string key of an expectation item. */
static const ynode *expect_key(weir_spec_report *r, const ynode *item,
                               const char *key, const char *dataset)
{
    const ynode *v = weir__spec_get(item, key);
    if (!v) {
        SPEC_REPORT(r, BAD_EXPECT, item->pos,
                    "An expectation of dataset `%.*s` is missing `%s`.",
                    CLIP(dataset), key);
        return NULL;
    }
    if (!is_cstr(v)) {
        SPEC_REPORT(r, BAD_EXPECT, v->pos,
                    "`%s` of an expectation of dataset `%.*s` should be a "
                    "string, got %s.",
                    key, CLIP(dataset), is_str(v) ? "a string with NULs"
                                                  : v->type);
        return NULL;
    }
    if (!*v->text) {
        SPEC_REPORT(r, BAD_EXPECT, v->pos,
                    "`%s` of an expectation of dataset `%.*s` should not be "
                    "empty.",
                    key, CLIP(dataset));
        return NULL;
    }
    return v;
}

static void load_expectation(weir_spec *spec, weir_spec_report *r,
                             const ynode *dkey, const ynode *item,
                             size_t first)
{
    static const char *const keys[] = { "name", "expect", "on_violation",
                                        NULL };
    const char *dataset = dkey->text;
    if (!is_dict(item)) {
        SPEC_REPORT(r, BAD_EXPECT, item->pos,
                    "An expectation of dataset `%.*s` should be a dict like "
                    "{name: ..., expect: ..., on_violation: ...}, got %s.",
                    CLIP(dataset), item->type);
        return;
    }
    weir__spec_extra_keys(r, item, keys, BAD_EXPECT,
                          "an expectation (allowed: `name`, `expect`, "
                          "`on_violation`)");
    const ynode *name = expect_key(r, item, "name", dataset);
    const ynode *cond = expect_key(r, item, "expect", dataset);
    const ynode *act = weir__spec_get(item, "on_violation");
    weir_expectation_action action = WEIR_EXPECT_WARN;
    const char *canon = "warn";
    bool ok = name && cond;
    if (act && !(is_cstr(act) && parse_action(act->text, &action, &canon))) {
        if (is_str(act))
            SPEC_REPORT(r, BAD_EXPECT, act->pos,
                        "`on_violation` of an expectation of dataset `%.*s` "
                        "should be one of warn, drop, fail, quarantine; got "
                        "`%.*s`.",
                        CLIP(dataset), CLIP(act->text));
        else
            SPEC_REPORT(r, BAD_EXPECT, act->pos,
                        "`on_violation` of an expectation of dataset `%.*s` "
                        "should be one of warn, drop, fail, quarantine; got "
                        "%s.",
                        CLIP(dataset), act->type);
        ok = false;
    }
    if (!ok)
        return;
    for (size_t i = first; i < spec->n_expectations; i++) {
        if (strcmp(spec->expectations[i].name, name->text) == 0) {
            SPEC_REPORT(r, BAD_EXPECT, name->pos,
                        "Duplicate expectation name `%.*s` for dataset "
                        "`%.*s` (first defined at line %u).",
                        CLIP(name->text), CLIP(dataset),
                        spec->expectations[i].pos.line);
            return;
        }
    }
    weir_spec_expectation *e = &spec->expectations[spec->n_expectations++];
    e->dataset = dataset;
    e->name = name->text;
    e->condition = cond->text;
    e->action = canon;
    e->on_violation = action;
    e->pos = item->pos;
    e->dataset_pos = dkey->pos;
    e->condition_pos = cond->pos;
}

void weir__spec_load_expectations(weir_spec *spec, weir_spec_report *r,
                                  const weir_spec_ynode *v)
{
    if (!is_dict(v)) {
        SPEC_REPORT(r, "PIPELINE_SPEC_FIELD_NOT_DICT", v->pos,
                    "Pipeline spec field `expectations` should be a dict of "
                    "dataset names to lists of expectations, got %s.",
                    v->type);
        return;
    }
    size_t total = 0;
    for (size_t i = 1; i < v->n; i += 2)
        if (is_list(v->items[i]))
            total += v->items[i]->n;
    spec->expectations = weir__arena_array(&spec->arena, total + 1,
                                           sizeof(*spec->expectations));
    if (!spec->expectations)
        return;
    for (size_t i = 0; i + 1 < v->n; i += 2) {
        const ynode *k = v->items[i], *list = v->items[i + 1];
        if (!is_cstr(k) || !valid_dataset_name(k->text)) {
            SPEC_REPORT(r, BAD_EXPECT, k->pos,
                        "`%.*s` is not a dataset name: expected 1 to 3 "
                        "dot-separated parts, such as `sales` or "
                        "`db.sales`.",
                        CLIP(key_text(k)));
            continue;
        }
        if (!is_list(list)) {
            SPEC_REPORT(r, BAD_EXPECT, list->pos,
                        "The expectations of dataset `%.*s` should be a "
                        "list, got %s.",
                        CLIP(k->text), list->type);
            continue;
        }
        size_t first = spec->n_expectations;
        for (size_t j = 0; j < list->n; j++)
            load_expectation(spec, r, k, list->items[j], first);
    }
}
