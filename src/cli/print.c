/*
 * Messages on the console: "weir: ..." errors, timestamped log lines like
 * spark-pipelines prints them, and library errors shown like a compiler's
 * (path:line:col: error: [CLASS] message, the source line, a caret), with
 * colors when the stream is a terminal. Also maps error codes to exit codes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#define BOLD "\033[1m"
#define RED "\033[1;31m"
#define GREEN "\033[1;32m"
#define RESET "\033[0m"

void print_error(const cli *c, const char *fmt, ...)
{
    va_list ap;
    (void)c;
    fflush(stdout);
    fputs("weir: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void print_logline(FILE *out, const char *fmt, ...)
{
    char stamp[32];
    struct tm tm;
    time_t now = time(NULL);
    va_list ap;

    if (!localtime_r(&now, &tm) ||
        strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        strcpy(stamp, "0000-00-00 00:00:00");
    fprintf(out, "%s: ", stamp);
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    fflush(out);
}

void format_utc(char *buf, size_t size, int64_t us, bool iso)
{
    int64_t secs = us / 1000000, frac = us % 1000000;
    struct tm tm;

    if (frac < 0) {
        frac += 1000000;
        secs -= 1;
    }
    time_t t = (time_t)secs;
    if (!gmtime_r(&t, &tm)) {
        snprintf(buf, size, "%s", "0000-00-00 00:00:00");
        return;
    }
    if (iso)
        snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                 tm.tm_min, tm.tm_sec, (int)frac);
    else
        snprintf(buf, size, "%04d-%02d-%02d %02d:%02d:%02d",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                 tm.tm_min, tm.tm_sec);
}

/* The source line with its number, then a caret under column (counted in
 * characters, as weir_error says; tabs are kept so the caret lines up). */
static void print_excerpt(FILE *out, bool color, const weir_error *e)
{
    size_t len = strlen(e->line_text);
    while (len > 0 && (e->line_text[len - 1] == '\n' ||
                       e->line_text[len - 1] == '\r'))
        len--;
    fprintf(out, "%5u | %.*s\n", e->line, (int)len, e->line_text);
    if (e->column == 0)
        return;
    fputs("      | ", out);
    const unsigned char *s = (const unsigned char *)e->line_text;
    unsigned chars = 0;
    for (size_t i = 0; i < len && chars + 1 < e->column; chars++) {
        uint32_t cp;
        size_t n = utf8_decode(s + i, &cp);
        if (s[i] == '\t') {
            fputc('\t', out);
        } else {
            for (int w = n ? codepoint_width(cp) : 1; w > 0; w--)
                fputc(' ', out);
        }
        i += n ? n : 1;
    }
    fprintf(out, "%s^%s\n", color ? GREEN : "",
            color ? RESET : "");
}

void print_located(FILE *out, bool color, const weir_error *e,
                   const char *label)
{
    const char *message = e->message[0] ? e->message : weir_strerror(e->code);

    fflush(stdout);
    fputs(color ? BOLD : "", out);
    if (e->path[0])
        fputs(e->path, out);
    if (e->line > 0) {
        fprintf(out, "%s%u", e->path[0] ? ":" : "", e->line);
        if (e->column > 0)
            fprintf(out, ":%u", e->column);
    }
    if (!e->path[0] && e->line == 0)
        fputs("weir", out);
    fprintf(out, ":%s %s%s:%s ", color ? RESET : "", color ? RED : "", label,
            color ? RESET : "");
    if (e->error_class[0])
        fprintf(out, "%s[%s]%s ", color ? BOLD : "", e->error_class,
                color ? RESET : "");
    fprintf(out, "%s\n", message);
    if (e->line > 0 && e->line_text[0])
        print_excerpt(out, color, e);
}

void print_diagnostic(const cli *c, const weir_error *e)
{
    print_located(stderr, c && c->color_err, e, "error");
}

/* The problems behind rc: the diagnostics list, or NULL with *n = 0. */
static const weir_error *diagnostics_for(const weir_pipeline *p, int rc,
                                         size_t *n)
{
    const weir_error *d = NULL;
    *n = 0;
    if (p && (rc == WEIR_ESPEC || rc == WEIR_ESQL || rc == WEIR_EGRAPH ||
              rc == WEIR_EIO))
        *n = weir_pipeline_diagnostics(p, &d);
    return *n ? d : NULL;
}

/* err, completed with rc and its description when the library left it
 * empty. */
static weir_error fallback_error(int rc, const weir_error *err)
{
    weir_error e;
    memset(&e, 0, sizeof e);
    if (err)
        e = *err;
    if (e.code == 0)
        e.code = rc;
    if (!e.message[0])
        snprintf(e.message, sizeof e.message, "%s", weir_strerror(rc));
    return e;
}

void print_failure(const cli *c, const weir_pipeline *p, int rc,
                   const weir_error *err)
{
    size_t n;
    const weir_error *d = diagnostics_for(p, rc, &n);
    if (n == 0) {
        weir_error e = fallback_error(rc, err);
        print_diagnostic(c, &e);
        return;
    }
    for (size_t i = 0; i < n; i++)
        print_diagnostic(c, &d[i]);
    if (n > 1)
        fprintf(stderr, "%zu errors\n", n);
}

static void put_error_json(FILE *out, const weir_error *e)
{
    fputs("{\"error\":{\"class\":", out);
    json_put_string(out, e->error_class[0] ? e->error_class : NULL);
    fputs(",\"message\":", out);
    json_put_string(out, e->message);
    fputs(",\"path\":", out);
    json_put_string(out, e->path[0] ? e->path : NULL);
    fprintf(out, ",\"line\":%u,\"column\":%u}}\n", e->line, e->column);
}

void print_failure_json(FILE *out, const weir_pipeline *p, int rc,
                        const weir_error *err)
{
    size_t n;
    const weir_error *d = diagnostics_for(p, rc, &n);
    if (n == 0) {
        weir_error e = fallback_error(rc, err);
        put_error_json(out, &e);
    }
    for (size_t i = 0; i < n; i++)
        put_error_json(out, &d[i]);
    fflush(out);
}

int exit_code_for(int rc)
{
    switch (rc) {
    case WEIR_OK:
        return EXIT_OK;
    case WEIR_EINVAL:
    case WEIR_ESPEC:
    case WEIR_ESQL:
    case WEIR_EGRAPH:
    case WEIR_ENOTFOUND:
        return EXIT_USAGE;
    default:
        return EXIT_FAILED;
    }
}

const char *short_name(const char *qualified)
{
    const char *dot = strrchr(qualified, '.');
    return dot && dot[1] ? dot + 1 : qualified;
}
