/*
 * The weir command-line tool's internal interface: the output options every
 * command receives (struct cli), the command entry points, and the small
 * shared helpers (argument parsing, error and event printing, result
 * formatting, JSON, UTF-8 widths, opening a pipeline). The CLI is built on
 * nothing but the public API in weir.h and libc/POSIX.
 */
#ifndef WEIR_CLI_H
#define WEIR_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "weir.h"

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* Exit codes (docs/cli.md). */
enum {
    EXIT_OK = 0,      /* success; a run that COMPLETED */
    EXIT_FAILED = 1,  /* a run that FAILED, or a runtime error */
    EXIT_USAGE = 2    /* bad usage, spec, SQL or graph; output write error */
};

/* Output options, decided once in main and passed to every command. */
typedef struct cli {
    bool tty_out;   /* stdout is a terminal (live progress line) */
    bool color_out; /* colors on stdout */
    bool color_err; /* colors on stderr */
} cli;

/* --- Commands (cmd_<name>.c): argv[0] is the command name. ----------- */

int cmd_init(const cli *c, int argc, char **argv);
int cmd_run(const cli *c, int argc, char **argv);
int cmd_dry_run(const cli *c, int argc, char **argv);
int cmd_graph(const cli *c, int argc, char **argv);
int cmd_query(const cli *c, int argc, char **argv);
int cmd_events(const cli *c, int argc, char **argv);
int cmd_serve(const cli *c, int argc, char **argv);
int cmd_test(const cli *c, int argc, char **argv);
int cmd_report(const cli *c, int argc, char **argv);
int cmd_ui(const cli *c, int argc, char **argv);
int cmd_help(const cli *c, int argc, char **argv);

/* --- help.c ---------------------------------------------------------- */

/* The overview of every command. */
void help_usage(FILE *out);
/* Print the help of command `name`; false if there is no such command. */
bool help_command(FILE *out, const char *name);

/* --- opt.c: argument parsing ----------------------------------------- */

typedef struct opt_def {
    const char *name;  /* long name without "--" */
    bool takes_value;
} opt_def;

enum {
    OPT_END = -1,        /* no more arguments */
    OPT_POSITIONAL = -2, /* *value is a positional argument */
    OPT_HELP = -3,       /* -h / --help */
    OPT_ERROR = -4       /* message printed; exit EXIT_USAGE */
};

typedef struct opt_iter {
    int argc;
    char **argv;
    int next;           /* index of the next argument */
    const char *cmd;    /* command name, for messages */
    bool only_positional; /* after "--" */
} opt_iter;

void opt_init(opt_iter *it, const char *cmd, int argc, char **argv);
/*
 * The next argument: the index of its definition in defs (terminated by a
 * {NULL} entry) with *value set for options taking one (--name VALUE or
 * --name=VALUE), or one of the OPT_* codes above.
 */
int opt_next(opt_iter *it, const opt_def *defs, const char **value);
/* Report an unexpected positional argument; returns EXIT_USAGE. */
int opt_unexpected(const opt_iter *it, const char *arg);

/* An owned, growable list of strings. */
typedef struct strlist {
    char **items;
    size_t len, cap;
} strlist;

/* Append the comma-separated items of text, trimmed, empty ones dropped.
 * Returns false when out of memory. */
bool strlist_add_csv(strlist *l, const char *text);
/* Append a copy of text; false when out of memory. */
bool strlist_add(strlist *l, const char *text);
void strlist_free(strlist *l);

/* The candidate closest to word (for "did you mean"), or NULL. */
const char *opt_suggest(const char *word, const char *const *candidates,
                        size_t n);

/* --- print.c: messages, errors, timestamps --------------------------- */

/* "weir: <message>" on stderr. */
void print_error(const cli *c, const char *fmt, ...) CLI_PRINTF(2, 3);
/* "YYYY-MM-DD HH:MM:SS: <message>" with the local time now. */
void print_logline(FILE *out, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Format microseconds since the epoch (UTC) as "YYYY-MM-DD HH:MM:SS"
 * (buf >= 20 bytes) or, when iso, "YYYY-MM-DDTHH:MM:SS.ffffffZ" (>= 28). */
void format_utc(char *buf, size_t size, int64_t us, bool iso);
/* Print one error like a compiler: location, class, message, source line
 * and caret. */
void print_diagnostic(const cli *c, const weir_error *e);
/* The same on out with another label in place of "error". */
void print_located(FILE *out, bool color, const weir_error *e,
                   const char *label);
/*
 * Print the problems behind rc: the pipeline's diagnostics when rc is a
 * spec/SQL/graph error and there are any (p may be NULL), else err.
 */
void print_failure(const cli *c, const weir_pipeline *p, int rc,
                   const weir_error *err);
/* The exit code for a failed library call. */
int exit_code_for(int rc);
/* Write "{"error":{...}}" lines for the same problems print_failure shows. */
void print_failure_json(FILE *out, const weir_pipeline *p, int rc,
                        const weir_error *err);

/* --- events.c: run events and the live progress line ----------------- */

typedef enum event_mode {
    EVENTS_TEXT,       /* Spark-style timestamped lines on stdout */
    EVENTS_QUIET,      /* only WARN/ERROR events, as text on stdout */
    EVENTS_JSON,       /* one JSON object per event on stdout */
    EVENTS_ERRORS_ONLY /* events with an error, as text on stderr */
} event_mode;

/* The payload of the event and progress callbacks of one run. */
typedef struct event_printer {
    const cli *cli;
    event_mode mode;
    bool progress;       /* draw the live status line */
    bool progress_shown; /* a status line is on screen now */
    unsigned width;      /* terminal width */
} event_printer;

void event_printer_init(event_printer *ep, const cli *c, event_mode mode);
/* Set the callbacks of opts to ep. */
void event_printer_attach(event_printer *ep, weir_run_options *opts);
/* Erase the status line if one is shown. */
void event_printer_finish(event_printer *ep);

/* --- json.c: writing and reading JSON text --------------------------- */

/* Write s as a JSON string (invalid UTF-8 becomes U+FFFD), or null. */
void json_put_string(FILE *out, const char *s);
/* Write s as is when it is valid JSON text, else as a JSON string. */
void json_put_raw(FILE *out, const char *s);
/* True when s is exactly one JSON value (blanks around allowed). */
bool json_is_valid(const char *s);
/* True when s is a JSON number (RFC 8259 grammar). */
bool json_is_number(const char *s);
/* The value of member key of the object at p, or NULL. */
const char *json_member(const char *p, const char *key);
/* The first element of the array at p / the element after p; NULL at end. */
const char *json_first(const char *p);
const char *json_next(const char *p);
/* Decode the string at p into buf (truncated to fit); false if p is not a
 * string. */
bool json_get_string(const char *p, char *buf, size_t size);
/* The integer at p; false if p is not an integer that fits. */
bool json_get_int(const char *p, int64_t *out);

/* --- utf8.c: display widths ------------------------------------------ */

/*
 * Write s to out (NULL = only measure) as at most max_cols terminal columns:
 * control characters and invalid bytes are escaped (\n, \t, \xHH), and text
 * that does not fit ends with "…". Returns the columns used.
 */
size_t text_put(FILE *out, const char *s, size_t max_cols);
/* Display width of the UTF-8 text s, escapes included. */
size_t text_width(const char *s);
/* Terminal columns of the code point; 0 for combining marks. */
int codepoint_width(uint32_t cp);
/* Decode one code point at s; returns its length (0 if invalid). */
size_t utf8_decode(const unsigned char *s, uint32_t *cp);

/* --- table.c: result formatting -------------------------------------- */

typedef enum out_format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } out_format;

/* Parse "table" / "csv" / "json"; false otherwise. */
bool parse_format(const char *s, out_format *out);

/* A rectangle of text values with named columns. */
typedef struct grid {
    size_t n_cols, n_rows;
    const char *(*name)(const void *data, size_t col);
    bool (*numeric)(const void *data, size_t col);
    const char *(*value)(const void *data, size_t col, size_t row);
    const void *data;
    const bool *json_cols; /* NULL or n_cols flags: column holds JSON text */
} grid;

/* A grid over a query result (borrowed). */
void grid_from_result(grid *g, const weir_result *r);
/* Print g in fmt. Prints nothing for a grid without columns. */
void grid_print(const grid *g, out_format fmt, FILE *out);

/* --- project.c: opening a pipeline ----------------------------------- */

typedef struct project {
    const cli *cli;
    FILE *log; /* where loading messages go; NULL = silent */
    weir_session *session;
    weir_pipeline *pipeline;
} project;

/*
 * Open a session and load the pipeline from spec (NULL = search upward from
 * the current directory), printing "Loading pipeline spec from ..." and the
 * library's messages to log (NULL = silent). On failure prints the errors
 * (and, when json_out is not NULL, their JSON form to it) and returns the
 * exit code; on success returns 0. Always close with project_close.
 */
int project_open(project *p, const cli *c, const char *spec, FILE *log,
                 FILE *json_out);

/* `--env NAME` and `--conf key=value` (repeatable) of the commands that load
 * a pipeline (docs/testing.md). */
typedef struct load_args {
    const char *env;   /* NULL = none */
    strlist conf;      /* "key=value" items, in order */
    bool storage_only; /* the spec only, not the definition files (weir
                          query: tables stay readable while a definition
                          has errors) */
    const char *storage; /* replaces the spec's and environment's storage
                            (weir test imports Python against an empty
                            one); NULL = theirs */
} load_args;

/* Record one `--conf` value; returns -1 to go on, or the exit code (a
 * value without `=` or with an empty key is a usage error). */
int load_args_conf(const cli *c, load_args *l, const char *value);
void load_args_free(load_args *l);
/* The `--conf` values as key-value pairs (l may be NULL: none); NULL on
 * OOM. Free with load_args_kv_free(kv, l->conf.len). */
weir_kv *load_args_kv(const load_args *l);
void load_args_kv_free(weir_kv *kv, size_t n);

/* project_open with an environment and overrides (load may be NULL). */
int project_open_with(project *p, const cli *c, const char *spec,
                      const load_args *load, FILE *log, FILE *json_out);
void project_close(project *p);

/* --- python.c: Python definition files ------------------------------- */

/*
 * When the loaded pipeline has Python definition files, import them with
 * the user's Python and pyspark-client through a one-time Spark Connect
 * endpoint, so that their datasets and flows are defined in p->pipeline
 * ("Importing <file>..." lines go to p->log). Python is $WEIR_PYTHON, else
 * $VIRTUAL_ENV/bin/python, else python3 on PATH; it gets
 * $WEIR_PYTHON_TIMEOUT seconds (default 300). On failure prints the
 * problems (also as JSON to json_out when not NULL) and returns the exit
 * code; 0 when there is nothing to do or all went well.
 */
int project_define_python(project *p, FILE *json_out);

/* The same files defined on a remote Spark Connect server (`--remote`):
 * the launcher joins the session of uri (weir_remote_client_uri) and
 * defines into graph_id, which weir created there. */
int project_define_python_remote(project *p, const char *uri,
                                 const char *graph_id, FILE *json_out);

/* --- python_child.c: the Python process --------------------------------- */

/* child_run's outcomes that are not wait statuses (those are >= 0). */
enum { CHILD_TIMEOUT = -1, CHILD_START_FAILED = -2, CHILD_INTERRUPTED = -3 };
/* The child's exit status when it could not exec. */
#define CHILD_EXEC_FAILED 127
/* The child's status channel: its descriptor 3, a pipe to weir. */
#define CHILD_STATUS_FD 3

typedef struct child_spec {
    const char *python;  /* the executable */
    char *const *argv;
    char **env;
    const char *dir;     /* its working folder */
    FILE *out;           /* its stdout, line by line, prefixed "python: "
                            and escaped; NULL = dropped */
    int err_fd;          /* its stderr */
    unsigned timeout_s;
} child_spec;

/* One line of the child's status channel (without its newline). */
typedef void (*child_status_fn)(void *payload, const char *line);

/*
 * Run the child in a process group of its own that is killed with this
 * thread (PR_SET_PDEATHSIG: call from a thread that outlives the child),
 * relaying its stdout and status channel until it exits, timeout_s pass or
 * a Ctrl-C comes that a guard catches (interrupt_pending); then kill its
 * group and reap it. Returns its wait status, CHILD_TIMEOUT,
 * CHILD_INTERRUPTED, or CHILD_START_FAILED (errno says why).
 */
int child_run(const child_spec *spec, child_status_fn on_status, void *payload);
/* Write text (len bytes, lines of the child's output) to out as child_run
 * relays stdout: each line prefixed "python: " and escaped. */
void child_put_lines(FILE *out, const char *text, size_t len);

/* --- remote.c: running on a Spark Connect server (--remote) ----------- */

/* Is uri a Spark Connect URI weir can use? Prints why not. */
bool remote_uri_check(const cli *c, const char *uri);

/* The local folder (a weir storage holding only an event log) where the
 * updates of pipeline p run on the server of uri are recorded:
 * $XDG_CACHE_HOME/weir/remote/HOST-PORT/NAME-HASH (else ~/.cache/...),
 * HASH of the spec's path. False when it cannot be named. */
bool remote_state_dir(char *buf, size_t size, const char *uri,
                      const weir_pipeline *p);

/* Run (or, with ro->dry, dry-run) the loaded project on the Spark Connect
 * server at uri, with ro's refresh options; events printed in mode. The
 * exit code. */
int run_remote(const cli *c, project *p, const char *uri, weir_run_options *ro,
               event_mode mode);

/* --- test_report.c: the reports of `weir test` ---------------------- */

/* Seconds on a monotonic clock. */
double test_clock(void);
/* Write the suite's results as JUnit XML to path; false on I/O errors. */
bool test_report_junit(const char *path, const weir_test_suite *s,
                       double seconds);
/* Write the suite's results as one JSON document (and a newline). */
void test_report_json(FILE *out, const weir_test_suite *s, double seconds);

/* --- ui_load.c: the snapshot of weir report and weir ui ------------- */

struct ui_snapshot;
struct ui_module;

/* The Python definitions a `weir ui` imported last, kept between loads:
 * a refresh runs the project's Python again only when a Python file under
 * the spec's folder (or a definition file elsewhere) or the spec itself
 * changed; otherwise the definitions are copied from defs
 * (weir_pipeline_copy_definitions). Zero-initialize; the owner frees it
 * with ui_python_cache_clear. */
typedef struct ui_python_cache {
    project defs; /* the pipeline the imports were made in */
    bool open;    /* defs holds a project */
    bool valid;   /* its imports succeeded */
    uint64_t key; /* the signature of the files they were made from */
} ui_python_cache;
void ui_python_cache_clear(ui_python_cache *cache);

/* Load the project (spec NULL = search upward), resolve its graph with a
 * silent dry run and read its last updates into *out (caller frees with
 * ui_snapshot_free), releasing the storage again. Definition errors leave
 * the graph out with a note. cache: the Python imports to reuse and
 * update, or NULL to import afresh. Returns 0 or an exit code (errors
 * printed). */
int ui_load_snapshot(const cli *c, const struct ui_module *m,
                     const char *spec, const load_args *load,
                     ui_python_cache *cache, struct ui_snapshot **out);

/* --- ui_module.c: the UI module (src/ui/ui.h), loaded on demand ------- */

/* The module's entry points (static, never freed), or NULL after printing
 * why it could not be loaded. */
const struct ui_module *ui_module_load(const cli *c);

/* --- token.c: Spark Connect session tokens --------------------------- */

/* Room for a random token: 64 hex digits and the NUL. */
#define RANDOM_TOKEN_SIZE 65
/* 32 random bytes from /dev/urandom as hex into buf (>= RANDOM_TOKEN_SIZE
 * bytes). False when /dev/urandom could not give them all. */
bool random_token(char *buf);
/* True for localhost, ::1 and 127.x.y.z. */
bool is_loopback(const char *host);
/* The first line of the token file path, trimmed, into buf. Returns 0 or an
 * exit code (message printed: unreadable or empty file). */
int read_token_file(const cli *c, const char *path, char *buf, size_t size);
/* The token an endpoint's clients must present, into buf (size bytes,
 * room for RANDOM_TOKEN_SIZE): --token's value, the first line of
 * --token-file, the environment variable env_var (WEIR_SERVE_TOKEN,
 * WEIR_UI_TOKEN), in that order, else a random one; *given says whether
 * one was given (an address that is not loopback needs it). Returns 0 or
 * an exit code (message printed): --token with --token-file, a token
 * longer than size - 2, a file that cannot be read or is empty. */
int endpoint_token(const cli *c, const char *token, const char *token_file,
                   const char *env_var, char *buf, size_t size,
                   bool *given);

/* --- scaffold.c: the files of `weir init` ---------------------------- */

typedef struct scaffold_file {
    const char *path; /* relative to the project folder */
    const char *text;
} scaffold_file;

/* The fixed files and folders of a new project, with SQL or Python
 * definition files; folders end with '/'. */
const scaffold_file *scaffold_files(bool python, size_t *n);
/* Write the spark-pipeline.yml of a project named name. Its storage is
 * dir/pipeline-storage as an absolute file:// URI when dir (the project's
 * absolute folder) is given, else the relative folder pipeline-storage. */
void scaffold_write_spec(FILE *out, const char *name, const char *dir);

/* --- interrupt.c: Ctrl-C during a long call ------------------------- */

/* The handlers SIGINT and SIGTERM had before interrupt_catch. */
typedef struct interrupt_guard {
    struct sigaction old_int, old_term;
} interrupt_guard;

/* Catch SIGINT and SIGTERM until interrupt_release: the returned flag
 * (for weir_run_options.cancel) becomes 1 at the first, the second ends
 * the process. */
volatile int *interrupt_catch(interrupt_guard *g);
void interrupt_release(interrupt_guard *g);
/* A signal came while a guard catches them (a child's wait polls it). */
bool interrupt_pending(void);

/* --- Small shared helpers -------------------------------------------- */

/* The last part of a qualified name ("a.b.c" -> "c"). */
const char *short_name(const char *qualified);

#endif /* WEIR_CLI_H */
