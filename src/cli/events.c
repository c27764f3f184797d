/*
 * What a run shows while it runs: each event as a spark-pipelines line
 * ("YYYY-MM-DD HH:MM:SS: message", UTC, the error's class and message
 * indented below) or as a JSON object per line, and on a terminal a single
 * status line redrawn in place from the progress reports, erased before
 * every event line so the two never mix.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

#define YELLOW "\033[33m"
#define RED "\033[31m"
#define RESET "\033[0m"

static unsigned terminal_width(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *columns = getenv("COLUMNS");
    long n = columns ? strtol(columns, NULL, 10) : 0;
    return n > 0 && n < 10000 ? (unsigned)n : 80;
}

static const char *level_name(weir_level level)
{
    switch (level) {
    case WEIR_LEVEL_INFO: return "INFO";
    case WEIR_LEVEL_WARN: return "WARN";
    case WEIR_LEVEL_ERROR: return "ERROR";
    case WEIR_LEVEL_METRICS: return "METRICS";
    }
    return "INFO";
}

/* Print text with every line after the first indented by four spaces. */
static void put_indented(FILE *out, const char *text)
{
    for (; *text; text++) {
        fputc(*text, out);
        if (*text == '\n' && text[1])
            fputs("    ", out);
    }
}

/* "    [CLASS] message" from the event's error object. */
static void put_event_error(FILE *out, const char *error_json)
{
    char cls[128], message[4096];
    bool has_cls = json_get_string(json_member(error_json, "class"), cls,
                                   sizeof cls) && cls[0];
    bool has_msg = json_get_string(json_member(error_json, "message"),
                                   message, sizeof message);
    fputs("    ", out);
    if (!has_cls && !has_msg) {
        put_indented(out, error_json);
    } else {
        if (has_cls)
            fprintf(out, "[%s]%s", cls, has_msg ? " " : "");
        if (has_msg)
            put_indented(out, message);
    }
    fputc('\n', out);
}

static void put_event_text(FILE *out, const weir_event *ev, bool color)
{
    char stamp[32];
    const char *on = "";

    format_utc(stamp, sizeof stamp, ev->timestamp_us, false);
    if (color && ev->level == WEIR_LEVEL_WARN)
        on = YELLOW;
    else if (color && ev->level == WEIR_LEVEL_ERROR)
        on = RED;
    fprintf(out, "%s: %s%s%s\n", stamp, on, ev->message ? ev->message : "",
            on[0] ? RESET : "");
    if (ev->error_json)
        put_event_error(out, ev->error_json);
}

static void put_event_json(FILE *out, const weir_event *ev)
{
    char stamp[40];
    format_utc(stamp, sizeof stamp, ev->timestamp_us, true);
    fputs("{\"id\":", out);
    json_put_string(out, ev->id);
    fputs(",\"update_id\":", out);
    json_put_string(out, ev->update_id);
    fprintf(out, ",\"timestamp\":\"%s\",\"level\":\"%s\",\"event_type\":",
            stamp, level_name(ev->level));
    json_put_string(out, ev->event_type);
    fputs(",\"message\":", out);
    json_put_string(out, ev->message);
    fputs(",\"flow_name\":", out);
    json_put_string(out, ev->flow_name);
    fputs(",\"dataset_name\":", out);
    json_put_string(out, ev->dataset_name);
    fputs(",\"details\":", out);
    json_put_raw(out, ev->details_json);
    fputs(",\"error\":", out);
    json_put_raw(out, ev->error_json);
    fputs(",\"source_path\":", out);
    json_put_string(out, ev->source_path);
    if (ev->source_line)
        fprintf(out, ",\"source_line\":%u}\n", ev->source_line);
    else
        fputs(",\"source_line\":null}\n", out);
}

static void erase_status(event_printer *ep)
{
    if (ep->progress_shown) {
        fputs("\r\033[K", stdout);
        ep->progress_shown = false;
    }
}

static void on_event(const weir_event *ev, void *payload)
{
    event_printer *ep = payload;
    bool problem = ev->level == WEIR_LEVEL_WARN || ev->level == WEIR_LEVEL_ERROR;

    erase_status(ep);
    switch (ep->mode) {
    case EVENTS_JSON:
        put_event_json(stdout, ev);
        break;
    case EVENTS_TEXT:
        if (ev->level != WEIR_LEVEL_METRICS)
            put_event_text(stdout, ev, ep->cli->color_out);
        break;
    case EVENTS_QUIET:
        if (problem)
            put_event_text(stdout, ev, ep->cli->color_out);
        break;
    case EVENTS_ERRORS_ONLY:
        if (ev->error_json || ev->level == WEIR_LEVEL_ERROR)
            put_event_text(stderr, ev, ep->cli->color_err);
        break;
    }
    fflush(stdout);
}

/* n with thousands separators, e.g. 12,345. */
static void format_count(char *buf, size_t size, uint64_t n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
    size_t at = 0;
    for (int i = 0; i < len && at + 2 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[at++] = ',';
        buf[at++] = digits[i];
    }
    buf[at] = '\0';
}

/* "[3/7] running: a, b +2 · 12,345 rows · 4,567 rows/s · 2.7s" */
static void format_status(char *buf, size_t size, const weir_progress *pr)
{
    char rows[32], rate[32];
    size_t len = (size_t)snprintf(buf, size, "[%u/%u]", pr->flows_done,
                                  pr->flows_total);
    unsigned shown = pr->n_running < 3 ? pr->n_running : 3;

    for (unsigned i = 0; i < shown && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                i ? ", " : " running: ",
                                short_name(pr->running[i] ? pr->running[i] : "?"));
    if (pr->flows_running > shown && len < size)
        len += (size_t)snprintf(buf + len, size - len, " +%u",
                                pr->flows_running - shown);
    format_count(rows, sizeof rows, pr->rows_written);
    if (len < size)
        len += (size_t)snprintf(buf + len, size - len, " \xC2\xB7 %s rows", rows);
    if (pr->elapsed_seconds >= 0.5 && len < size) {
        format_count(rate, sizeof rate,
                     (uint64_t)((double)pr->rows_written / pr->elapsed_seconds));
        len += (size_t)snprintf(buf + len, size - len, " \xC2\xB7 %s rows/s", rate);
    }
    if (len < size)
        snprintf(buf + len, size - len, " \xC2\xB7 %.1fs", pr->elapsed_seconds);
}

static void on_progress(const weir_progress *pr, void *payload)
{
    event_printer *ep = payload;
    char line[1024];

    format_status(line, sizeof line, pr);
    fputs("\r\033[K", stdout);
    text_put(stdout, line, ep->width > 1 ? ep->width - 1 : 1);
    fflush(stdout);
    ep->progress_shown = true;
}

void event_printer_init(event_printer *ep, const cli *c, event_mode mode)
{
    ep->cli = c;
    ep->mode = mode;
    ep->progress = mode == EVENTS_TEXT && c->tty_out;
    ep->progress_shown = false;
    ep->width = ep->progress ? terminal_width() : 80;
}

void event_printer_attach(event_printer *ep, weir_run_options *opts)
{
    opts->on_event = on_event;
    opts->event_payload = ep;
    if (ep->progress) {
        opts->on_progress = on_progress;
        opts->progress_payload = ep;
    }
}

void event_printer_finish(event_printer *ep)
{
    erase_status(ep);
    fflush(stdout);
}
