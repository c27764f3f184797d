/*
 * YAML reading for the pipeline spec. libyaml's event API is turned into a
 * small tree of scalars, sequences and mappings in the spec's arena, typed
 * the way PyYAML's yaml.safe_load types them (Spark reads the spec with
 * it: a plain `1000` is an int, `yes` a bool), with the line and column of
 * every node. An alias shares the anchored node instead of copying it, so
 * alias bombs cost nothing; merge keys (`<<`) are flattened under a budget;
 * duplicate keys, which PyYAML silently collapses, are reported.
 */
#include "spec/spec_internal.h"

#include <stdint.h>
#include <string.h>
#include <yaml.h>

#include "util/map.h"
#include "util/vec.h"

#define MAX_DEPTH        256
#define MAX_MERGED_PAIRS 100000
#define YTAG             "tag:yaml.org,2002:"
#define YAML_ERROR       "PIPELINE_SPEC_YAML_ERROR"

typedef struct anchor {
    weir_spec_ynode *node; /* NULL while the anchored node is still open */
    weir_spec_pos pos;
} anchor;

typedef struct frame {
    weir_spec_ynode *node;
    size_t first;  /* index of its first child in builder.kids */
    anchor *named; /* completed when the node ends, or NULL */
} frame;

typedef struct builder {
    weir_arena *arena;
    weir_spec_report *rep;
    WEIR_VEC(weir_spec_ynode *) kids; /* children of every open node */
    WEIR_VEC(frame) frames;
    weir_map anchors; /* name -> anchor */
    weir_spec_ynode *root;
    unsigned docs;
    size_t merged; /* pairs copied by merge keys so far */
    int rc;        /* first fatal status */
} builder;

/* --- Errors ------------------------------------------------------------------ */

static weir_spec_pos mark_pos(yaml_mark_t m)
{
    weir_spec_pos p = { (unsigned)(m.line + 1), (unsigned)(m.column + 1) };
    return p;
}

#define FATAL(b, pos, ...)                                                    \
    do {                                                                      \
        SPEC_REPORT((b)->rep, YAML_ERROR, (pos), __VA_ARGS__);                \
        (b)->rc = WEIR_ESPEC;                                                 \
    } while (0)

static void oom(builder *b)
{
    if (!b->rc)
        b->rc = WEIR_ENOMEM;
}

static int parser_error(builder *b, const yaml_parser_t *p)
{
    const char *problem = p->problem ? p->problem : "invalid YAML";
    switch (p->error) {
    case YAML_MEMORY_ERROR:
        return WEIR_ENOMEM;
    case YAML_READER_ERROR: {
        weir_spec_pos pos = weir__spec_pos_at(b->rep->text, b->rep->len,
                                              p->problem_offset);
        if (p->problem_value != -1)
            SPEC_REPORT(b->rep, YAML_ERROR, pos,
                        "YAML error: %s (#%X at byte %zu).", problem,
                        (unsigned)p->problem_value, p->problem_offset);
        else
            SPEC_REPORT(b->rep, YAML_ERROR, pos,
                        "YAML error: %s (at byte %zu).", problem,
                        p->problem_offset);
        return WEIR_ESPEC;
    }
    default:
        if (p->context)
            SPEC_REPORT(b->rep, YAML_ERROR, mark_pos(p->problem_mark),
                        "YAML error: %s (%s started at line %zu, column "
                        "%zu).",
                        problem, p->context, p->context_mark.line + 1,
                        p->context_mark.column + 1);
        else
            SPEC_REPORT(b->rep, YAML_ERROR, mark_pos(p->problem_mark),
                        "YAML error: %s.", problem);
        return WEIR_ESPEC;
    }
}

/* --- Scalar typing (PyYAML's YAML 1.1 implicit resolvers) ---------------- */

static bool digit(char c) { return c >= '0' && c <= '9'; }
static bool hexdigit(char c)
{
    return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool one_of(const char *s, size_t n, const char *const *words)
{
    for (; *words; words++)
        if (strlen(*words) == n && memcmp(*words, s, n) == 0)
            return true;
    return false;
}

/* Accept a run of chars from a set (digits, '_' ...); returns the count. */
static size_t span(const char *s, size_t n, size_t i, bool (*ok)(char))
{
    size_t j = i;
    while (j < n && ok(s[j]))
        j++;
    return j - i;
}
static bool digit_(char c) { return digit(c) || c == '_'; }
static bool octal_(char c) { return (c >= '0' && c <= '7') || c == '_'; }
static bool binary_(char c) { return c == '0' || c == '1' || c == '_'; }
static bool hex_(char c) { return hexdigit(c) || c == '_'; }

/* (?::[0-5]?[0-9])+ starting at i; returns the end or i when none. */
static size_t sexagesimal(const char *s, size_t n, size_t i)
{
    size_t j = i;
    for (;;) {
        if (j >= n || s[j] != ':')
            return j;
        size_t k = j + 1;
        if (k + 1 < n && s[k] >= '0' && s[k] <= '5' && digit(s[k + 1]))
            k += 2;
        else if (k < n && digit(s[k]))
            k += 1;
        else
            return j;
        j = k;
    }
}

/* (?:[eE][-+][0-9]+)? at i; returns the end. */
static size_t exponent(const char *s, size_t n, size_t i)
{
    if (i + 2 < n && (s[i] == 'e' || s[i] == 'E') &&
        (s[i + 1] == '-' || s[i + 1] == '+') && digit(s[i + 2])) {
        size_t j = i + 2;
        while (j < n && digit(s[j]))
            j++;
        return j;
    }
    return i;
}

static bool is_int(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    if (i >= n)
        return false;
    if (n - i > 2 && s[i] == '0' && s[i + 1] == 'b')
        return span(s, n, i + 2, binary_) == n - i - 2;
    if (n - i > 2 && s[i] == '0' && s[i + 1] == 'x')
        return span(s, n, i + 2, hex_) == n - i - 2;
    if (s[i] == '0')
        return n - i == 1 || span(s, n, i + 1, octal_) == n - i - 1;
    if (s[i] < '1' || s[i] > '9')
        return false;
    size_t j = i + 1 + span(s, n, i + 1, digit_);
    if (j == n)
        return true;
    return sexagesimal(s, n, j) == n && j < n;
}

static bool is_float(const char *s, size_t n)
{
    static const char *const inf[] = { ".inf", ".Inf", ".INF", NULL };
    static const char *const nan[] = { ".nan", ".NaN", ".NAN", NULL };
    if (one_of(s, n, nan))
        return true;
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    if (one_of(s + i, n - i, inf))
        return true;
    if (i == 0 && n > 1 && s[0] == '.' && digit(s[1])) {
        /* \.[0-9][0-9_]*(?:[eE][-+][0-9]+)? */
        size_t j = 2 + span(s, n, 2, digit_);
        return exponent(s, n, j) == n;
    }
    if (i >= n || !digit(s[i]))
        return false;
    size_t j = i + 1 + span(s, n, i + 1, digit_);
    if (j < n && s[j] == '.') {
        /* [0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)? */
        j++;
        j += span(s, n, j, digit_);
        return exponent(s, n, j) == n;
    }
    /* [0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]* */
    size_t k = sexagesimal(s, n, j);
    if (k == j || k >= n || s[k] != '.')
        return false;
    k++;
    return k + span(s, n, k, digit_) == n;
}

/* 1 = date, 2 = datetime, 0 = neither. */
static int timestamp_kind(const char *s, size_t n)
{
    if (n == 10 && digit(s[0]) && digit(s[1]) && digit(s[2]) &&
        digit(s[3]) && s[4] == '-' && digit(s[5]) && digit(s[6]) &&
        s[7] == '-' && digit(s[8]) && digit(s[9]))
        return 1;
    /* [0-9]{4}-[0-9]{1,2}-[0-9]{1,2} */
    if (n < 4 || !digit(s[0]) || !digit(s[1]) || !digit(s[2]) ||
        !digit(s[3]))
        return 0;
    size_t i = 4;
    for (int part = 0; part < 2; part++) {
        if (i >= n || s[i] != '-')
            return 0;
        i++;
        if (i >= n || !digit(s[i]))
            return 0;
        i++;
        if (i < n && digit(s[i]))
            i++;
    }
    /* (?:[Tt]|[ \t]+) */
    if (i < n && (s[i] == 'T' || s[i] == 't')) {
        i++;
    } else {
        size_t j = i;
        while (j < n && (s[j] == ' ' || s[j] == '\t'))
            j++;
        if (j == i)
            return 0;
        i = j;
    }
    /* [0-9][0-9]?:[0-9][0-9]:[0-9][0-9] */
    if (i >= n || !digit(s[i]))
        return 0;
    i++;
    if (i < n && digit(s[i]))
        i++;
    for (int part = 0; part < 2; part++) {
        if (i + 3 > n || s[i] != ':' || !digit(s[i + 1]) ||
            !digit(s[i + 2]))
            return 0;
        i += 3;
    }
    /* (?:\.[0-9]*)? */
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && digit(s[i]))
            i++;
    }
    /* (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))? */
    if (i == n)
        return 2;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i < n && s[i] == 'Z')
        return i + 1 == n ? 2 : 0;
    if (i >= n || (s[i] != '-' && s[i] != '+'))
        return 0;
    i++;
    if (i >= n || !digit(s[i]))
        return 0;
    i++;
    if (i < n && digit(s[i]))
        i++;
    if (i == n)
        return 2;
    if (i + 3 == n && s[i] == ':' && digit(s[i + 1]) && digit(s[i + 2]))
        return 2;
    return 0;
}

static const char *resolve_plain(const char *s, size_t n)
{
    static const char *const bools[] = {
        "yes", "Yes", "YES", "no",    "No",    "NO",    "true", "True", "TRUE",
        "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", NULL
    };
    static const char *const nulls[] = { "~", "null", "Null", "NULL", NULL };
    if (n == 0 || one_of(s, n, nulls))
        return "NoneType";
    if (one_of(s, n, bools))
        return "bool";
    if (is_float(s, n))
        return "float";
    if (is_int(s, n))
        return "int";
    if (n == 2 && s[0] == '<' && s[1] == '<')
        return "merge";
    if (n == 1 && s[0] == '=')
        return "value";
    switch (timestamp_kind(s, n)) {
    case 1:
        return "date";
    case 2:
        return "datetime";
    default:
        return "str";
    }
}

/* --- Tags ------------------------------------------------------------------- */

static const char *node_word(weir_spec_ykind k)
{
    return k == WEIR_SPEC_YSCALAR ? "scalar"
           : k == WEIR_SPEC_YSEQ  ? "sequence"
                                  : "mapping";
}

/* The Python type for a node of kind k with tag (NULL or "!" = none), or
 * NULL with a fatal problem reported, as PyYAML's SafeConstructor would
 * fail. */
static const char *typed(builder *b, weir_spec_ykind k, const char *tag,
                         bool plain_implicit, const char *s, size_t n,
                         weir_spec_pos pos)
{
    static const struct {
        const char *tag, *type;
        weir_spec_ykind kind;
    } known[] = {
        { YTAG "str", "str", WEIR_SPEC_YSCALAR },
        { YTAG "int", "int", WEIR_SPEC_YSCALAR },
        { YTAG "float", "float", WEIR_SPEC_YSCALAR },
        { YTAG "bool", "bool", WEIR_SPEC_YSCALAR },
        { YTAG "null", "NoneType", WEIR_SPEC_YSCALAR },
        { YTAG "binary", "bytes", WEIR_SPEC_YSCALAR },
        { YTAG "timestamp", "datetime", WEIR_SPEC_YSCALAR },
        { YTAG "merge", "merge", WEIR_SPEC_YSCALAR },
        { YTAG "value", "value", WEIR_SPEC_YSCALAR },
        { YTAG "seq", "list", WEIR_SPEC_YSEQ },
        { YTAG "omap", "omap", WEIR_SPEC_YSEQ },
        { YTAG "pairs", "pairs", WEIR_SPEC_YSEQ },
        { YTAG "map", "dict", WEIR_SPEC_YMAP },
        { YTAG "set", "set", WEIR_SPEC_YMAP },
    };
    if (!tag || strcmp(tag, "!") == 0) {
        if (k == WEIR_SPEC_YSEQ)
            return "list";
        if (k == WEIR_SPEC_YMAP)
            return "dict";
        return plain_implicit ? resolve_plain(s, n) : "str";
    }
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(tag, known[i].tag) != 0)
            continue;
        if (known[i].kind != k) {
            FATAL(b, pos, "YAML error: expected a %s node, but found %s.",
                  node_word(known[i].kind), node_word(k));
            return NULL;
        }
        if (k == WEIR_SPEC_YSCALAR && strcmp(known[i].type, "datetime") == 0
            && timestamp_kind(s, n) == 1)
            return "date";
        return known[i].type;
    }
    FATAL(b, pos,
          "YAML error: could not determine a constructor for the tag "
          "'%.*s'.",
          weir__spec_clip(tag), tag);
    return NULL;
}

/* --- Building the tree -------------------------------------------------------- */

static weir_spec_ynode *new_node(builder *b, weir_spec_ykind k,
                                 weir_spec_pos pos)
{
    weir_spec_ynode *node = weir__arena_alloc(b->arena, sizeof(*node));
    if (!node) {
        oom(b);
        return NULL;
    }
    node->kind = k;
    node->pos = pos;
    return node;
}

/* Register an anchor at a node's start; NULL (with rc set) on error. */
static anchor *define_anchor(builder *b, const unsigned char *name,
                             weir_spec_pos pos)
{
    anchor *old = weir__map_get(&b->anchors, (const char *)name);
    if (old) {
        FATAL(b, pos,
              "YAML error: found duplicate anchor '%.*s'; first occurrence "
              "at line %u, column %u.",
              weir__spec_clip((const char *)name), (const char *)name,
              old->pos.line, old->pos.column);
        return NULL;
    }
    anchor *a = weir__arena_alloc(b->arena, sizeof(*a));
    char *key = weir__arena_strdup(b->arena, (const char *)name);
    if (!a || !key || weir__map_put(&b->anchors, key, a)) {
        oom(b);
        return NULL;
    }
    a->pos = pos;
    return a;
}

/* Attach a finished node to the open collection, or make it the root. */
static void add_child(builder *b, weir_spec_ynode *node)
{
    if (b->frames.len == 0) {
        if (strcmp(node->type, "merge") == 0 ||
            strcmp(node->type, "value") == 0)
            FATAL(b, node->pos,
                  "YAML error: could not determine a constructor for the "
                  "tag '" YTAG "%s'.",
                  node->type);
        b->root = node;
        return;
    }
    frame *f = &b->frames.items[b->frames.len - 1];
    bool is_key = f->node->kind == WEIR_SPEC_YMAP &&
                  (b->kids.len - f->first) % 2 == 0;
    if (is_key && node->kind != WEIR_SPEC_YSCALAR) {
        FATAL(b, node->pos,
              "YAML error: found unhashable key (a %s) while constructing "
              "a mapping.",
              node_word(node->kind));
        return;
    }
    if (is_key && strcmp(node->type, "value") == 0) {
        node->type = "str";
    } else if (!is_key && (strcmp(node->type, "merge") == 0 ||
                           strcmp(node->type, "value") == 0)) {
        FATAL(b, node->pos,
              "YAML error: could not determine a constructor for the tag "
              "'" YTAG "%s'.",
              node->type);
        return;
    }
    if (WEIR_VEC_PUSH(&b->kids, node))
        oom(b);
}

static void on_scalar(builder *b, const yaml_event_t *ev)
{
    weir_spec_pos pos = mark_pos(ev->start_mark);
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *type = typed(b, WEIR_SPEC_YSCALAR,
                             (const char *)ev->data.scalar.tag,
                             ev->data.scalar.plain_implicit, s, n, pos);
    if (!type)
        return;
    weir_spec_ynode *node = new_node(b, WEIR_SPEC_YSCALAR, pos);
    if (!node)
        return;
    node->type = type;
    node->text = weir__arena_strndup(b->arena, s, n);
    node->len = n;
    if (!node->text) {
        oom(b);
        return;
    }
    if (ev->data.scalar.anchor) {
        anchor *a = define_anchor(b, ev->data.scalar.anchor, pos);
        if (!a)
            return;
        a->node = node;
    }
    add_child(b, node);
}

static void on_alias(builder *b, const yaml_event_t *ev)
{
    weir_spec_pos pos = mark_pos(ev->start_mark);
    const char *name = (const char *)ev->data.alias.anchor;
    anchor *a = weir__map_get(&b->anchors, name);
    if (!a || !a->node) {
        FATAL(b, pos,
              a ? "YAML error: found recursive alias '%.*s' (an alias "
                  "inside the node it names)."
                : "YAML error: found undefined alias '%.*s'.",
              weir__spec_clip(name), name);
        return;
    }
    weir_spec_ynode *copy = new_node(b, a->node->kind, pos);
    if (!copy)
        return;
    *copy = *a->node; /* shares the children: no expansion */
    copy->pos = pos;
    add_child(b, copy);
}

static void on_start(builder *b, const yaml_event_t *ev, weir_spec_ykind k)
{
    weir_spec_pos pos = mark_pos(ev->start_mark);
    const unsigned char *tag_u, *name;
    if (k == WEIR_SPEC_YSEQ) {
        tag_u = ev->data.sequence_start.tag;
        name = ev->data.sequence_start.anchor;
    } else {
        tag_u = ev->data.mapping_start.tag;
        name = ev->data.mapping_start.anchor;
    }
    if (b->frames.len >= MAX_DEPTH) {
        FATAL(b, pos, "YAML error: the document nests deeper than %d levels.",
              MAX_DEPTH);
        return;
    }
    const char *type = typed(b, k, (const char *)tag_u, false, NULL, 0, pos);
    if (!type)
        return;
    weir_spec_ynode *node = new_node(b, k, pos);
    if (!node)
        return;
    node->type = type;
    frame f = { node, b->kids.len, NULL };
    if (name && !(f.named = define_anchor(b, name, pos)))
        return;
    if (WEIR_VEC_PUSH(&b->frames, f))
        oom(b);
}

/* Identity of a key for duplicate detection: the text for strings, the
 * type and text otherwise (`1` and "1" are different keys). */
static const char *key_id(builder *b, const weir_spec_ynode *k)
{
    if (strcmp(k->type, "str") == 0)
        return k->text;
    if (strcmp(k->type, "NoneType") == 0)
        return "\x01NoneType";
    return weir__arena_printf(b->arena, "\x01%s:%s", k->type, k->text);
}

typedef struct pair {
    weir_spec_ynode *key, *value;
    bool own; /* written in this mapping, not merged in */
} pair;

typedef WEIR_VEC(pair) pair_vec;

static bool append_pairs(builder *b, pair_vec *v, const weir_spec_ynode *m)
{
    b->merged += m->n / 2;
    if (b->merged > MAX_MERGED_PAIRS) {
        FATAL(b, m->pos,
              "YAML error: merge keys (<<) copy more than %d entries.",
              MAX_MERGED_PAIRS);
        return false;
    }
    for (size_t i = 0; i + 1 < m->n; i += 2) {
        pair p = { m->items[i], m->items[i + 1], false };
        if (WEIR_VEC_PUSH(v, p)) {
            oom(b);
            return false;
        }
    }
    return true;
}

/* Merged pairs first (PyYAML's flatten_mapping order: later `<<` lists
 * come first, earlier maps of one list win), then the mapping's own. */
static bool gather_pairs(builder *b, pair_vec *v, weir_spec_ynode **kids,
                         size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        const weir_spec_ynode *k = kids[i], *val = kids[i + 1];
        if (strcmp(k->type, "merge") != 0)
            continue;
        if (val->kind == WEIR_SPEC_YMAP) {
            if (!append_pairs(b, v, val))
                return false;
            continue;
        }
        if (val->kind != WEIR_SPEC_YSEQ) {
            FATAL(b, val->pos,
                  "YAML error: expected a mapping or list of mappings for "
                  "merging, but found %s.",
                  node_word(val->kind));
            return false;
        }
        for (size_t j = val->n; j-- > 0;) {
            const weir_spec_ynode *m = val->items[j];
            if (m->kind != WEIR_SPEC_YMAP) {
                FATAL(b, m->pos,
                      "YAML error: expected a mapping for merging, but "
                      "found %s.",
                      node_word(m->kind));
                return false;
            }
            if (!append_pairs(b, v, m))
                return false;
        }
    }
    for (size_t i = 0; i + 1 < n; i += 2) {
        if (strcmp(kids[i]->type, "merge") == 0)
            continue;
        pair p = { kids[i], kids[i + 1], true };
        if (WEIR_VEC_PUSH(v, p)) {
            oom(b);
            return false;
        }
    }
    return true;
}

/* Later pairs replace earlier ones in place (a Python dict); two of the
 * mapping's own pairs with one key are a duplicate, reported. */
static void finish_map(builder *b, weir_spec_ynode *m, weir_spec_ynode **kids,
                       size_t n)
{
    pair_vec all = WEIR_VEC_INIT;
    weir_map seen = WEIR_MAP_INIT(false);
    if (!gather_pairs(b, &all, kids, n))
        goto out;
    pair *outp = weir__arena_array(b->arena, all.len ? all.len : 1,
                                   sizeof(*outp));
    if (!outp) {
        oom(b);
        goto out;
    }
    size_t count = 0;
    for (size_t i = 0; i < all.len; i++) {
        pair p = all.items[i];
        const char *id = key_id(b, p.key);
        if (!id) {
            oom(b);
            goto out;
        }
        uintptr_t at = (uintptr_t)weir__map_get(&seen, id);
        if (!at) {
            outp[count++] = p;
            if (weir__map_put(&seen, id, (void *)(uintptr_t)count)) {
                oom(b);
                goto out;
            }
        } else if (p.own && outp[at - 1].own) {
            const weir_spec_ynode *first = outp[at - 1].key;
            SPEC_REPORT(b->rep, "PIPELINE_SPEC_DUPLICATE_KEY", p.key->pos,
                        "Duplicate key `%.*s` in a mapping (first defined "
                        "at line %u, column %u).",
                        weir__spec_clip(p.key->text), p.key->text,
                        first->pos.line, first->pos.column);
        } else {
            outp[at - 1] = p;
        }
    }
    m->items = weir__arena_array(b->arena, count ? 2 * count : 1,
                                 sizeof(*m->items));
    if (!m->items) {
        oom(b);
        goto out;
    }
    for (size_t i = 0; i < count; i++) {
        m->items[2 * i] = outp[i].key;
        m->items[2 * i + 1] = outp[i].value;
    }
    m->n = 2 * count;
out:
    WEIR_VEC_FREE(&all);
    weir__map_free(&seen);
}

static void on_end(builder *b)
{
    if (b->frames.len == 0)
        return; /* cannot happen: libyaml balances events */
    frame f = b->frames.items[--b->frames.len];
    weir_spec_ynode *node = f.node;
    size_t n = b->kids.len - f.first;
    weir_spec_ynode **kids = n ? b->kids.items + f.first : NULL;
    if (node->kind == WEIR_SPEC_YMAP) {
        finish_map(b, node, kids, n);
    } else {
        node->items = weir__arena_array(b->arena, n ? n : 1,
                                        sizeof(*node->items));
        if (!node->items)
            oom(b);
        else if (n)
            memcpy(node->items, kids, n * sizeof(*kids));
        node->n = n;
    }
    b->kids.len = f.first;
    if (b->rc)
        return;
    if (f.named)
        f.named->node = node;
    add_child(b, node);
}

static void on_event(builder *b, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (b->docs++ > 0)
            FATAL(b, mark_pos(ev->start_mark),
                  "YAML error: expected a single document in the stream, but "
                  "found another document.");
        break;
    case YAML_SCALAR_EVENT:
        on_scalar(b, ev);
        break;
    case YAML_ALIAS_EVENT:
        on_alias(b, ev);
        break;
    case YAML_SEQUENCE_START_EVENT:
        on_start(b, ev, WEIR_SPEC_YSEQ);
        break;
    case YAML_MAPPING_START_EVENT:
        on_start(b, ev, WEIR_SPEC_YMAP);
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        on_end(b);
        break;
    default:
        break;
    }
}

int weir__spec_yaml_parse(weir_spec_ynode **out, weir_arena *arena,
                          const char *text, size_t len, weir_spec_report *r)
{
    *out = NULL;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return WEIR_ENOMEM;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    builder b = { arena, r, WEIR_VEC_INIT, WEIR_VEC_INIT,
                  WEIR_MAP_INIT(false), NULL, 0, 0, 0 };
    bool done = false;
    while (!done && !b.rc) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            b.rc = parser_error(&b, &parser);
            break;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        on_event(&b, &ev);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    WEIR_VEC_FREE(&b.kids);
    WEIR_VEC_FREE(&b.frames);
    weir__map_free(&b.anchors);
    if (!b.rc && weir__arena_failed(arena))
        b.rc = WEIR_ENOMEM;
    if (!b.rc)
        *out = b.root;
    return b.rc;
}
