/*
 * `weir events`: the event log of an update (weir.event_log, read with plain
 * Spark SQL through weir_pipeline_query), as a table of the interesting
 * columns or as CSV/JSON with every column. --quality instead sums, per
 * dataset and expectation, the passed and failed records reported in
 * details.flow_progress.data_quality.expectations of flow_progress events;
 * the JSON is read here so the SQL stays within what Spark and DuckDB share.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define EVENT_COLUMNS                                                          \
    "id, update_id, sequence, `timestamp`, level, event_type, message, "      \
    "flow_name, dataset_name, details, error"

/* Update ids are UUIDs; allowing only these characters keeps them safe to
 * put in a SQL literal. */
static bool valid_update_id(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n <= 64 &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_-") == n;
}

static int query(const cli *c, project *p, const char *sql, weir_result **out)
{
    weir_error err;
    memset(&err, 0, sizeof err);
    *out = NULL;
    int rc = weir_pipeline_query(p->pipeline, sql, out, &err);
    if (rc != 0) {
        print_failure(c, p->pipeline, rc, &err);
        weir_result_free(*out);
        *out = NULL;
        return exit_code_for(rc);
    }
    return EXIT_OK;
}

/* The update of the most recent event into id; id[0] = '\0' when the log
 * is empty. */
static int latest_update(const cli *c, project *p, char *id, size_t size)
{
    weir_result *r;
    int code = query(c, p,
                     "SELECT update_id FROM weir.event_log "
                     "ORDER BY sequence DESC LIMIT 1",
                     &r);
    id[0] = '\0';
    if (code == EXIT_OK && weir_result_row_count(r) > 0 &&
        weir_result_column_count(r) > 0 && weir_result_value(r, 0, 0))
        snprintf(id, size, "%s", weir_result_value(r, 0, 0));
    weir_result_free(r);
    return code;
}

/* " WHERE update_id = '<id>'" (with `extra` and-ed in), or only `extra`. */
static void where(char *buf, size_t size, const char *id, const char *extra)
{
    if (id && extra)
        snprintf(buf, size, " WHERE update_id = '%s' AND %s", id, extra);
    else if (id)
        snprintf(buf, size, " WHERE update_id = '%s'", id);
    else if (extra)
        snprintf(buf, size, " WHERE %s", extra);
    else
        buf[0] = '\0';
}

static int show_events(const cli *c, project *p, const char *id,
                       out_format fmt)
{
    static const bool json_cols[] = { false, false, false, false, false, false,
                                      false, false, false, true,  true };
    char cond[160], sql[512];
    weir_result *r;
    grid g;

    where(cond, sizeof cond, id, NULL);
    if (fmt == FORMAT_TABLE)
        snprintf(sql, sizeof sql,
                 "SELECT %s`timestamp`, level, event_type, flow_name, message "
                 "FROM weir.event_log%s ORDER BY sequence",
                 id ? "" : "update_id, ", cond);
    else
        snprintf(sql, sizeof sql,
                 "SELECT " EVENT_COLUMNS " FROM weir.event_log%s "
                 "ORDER BY sequence",
                 cond);
    int code = query(c, p, sql, &r);
    if (code != EXIT_OK)
        return code;
    grid_from_result(&g, r);
    if (fmt == FORMAT_JSON && g.n_cols == sizeof json_cols / sizeof json_cols[0])
        g.json_cols = json_cols;
    if (fmt == FORMAT_TABLE && id)
        printf("Update %s\n", id);
    grid_print(&g, fmt, stdout);
    weir_result_free(r);
    return EXIT_OK;
}

/* --- Expectation results -------------------------------------------------------- */

typedef struct quality_row {
    char *dataset, *name;
    int64_t passed, failed;
    char text[2][24]; /* passed and failed, formatted */
} quality_row;

typedef struct quality {
    quality_row *rows;
    size_t n, cap;
} quality;

static const char *quality_name(const void *data, size_t col)
{
    static const char *const names[] = { "dataset", "expectation",
                                         "passed_records", "failed_records" };
    (void)data;
    return names[col];
}

static bool quality_numeric(const void *data, size_t col)
{
    (void)data;
    return col >= 2;
}

static const char *quality_value(const void *data, size_t col, size_t row)
{
    const quality_row *r = &((const quality *)data)->rows[row];
    return col == 0 ? r->dataset : col == 1 ? r->name : r->text[col - 2];
}

static quality_row *quality_find(quality *q, const char *dataset,
                                 const char *name)
{
    for (size_t i = 0; i < q->n; i++)
        if (!strcmp(q->rows[i].dataset, dataset) && !strcmp(q->rows[i].name, name))
            return &q->rows[i];
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 16;
        quality_row *rows = realloc(q->rows, cap * sizeof *rows);
        if (!rows)
            return NULL;
        q->rows = rows;
        q->cap = cap;
    }
    quality_row *r = &q->rows[q->n];
    memset(r, 0, sizeof *r);
    r->dataset = strdup(dataset);
    r->name = strdup(name);
    if (!r->dataset || !r->name) {
        free(r->dataset);
        free(r->name);
        return NULL;
    }
    q->n++;
    return r;
}

/* Add the expectations of one flow_progress event's details. */
static bool quality_add(quality *q, const char *details)
{
    const char *list = json_member(
        json_member(json_member(details, "flow_progress"), "data_quality"),
        "expectations");
    for (const char *e = json_first(list); e; e = json_next(e)) {
        char dataset[512] = "", name[512] = "";
        int64_t passed = 0, failed = 0;
        json_get_string(json_member(e, "dataset"), dataset, sizeof dataset);
        json_get_string(json_member(e, "name"), name, sizeof name);
        json_get_int(json_member(e, "passed_records"), &passed);
        json_get_int(json_member(e, "failed_records"), &failed);
        quality_row *r = quality_find(q, dataset, name);
        if (!r)
            return false;
        r->passed += passed;
        r->failed += failed;
    }
    return true;
}

static void quality_free(quality *q)
{
    for (size_t i = 0; i < q->n; i++) {
        free(q->rows[i].dataset);
        free(q->rows[i].name);
    }
    free(q->rows);
}

static int show_quality(const cli *c, project *p, const char *id,
                        out_format fmt)
{
    char cond[200], sql[512];
    weir_result *r;
    quality q = { NULL, 0, 0 };
    bool ok = true;

    where(cond, sizeof cond, id, "event_type = 'flow_progress'");
    snprintf(sql, sizeof sql,
             "SELECT details FROM weir.event_log%s ORDER BY sequence", cond);
    int code = query(c, p, sql, &r);
    if (code != EXIT_OK)
        return code;
    for (size_t i = 0; ok && i < weir_result_row_count(r); i++) {
        const char *details = weir_result_value(r, 0, i);
        if (details)
            ok = quality_add(&q, details);
    }
    weir_result_free(r);
    if (!ok) {
        print_error(c, "out of memory");
        quality_free(&q);
        return EXIT_FAILED;
    }
    for (size_t i = 0; i < q.n; i++) {
        snprintf(q.rows[i].text[0], 24, "%lld", (long long)q.rows[i].passed);
        snprintf(q.rows[i].text[1], 24, "%lld", (long long)q.rows[i].failed);
    }
    grid g = { 4, q.n, quality_name, quality_numeric, quality_value, &q, NULL };
    if (fmt == FORMAT_TABLE && id)
        printf("Update %s\n", id);
    grid_print(&g, fmt, stdout);
    if (fmt == FORMAT_TABLE && !q.n)
        fputs(id ? "No expectation was checked in this update: no dataset "
                   "with expectations read new rows (weir events --quality "
                   "--update all shows every update's).\n"
                 : "No expectation was checked in any update.\n",
              stderr);
    quality_free(&q);
    return EXIT_OK;
}

/* --- The command ------------------------------------------------------------------ */

typedef struct events_args {
    const char *spec, *update;
    const char *remote; /* --remote sc://...: the updates run there */
    out_format fmt;
    bool quality;
    load_args load; /* --env, --conf (the environment's storage) */
} events_args;

/* Parse argv into a; returns -1 to go on, or the exit code. */
static int parse(const cli *c, events_args *a, int argc, char **argv)
{
    static const opt_def defs[] = {
        { "spec", true },  { "update", true }, { "format", true },
        { "quality", false }, { "env", true }, { "conf", true },
        { "remote", true }, { NULL, false },
    };
    const char *value = NULL;
    opt_iter it;
    int id;

    opt_init(&it, argv[0], argc, argv);
    while ((id = opt_next(&it, defs, &value)) != OPT_END) {
        switch (id) {
        case OPT_HELP: help_command(stdout, "events"); return EXIT_OK;
        case OPT_ERROR: return EXIT_USAGE;
        case OPT_POSITIONAL: return opt_unexpected(&it, value);
        case 0: a->spec = value; break;
        case 1: a->update = value; break;
        case 2:
            if (!parse_format(value, &a->fmt)) {
                print_error(c, "unknown format '%s' (use table, csv or json)",
                            value);
                return EXIT_USAGE;
            }
            break;
        case 3: a->quality = true; break;
        case 4: a->load.env = value; break;
        case 5: {
            int code = load_args_conf(c, &a->load, value);
            if (code >= 0)
                return code;
            break;
        }
        case 6:
            if (!remote_uri_check(c, value))
                return EXIT_USAGE;
            a->remote = value;
            break;
        default: break;
        }
    }
    if (strcmp(a->update, "latest") != 0 && strcmp(a->update, "all") != 0 &&
        !valid_update_id(a->update)) {
        print_error(c, "invalid update '%s': use latest, all or an update id",
                    a->update);
        return EXIT_USAGE;
    }
    return -1;
}

static int show(const cli *c, project *p, const events_args *a)
{
    char latest[128];
    const char *id = NULL;

    if (strcmp(a->update, "latest") == 0) {
        int code = latest_update(c, p, latest, sizeof latest);
        if (code != EXIT_OK)
            return code;
        if (!latest[0] || !valid_update_id(latest)) {
            if (a->fmt == FORMAT_TABLE)
                fputs("No events recorded yet: run the pipeline first.\n",
                      stderr);
            return EXIT_OK;
        }
        id = latest;
    } else if (strcmp(a->update, "all") != 0) {
        id = a->update;
    }
    return a->quality ? show_quality(c, p, id, a->fmt)
                      : show_events(c, p, id, a->fmt);
}

int cmd_events(const cli *c, int argc, char **argv)
{
    events_args a;
    project p;

    memset(&a, 0, sizeof a);
    a.update = "latest";
    a.fmt = FORMAT_TABLE;
    int code = parse(c, &a, argc, argv);
    if (code >= 0) {
        load_args_free(&a.load);
        return code;
    }
    /* The event log stays readable while a definition file has errors. */
    a.load.storage_only = true;
    code = project_open_with(&p, c, a.spec, &a.load, NULL, NULL);
    char dir[4096];
    if (code == EXIT_OK && a.remote) {
        /* The updates run with --remote are in a local folder of their
         * own: the project reopened on that storage. */
        bool named = remote_state_dir(dir, sizeof dir, a.remote, p.pipeline);
        project_close(&p);
        struct stat st;
        if (!named || stat(dir, &st) != 0) {
            if (a.fmt == FORMAT_TABLE)
                fprintf(stderr, "No events recorded yet for %s: run the "
                                "pipeline with --remote first.\n",
                        a.remote);
            load_args_free(&a.load);
            return EXIT_OK;
        }
        a.load.storage = dir;
        code = project_open_with(&p, c, a.spec, &a.load, NULL, NULL);
    }
    if (code == EXIT_OK)
        code = show(c, &p, &a);
    project_close(&p);
    load_args_free(&a.load);
    return code;
}
