/*
 * Spark's session time zone (spark.sql.session.timeZone) in the
 * translation. weir keeps one TIMESTAMP type holding UTC wall-clock values
 * (instants) and runs DuckDB in UTC; Spark reads and writes timestamps
 * through the session zone wherever a timestamp meets a wall clock: a
 * string or a date cast to a timestamp (and back), a timestamp's fields,
 * its date, truncation, formatting and parsing, day and month arithmetic.
 * This file owns the zone ids (Spark's forms to what DuckDB's ICU takes)
 * and the SQL the translator wraps around those places when the zone is
 * not UTC; in UTC nothing is wrapped, so the translation is unchanged.
 * The weir_tz_* macros it emits are in session.c. convert_timezone(),
 * which moves a wall clock between two named zones, is here too.
 */
#include "internal.h"
#include "functions.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

/* Java's ZoneId.SHORT_IDS, which Spark resolves zone ids with. */
static const struct {
    const char *id, *zone;
} SHORT_IDS[] = {
    { "ACT", "Australia/Darwin" },    { "AET", "Australia/Sydney" },
    { "AGT", "America/Argentina/Buenos_Aires" },
    { "ART", "Africa/Cairo" },        { "AST", "America/Anchorage" },
    { "BET", "America/Sao_Paulo" },   { "BST", "Asia/Dhaka" },
    { "CAT", "Africa/Harare" },       { "CNT", "America/St_Johns" },
    { "CST", "America/Chicago" },     { "CTT", "Asia/Shanghai" },
    { "EAT", "Africa/Addis_Ababa" },  { "ECT", "Europe/Paris" },
    { "IET", "America/Indiana/Indianapolis" },
    { "IST", "Asia/Kolkata" },        { "JST", "Asia/Tokyo" },
    { "MIT", "Pacific/Apia" },        { "NET", "Asia/Yerevan" },
    { "NST", "Pacific/Auckland" },    { "PLT", "Asia/Karachi" },
    { "PNT", "America/Phoenix" },     { "PRT", "America/Puerto_Rico" },
    { "PST", "America/Los_Angeles" }, { "SST", "Pacific/Guadalcanal" },
    { "VST", "Asia/Ho_Chi_Minh" },    { "EST", "-18000" },
    { "MST", "-25200" },              { "HST", "-36000" },
};

/* n digits at s, their value in *v. */
static bool digits(const char *s, size_t n, int *v)
{
    *v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        *v = *v * 10 + (s[i] - '0');
    }
    return true;
}

/* An offset as Java's ZoneOffset.of reads it (+h, +hh, +hh:mm, +hhmm,
 * +hh:mm:ss, +hhmmss; Spark first pads +h:mm), in seconds. */
static bool parse_offset(const char *s, long *out)
{
    if (s[0] != '+' && s[0] != '-')
        return false;
    int sign = s[0] == '-' ? -1 : 1, h = 0, m = 0, sec = 0;
    const char *p = s + 1;
    size_t n = strlen(p);
    if (n >= 2 && isdigit((unsigned char)p[0]) && p[1] == ':') {
        if (!digits(p, 1, &h))
            return false;
        p += 1, n -= 1; /* Spark's +h:mm -> +0h:mm */
    } else if (n == 1 || n == 2) {
        if (!digits(p, n, &h))
            return false;
        p += n, n = 0;
    } else if (n >= 2 && digits(p, 2, &h)) {
        p += 2, n -= 2;
    } else {
        return false;
    }
    bool colon = n > 0 && *p == ':';
    if (n > 0) {
        if (colon)
            p++, n--;
        if (n < 2 || !digits(p, 2, &m))
            return false;
        p += 2, n -= 2;
    }
    if (n > 0) {
        if (colon != (*p == ':'))
            return false;
        if (colon)
            p++, n--;
        if (n != 2 || !digits(p, 2, &sec))
            return false;
    }
    if (h > 18 || m > 59 || sec > 59 || (h == 18 && (m || sec)))
        return false;
    *out = sign * (h * 3600L + m * 60L + sec);
    return true;
}

int weir__sql_zone_duck(char *out, size_t size, const char *id)
{
    out[0] = '\0';
    if (!id || !*id)
        return WEIR_EINVAL;
    static const char *const UTC[] = { "Z", "UTC", "GMT", "UT", "Etc/UTC",
                                       "Etc/GMT", "UCT", "Etc/UCT",
                                       "Etc/Universal", "Universal", "Zulu",
                                       "Etc/Zulu", "Greenwich", "Etc/Greenwich" };
    for (size_t i = 0; i < sizeof(UTC) / sizeof(UTC[0]); i++)
        if (strcmp(id, UTC[i]) == 0)
            return 0;
    for (size_t i = 0; i < sizeof(SHORT_IDS) / sizeof(SHORT_IDS[0]); i++)
        if (strcmp(id, SHORT_IDS[i].id) == 0)
            return weir__str_copy(out, size, SHORT_IDS[i].zone) < size
                       ? 0
                       : WEIR_EINVAL;
    const char *off = id;
    if (weir__str_starts(id, "UTC") || weir__str_starts(id, "GMT"))
        off = id + 3;
    else if (weir__str_starts(id, "UT"))
        off = id + 2;
    long seconds;
    if (*off == '+' || *off == '-') {
        if (!parse_offset(off, &seconds))
            return WEIR_EINVAL;
        if (seconds != 0)
            snprintf(out, size, "%+ld", seconds);
        return 0;
    }
    /* A region id as Java's ZoneRegion takes it; DuckDB's ICU checks that
     * it names a zone. */
    if (!isalpha((unsigned char)id[0]) || strlen(id) < 2)
        return WEIR_EINVAL;
    for (const char *p = id; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("~/._+-", *p))
            return WEIR_EINVAL;
    return weir__str_copy(out, size, id) < size ? 0 : WEIR_EINVAL;
}

int weir__sql_tx_set_zone(sql_tx *t, const char *id, weir_error *err)
{
    t->zone = NULL;
    t->zone_id = id;
    if (!id)
        return 0;
    char duck[128];
    if (weir__sql_zone_duck(duck, sizeof(duck), id))
        return WEIR_ERR(err, WEIR_ESQL, "INVALID_CONF_VALUE.TIME_ZONE",
                        "The value '%s' in the config "
                        "\"spark.sql.session.timeZone\" is invalid. Cannot "
                        "resolve the given timezone.",
                        id);
    if (duck[0] && !(t->zone = weir__arena_strdup(t->arena, duck)))
        return WEIR_ERR(err, WEIR_ENOMEM, NULL, "out of memory");
    return 0;
}

void weir__sql_tz_put_zone(const sql_tx *t, weir_buf *out)
{
    weir__buf_put_sql_string(out, t->zone ? t->zone : "UTC");
}

void weir__sql_tz_wall(const sql_tx *t, weir_buf *out, const char *sql)
{
    if (!t->zone) {
        weir__buf_puts(out, sql);
        return;
    }
    weir__buf_printf(out, "weir_tz_wall(%s, ", sql);
    weir__sql_tz_put_zone(t, out);
    weir__buf_putc(out, ')');
}

void weir__sql_tz_local(const sql_tx *t, weir_buf *out, const char *ts)
{
    if (!t->zone) {
        weir__buf_puts(out, ts);
        return;
    }
    weir__buf_printf(out, "weir_tz_local(%s, ", ts);
    weir__sql_tz_put_zone(t, out);
    weir__buf_putc(out, ')');
}

void weir__sql_tz_utc(const sql_tx *t, weir_buf *out, const char *wall)
{
    if (!t->zone) {
        weir__buf_puts(out, wall);
        return;
    }
    weir__buf_printf(out, "weir_tz_utc(%s, ", wall);
    weir__sql_tz_put_zone(t, out);
    weir__buf_putc(out, ')');
}

void weir__sql_tz_instant(const sql_tx *t, weir_buf *out, const char *sql,
                          bool try_cast)
{
    if (!t->zone) {
        weir__buf_printf(out, "%s(%s)", try_cast ? "weir_try_to_ts" : "weir_to_ts",
                         sql);
        return;
    }
    weir__buf_printf(out, "%s(%s, ", try_cast ? "weir_try_to_ts_z" : "weir_to_ts_z",
                     sql);
    weir__sql_tz_put_zone(t, out);
    weir__buf_putc(out, ')');
}

int weir__sql_tz_refuse_ntz(sql_tx *t, weir_sql_pos pos,
                            const weir_sql_source *src, const char *what)
{
    if (!t->zone)
        return 0;
    return weir__sql_tx_error(t, pos, src,
                              "%s under the session time zone '%s' is not "
                              "supported by weir: weir has one timestamp type, "
                              "an instant, and a TIMESTAMP_NTZ wall clock "
                              "differs from it outside UTC",
                              what, t->zone_id);
}

char weir__sql_tz_kind(sql_tx *t, const weir_sql_expr *e, const char *sql)
{
    if (e->kind == EX_LIT)
        return e->lit == LIT_STRING      ? 'S'
               : e->lit == LIT_DATE      ? 'D'
               : e->lit == LIT_TIMESTAMP ? 'T'
               : e->lit == LIT_NULL      ? '?'
                                         : 'O';
    if (e->kind == EX_CAST && e->type)
        return e->type->kind == TY_STRING      ? 'S'
               : e->type->kind == TY_DATE      ? 'D'
               : e->type->kind == TY_TIMESTAMP ? 'T'
                                               : 'O';
    weir_buf types = WEIR_BUF_INIT;
    weir_error saved = *t->err;
    char k = '?';
    if (weir__sql_tx_types(t, &sql, 1, &types)) {
        const char *ty = weir__buf_cstr(&types);
        k = strcmp(ty, "TIMESTAMP") == 0 ? 'T'
            : strcmp(ty, "DATE") == 0    ? 'D'
            : strcmp(ty, "VARCHAR") == 0 ? 'S'
                                         : 'O';
    }
    *t->err = saved;
    weir__buf_free(&types);
    return k;
}

void weir__sql_tz_text(sql_tx *t, weir_buf *out, const weir_sql_expr *e,
                       const char *sql)
{
    char k = t->zone ? weir__sql_tz_kind(t, e, sql) : 'O';
    if (k == 'T') {
        weir__buf_puts(out, "CAST(");
        weir__sql_tz_local(t, out, sql);
        weir__buf_puts(out, " AS VARCHAR)");
    } else if (k == '?') {
        weir__buf_printf(out, "weir_tz_text(%s, ", sql);
        weir__sql_tz_put_zone(t, out);
        weir__buf_putc(out, ')');
    } else {
        weir__buf_puts(out, sql);
    }
}

void weir__sql_tz_compared(sql_tx *t, weir_buf *out, const weir_sql_expr *other,
                           const char *other_sql, const weir_sql_expr *lit,
                           const char *lit_sql)
{
    char k = t->zone ? weir__sql_tz_kind(t, other, other_sql) : 'O';
    if (k == 'T') {
        weir__sql_tz_instant(t, out, lit_sql, false);
    } else if (k == '?') {
        weir__buf_printf(out, "weir_tz_lit(%s, %s, ", other_sql, lit_sql);
        weir__sql_tz_put_zone(t, out);
        weir__buf_putc(out, ')');
    } else {
        weir__buf_puts(out, lit_sql);
    }
    (void)lit;
}

/* convert_timezone([source,] target, ts): ts, a TIMESTAMP_NTZ wall clock
 * read in source (the session zone when absent), as target's wall clock.
 * Its value is a TIMESTAMP_NTZ, which weir holds only in UTC. */
int weir__fn_convert_timezone(sql_tx *t, weir_buf *out, const weir_sql_expr *e)
{
    int rc = weir__sql_tz_refuse_ntz(t, e->pos, e->src,
                                     "convert_timezone() (a TIMESTAMP_NTZ value)");
    weir_buf *a = NULL;
    if (rc || (rc = weir__fn_args(t, &a, e)))
        return rc;
    size_t n = e->n;
    weir__buf_printf(out, "CAST(timezone(%s, timezone(%s, CAST(%s AS TIMESTAMP))) AS TIMESTAMP)",
                     weir__buf_cstr(&a[n - 2]), n == 3 ? weir__buf_cstr(&a[0]) : "'UTC'",
                     weir__buf_cstr(&a[n - 1]));
    weir__fn_args_free(a, n);
    return 0;
}
