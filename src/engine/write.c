/*
 * Writing a flow's batch into its target, enforcing the target's
 * expectations in the same pass: each condition is evaluated once per row
 * in the statement that writes the batch, where a tally (store/db.h)
 * counts every condition's failures and the dropped rows as the rows go
 * by; the counts become the flow's data-quality metrics. A target with
 * QUARANTINE expectations has two outputs, so its batch is produced once
 * into a per-connection temporary table and split from there. A failing
 * FAIL UPDATE expectation aborts the flow's transaction with the offending
 * record. See docs/expectations.md.
 */
#include "engine/write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "util/str.h"

#define BATCH "\"__weir_batch\""

static void phys(weir_buf *b, const weir_gdataset *d)
{
    weir__storage_table_ref(b, d->catalog, d->database, d->name);
}

void weir__quarantine_ref(weir_buf *b, const weir_gdataset *d)
{
    char name[600];
    snprintf(name, sizeof(name), "%s_quarantine", d->name);
    weir__storage_table_ref(b, d->catalog, d->database, name);
}

bool weir__has_quarantine(const weir_gdataset *d)
{
    for (size_t i = 0; i < d->n_expectations; i++)
        if (d->expectations[i].action == WEIR_SQL_VIOLATION_QUARANTINE)
            return true;
    return false;
}

static int exec_sql(weir_flow_exec *x, weir_buf *sql, int64_t *changed)
{
    if (sql->failed)
        return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    return weir__conn_exec(x->conn, weir__buf_cstr(sql), changed, &x->err);
}

/* CREATE TABLE .. AS answers with its row count (its rows_changed is 0):
 * read it there instead of counting the table again. */
static int exec_write(weir_flow_exec *x, weir_buf *sql, bool replace)
{
    if (!replace)
        return exec_sql(x, sql, &x->rows_written);
    if (sql->failed)
        return WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    return weir__conn_scalar_i64(x->conn, weir__buf_cstr(sql), &x->rows_written,
                                 NULL, &x->err);
}

/* Plain write, no expectations. */
static int write_plain(weir_flow_exec *x, const weir_gdataset *t,
                       const char *sql, bool replace)
{
    weir_buf q = WEIR_BUF_INIT;
    if (replace) {
        weir__buf_puts(&q, "CREATE OR REPLACE TABLE ");
        phys(&q, t);
        weir__buf_puts(&q, " AS ");
        weir__buf_puts(&q, sql);
    } else {
        weir__buf_puts(&q, "INSERT INTO ");
        phys(&q, t);
        weir__buf_puts(&q, " BY NAME ");
        weir__buf_puts(&q, sql);
    }
    int rc = exec_write(x, &q, replace);
    weir__buf_free(&q);
    return rc;
}

/* "__weir_e<i>": the flag column of expectation i. */
static void flag(weir_buf *b, size_t i)
{
    weir__buf_printf(b, "\"__weir_e%zu\"", i);
}

static void exclude_flags(weir_buf *b, size_t n)
{
    weir__buf_puts(b, "* EXCLUDE (");
    for (size_t i = 0; i < n; i++) {
        if (i)
            weir__buf_puts(b, ", ");
        flag(b, i);
    }
    weir__buf_putc(b, ')');
}

/* Rows that pass every expectation of the given actions. */
static void pass_condition(weir_buf *b, const weir_gdataset *def,
                           weir_sql_violation a1, weir_sql_violation a2)
{
    bool any = false;
    for (size_t i = 0; i < def->n_expectations; i++) {
        weir_sql_violation a = def->expectations[i].action;
        if (a != a1 && a != a2)
            continue;
        weir__buf_puts(b, any ? " AND " : "");
        flag(b, i);
        any = true;
    }
    if (!any)
        weir__buf_puts(b, "true");
}

/* Render the first row of `q`'s result as JSON into json (nothing when
 * the query fails or finds no row: the message is built without it). */
static void first_row_json(weir_flow_exec *x, weir_buf *q, weir_buf *json)
{
    weir_rows *r = NULL;
    weir_error e;
    if (!q->failed && weir__conn_query(x->conn, weir__buf_cstr(q), &r, &e) == 0 &&
        r->n_rows) {
        weir__buf_putc(json, '{');
        for (size_t c = 0; c < r->n_cols; c++) {
            const char *v = weir__rows_get(r, 0, c);
            weir__buf_puts(json, c ? ", " : "");
            weir__buf_put_json_string(json, r->names[c]);
            weir__buf_puts(json, ": ");
            if (!v)
                weir__buf_puts(json, "null");
            else if (r->numeric[c])
                weir__buf_puts(json, v);
            else
                weir__buf_put_json_string(json, v);
        }
        weir__buf_putc(json, '}');
    }
    weir__rows_free(r);
}

/* One offending record of FAIL UPDATE expectation i, as JSON: from the
 * checked batch when it was kept (sql NULL), else from the batch's query
 * again, in the same transaction (only on the way to failing the flow). */
static void offending_record(weir_flow_exec *x, const weir_gdataset *def,
                             const char *sql, size_t i, weir_buf *json)
{
    weir_buf q = WEIR_BUF_INIT;
    if (!sql) {
        weir__buf_puts(&q, "SELECT ");
        exclude_flags(&q, def->n_expectations);
        weir__buf_puts(&q, " FROM " BATCH " WHERE NOT ");
        flag(&q, i);
    } else {
        weir__buf_puts(&q, "SELECT * FROM (");
        weir__buf_puts(&q, sql);
        weir__buf_puts(&q, ") AS \"__weir_q\" WHERE NOT coalesce((");
        weir_error e;
        if (weir__sql_translate_expr(&q, def->expectations[i].condition,
                                     weir__flow_time_zone(x->f), &e))
            q.failed = true;
        weir__buf_puts(&q, "), false)");
    }
    weir__buf_puts(&q, " LIMIT 1");
    first_row_json(x, &q, json);
    weir__buf_free(&q);
}

static int check_failures(weir_flow_exec *x, const weir_gdataset *t,
                          const char *sql, const int64_t *failed)
{
    const weir_gdataset *def = t;
    for (size_t i = 0; i < def->n_expectations; i++) {
        const weir_def_expectation *e = &def->expectations[i];
        if (e->action != WEIR_SQL_VIOLATION_FAIL || failed[i] == 0)
            continue;
        weir_buf rec = WEIR_BUF_INIT;
        offending_record(x, def, sql, i, &rec);
        WEIR_ERR(&x->err, WEIR_ERROR, "EXPECTATION_VIOLATION",
                 "Expectation '%s' of %s failed for %lld record(s) of flow "
                 "'%s' (ON VIOLATION FAIL UPDATE): %s. Offending record: %s",
                 e->name, t->display, (long long)failed[i], x->f->display,
                 e->condition_text ? e->condition_text : "",
                 rec.len ? weir__buf_cstr(&rec) : "{}");
        if (e->origin.src)
        weir__origin_error_at(&x->err, &e->origin);
        weir__buf_free(&rec);
        return WEIR_ERROR;
    }
    return 0;
}

static void metrics_json(weir_flow_exec *x, const weir_gdataset *t,
                         int64_t total, const int64_t *failed, int64_t dropped)
{
    const weir_gdataset *def = t;
    weir_buf *d = &x->details;
    weir__buf_printf(d, ", \"data_quality\": {\"dropped_records\": %lld, "
                        "\"expectations\": [",
                     (long long)dropped);
    for (size_t i = 0; i < def->n_expectations; i++) {
        const weir_def_expectation *e = &def->expectations[i];
        weir__buf_puts(d, i ? ", {\"name\": " : "{\"name\": ");
        weir__buf_put_json_string(d, e->name);
        weir__buf_puts(d, ", \"dataset\": ");
        weir__buf_put_json_string(d, t->display);
        static const char *const actions[] = { "warn", "drop", "fail",
                                               "quarantine" };
        weir__buf_printf(d, ", \"action\": \"%s\", \"passed_records\": %lld, "
                            "\"failed_records\": %lld}",
                         actions[e->action], (long long)(total - failed[i]),
                         (long long)failed[i]);
    }
    weir__buf_puts(d, "]}");
}

static int split_batch(weir_flow_exec *x, const weir_gdataset *t, bool replace,
                       int64_t *quarantined)
{
    const weir_gdataset *def = t;
    size_t n = def->n_expectations;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, replace ? "CREATE OR REPLACE TABLE " : "INSERT INTO ");
    phys(&q, t);
    weir__buf_puts(&q, replace ? " AS SELECT " : " BY NAME SELECT ");
    exclude_flags(&q, n);
    weir__buf_puts(&q, " FROM " BATCH " WHERE ");
    pass_condition(&q, def, WEIR_SQL_VIOLATION_DROP,
                   WEIR_SQL_VIOLATION_QUARANTINE);
    int rc = exec_write(x, &q, replace);
    if (!rc && weir__has_quarantine(t)) {
        weir__buf_clear(&q);
        weir__buf_puts(&q, replace ? "CREATE OR REPLACE TABLE " : "INSERT INTO ");
        weir__quarantine_ref(&q, t);
        weir__buf_puts(&q, replace ? " AS SELECT " : " BY NAME SELECT ");
        exclude_flags(&q, n);
        weir__buf_puts(&q, ", list_filter([");
        for (size_t i = 0; i < n; i++) {
            weir__buf_puts(&q, i ? ", " : "");
            weir__buf_puts(&q, "CASE WHEN NOT ");
            flag(&q, i);
            weir__buf_puts(&q, " THEN ");
            weir__buf_put_sql_string(&q, def->expectations[i].name);
            weir__buf_puts(&q, " END");
        }
        weir__buf_puts(&q, "]::VARCHAR[], e -> e IS NOT NULL) AS "
                           "\"_failed_expectations\", ");
        weir__buf_put_sql_string(&q, x->update_id);
        weir__buf_puts(&q, " AS \"_update_id\", now()::TIMESTAMP AS "
                           "\"_quarantined_at\" FROM " BATCH " WHERE NOT (");
        pass_condition(&q, def, WEIR_SQL_VIOLATION_QUARANTINE,
                       WEIR_SQL_VIOLATION_QUARANTINE);
        weir__buf_putc(&q, ')');
        rc = exec_sql(x, &q, quarantined);
    }
    weir__buf_free(&q);
    return rc;
}

/* The batch of `sql` with one flag column per expectation: appended to
 * q, as SELECT *, coalesce((cond), false) AS flag... FROM (sql). */
static int flagged(weir_flow_exec *x, const weir_gdataset *def,
                   const char *sql, weir_buf *q)
{
    weir__buf_puts(q, "SELECT *");
    for (size_t i = 0; i < def->n_expectations; i++) {
        weir__buf_puts(q, ", coalesce((");
        int rc = weir__sql_translate_expr(q, def->expectations[i].condition,
                                          weir__flow_time_zone(x->f), &x->err);
        if (rc)
            return rc;
        weir__buf_puts(q, "), false) AS ");
        flag(q, i);
    }
    weir__buf_puts(q, " FROM (");
    weir__buf_puts(q, sql);
    weir__buf_puts(q, ") AS \"__weir_q\"");
    return 0;
}

/* The batch has a single output (no QUARANTINE): write it in one
 * statement, flags computed per row and counted by a tally in a column
 * the filter reads, so each condition runs once per row and nothing is
 * materialised on the way. A FAIL UPDATE expectation is checked after the
 * statement; failing, the caller rolls the write back with the batch. */
static int write_tallied(weir_flow_exec *x, const weir_gdataset *t,
                         const char *sql, bool replace)
{
    size_t n = t->n_expectations;
    weir_tally *tally = NULL;
    int rc = weir__conn_tally_open(&tally, x->conn, n, &x->err);
    if (rc)
        return rc;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, replace ? "CREATE OR REPLACE TABLE " : "INSERT INTO ");
    phys(&q, t);
    weir__buf_puts(&q, replace ? " AS " : " BY NAME ");
    weir__buf_puts(&q, "SELECT * EXCLUDE (\"__weir_keep\") FROM (SELECT ");
    exclude_flags(&q, n);
    weir__buf_printf(&q, ", __weir_tally(%lld, ",
                     (long long)weir__tally_token(tally));
    pass_condition(&q, t, WEIR_SQL_VIOLATION_DROP, WEIR_SQL_VIOLATION_DROP);
    for (size_t i = 0; i < n; i++) {
        weir__buf_puts(&q, ", ");
        flag(&q, i);
    }
    weir__buf_puts(&q, ") AS \"__weir_keep\" FROM (");
    rc = flagged(x, t, sql, &q);
    weir__buf_puts(&q, ") AS \"__weir_f\") AS \"__weir_t\" WHERE \"__weir_keep\"");
    if (!rc)
        rc = exec_write(x, &q, replace);
    int64_t *failed = calloc(n + 1, sizeof(int64_t));
    int64_t total = 0, dropped = 0;
    if (!rc && !failed)
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc)
        weir__tally_read(tally, &total, &dropped, failed);
    weir__tally_close(tally);
    if (!rc)
        rc = check_failures(x, t, sql, failed);
    if (!rc) {
        metrics_json(x, t, total, failed, dropped);
        weir__buf_puts(&x->details, ", \"quarantined_records\": 0");
    }
    free(failed);
    weir__buf_free(&q);
    return rc;
}

/* The batch goes to the target and to the quarantine table: produce it
 * once, with its flags, into a temporary table, then split it. */
static int write_quarantined(weir_flow_exec *x, const weir_gdataset *t,
                             const char *sql, bool replace)
{
    const weir_gdataset *def = t;
    size_t n = def->n_expectations;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_puts(&q, "CREATE OR REPLACE TEMP TABLE " BATCH " AS ");
    int rc = flagged(x, def, sql, &q);
    if (rc) {
        weir__buf_free(&q);
        return rc;
    }
    rc = exec_sql(x, &q, NULL);
    /* Counts of the batch, one query over the checked rows. */
    int64_t *failed = calloc(n + 1, sizeof(int64_t));
    int64_t total = 0, dropped = 0, quarantined = 0;
    weir_rows *r = NULL;
    if (!rc && !failed)
        rc = WEIR_ERR(&x->err, WEIR_ENOMEM, NULL, "out of memory");
    if (!rc) {
        weir__buf_clear(&q);
        weir__buf_puts(&q, "SELECT count(*)");
        for (size_t i = 0; i < n; i++) {
            weir__buf_puts(&q, ", count_if(NOT ");
            flag(&q, i);
            weir__buf_putc(&q, ')');
        }
        weir__buf_puts(&q, ", count_if(NOT (");
        pass_condition(&q, def, WEIR_SQL_VIOLATION_DROP,
                       WEIR_SQL_VIOLATION_QUARANTINE);
        weir__buf_puts(&q, ")) FROM " BATCH);
        rc = weir__query_buf(x->conn, &q, &r, &x->err);
    }
    if (!rc && r->n_rows == 1) {
        total = strtoll(weir__rows_get(r, 0, 0), NULL, 10);
        for (size_t i = 0; i < n; i++)
            failed[i] = strtoll(weir__rows_get(r, 0, i + 1), NULL, 10);
        dropped = strtoll(weir__rows_get(r, 0, n + 1), NULL, 10);
    }
    weir__rows_free(r);
    if (!rc)
        rc = check_failures(x, t, NULL, failed);
    if (!rc)
        rc = split_batch(x, t, replace, &quarantined);
    if (!rc) {
        metrics_json(x, t, total, failed, dropped);
        weir__buf_printf(&x->details, ", \"quarantined_records\": %lld",
                         (long long)quarantined);
    }
    weir__buf_clear(&q);
    weir__buf_puts(&q, "DROP TABLE IF EXISTS " BATCH);
    weir_error ignore;
    weir__conn_exec(x->conn, weir__buf_cstr(&q), NULL, &ignore);
    free(failed);
    weir__buf_free(&q);
    return rc;
}

int weir__write_batch(weir_flow_exec *x, const weir_gdataset *t,
                      const char *sql, bool replace)
{
    if (!t->n_expectations)
        return write_plain(x, t, sql, replace);
    if (weir__has_quarantine(t))
        return write_quarantined(x, t, sql, replace);
    return write_tallied(x, t, sql, replace);
}
