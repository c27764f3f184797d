/*
 * Argument parsing for the subcommands: a getopt-like iterator over long
 * options (--name VALUE, --name=VALUE, flags, -h/--help, "--" ending the
 * options), comma-separated lists as spark-pipelines parses them, and the
 * "did you mean" suggestion for misspelt commands and options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void opt_init(opt_iter *it, const char *cmd, int argc, char **argv)
{
    it->argc = argc;
    it->argv = argv;
    it->next = 1;
    it->cmd = cmd;
    it->only_positional = false;
}

static int unknown_option(const opt_iter *it, const opt_def *defs,
                          const char *arg, size_t len)
{
    const char *names[32];
    char given[64];
    size_t n = 0;

    for (size_t i = 0; defs[i].name && n < 31; i++)
        names[n++] = defs[i].name;
    names[n++] = "help";
    print_error(NULL, "unknown option '%.*s'", (int)len, arg);
    if (len > 2 && arg[1] == '-' && len - 2 < sizeof given) {
        memcpy(given, arg + 2, len - 2);
        given[len - 2] = '\0';
        const char *guess = opt_suggest(given, names, n);
        if (guess)
            fprintf(stderr, "Did you mean '--%s'?\n", guess);
    }
    fprintf(stderr, "Run 'weir %s --help' for its options.\n", it->cmd);
    return OPT_ERROR;
}

static int find_def(const opt_def *defs, const char *name, size_t len)
{
    for (int i = 0; defs[i].name; i++) {
        if (strlen(defs[i].name) == len && memcmp(defs[i].name, name, len) == 0)
            return i;
    }
    return -1;
}

/* The value of option defs[id] (argument arg, "=" at eq or NULL). */
static int take_value(opt_iter *it, const opt_def *def, int id,
                      const char *eq, const char **value)
{
    if (!def->takes_value) {
        if (eq) {
            print_error(NULL, "option '--%s' takes no value", def->name);
            return OPT_ERROR;
        }
        *value = NULL;
        return id;
    }
    if (eq) {
        *value = eq + 1;
        return id;
    }
    const char *next = it->next < it->argc ? it->argv[it->next] : NULL;
    if (!next || (next[0] == '-' && next[1] != '\0')) {
        print_error(NULL, "option '--%s' needs a value", def->name);
        fprintf(stderr, "Run 'weir %s --help' for its options.\n", it->cmd);
        return OPT_ERROR;
    }
    it->next++;
    *value = next;
    return id;
}

int opt_next(opt_iter *it, const opt_def *defs, const char **value)
{
    while (it->next < it->argc) {
        const char *arg = it->argv[it->next++];

        if (it->only_positional || arg[0] != '-' || arg[1] == '\0') {
            *value = arg;
            return OPT_POSITIONAL;
        }
        if (strcmp(arg, "--") == 0) {
            it->only_positional = true;
            continue;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
            return OPT_HELP;
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        int id = arg[1] == '-' ? find_def(defs, arg + 2, len - 2) : -1;
        if (id < 0)
            return unknown_option(it, defs, arg, len);
        return take_value(it, &defs[id], id, eq, value);
    }
    return OPT_END;
}

int opt_unexpected(const opt_iter *it, const char *arg)
{
    print_error(NULL, "unexpected argument '%s'", arg);
    fprintf(stderr, "Run 'weir %s --help' for its usage.\n", it->cmd);
    return EXIT_USAGE;
}

/* --- Comma-separated lists ----------------------------------------------- */

static bool push(strlist *l, const char *s, size_t len)
{
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        if (cap > SIZE_MAX / sizeof *l->items)
            return false;
        char **items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return false;
        l->items = items;
        l->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return false;
    memcpy(copy, s, len);
    copy[len] = '\0';
    l->items[l->len++] = copy;
    return true;
}

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
           ch == '\f' || ch == '\v';
}

bool strlist_add_csv(strlist *l, const char *text)
{
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        const char *stop = end ? end : p + strlen(p);
        const char *a = p, *b = stop;
        while (a < b && is_blank(*a))
            a++;
        while (b > a && is_blank(b[-1]))
            b--;
        if (b > a && !push(l, a, (size_t)(b - a)))
            return false;
        if (!end)
            return true;
        p = end + 1;
    }
}

bool strlist_add(strlist *l, const char *text)
{
    return push(l, text, strlen(text));
}

void strlist_free(strlist *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
}

/* --- Suggestions ------------------------------------------------------------ */

/* Edit distance between a and b, a swap of neighbours counting as one
 * edit (optimal string alignment), for words of at most 31 characters. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t d[32][32];

    if (la > 31 || lb > 31)
        return SIZE_MAX;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

const char *opt_suggest(const char *word, const char *const *candidates,
                        size_t n)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    size_t limit = strlen(word) < 5 ? 1 : 2;

    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best_d <= limit ? best : NULL;
}
