/*
 * Help texts: the overview printed by `weir help` (and, on stderr, by a bare
 * `weir`), and one page per command for `weir help CMD` / `weir CMD --help`.
 * docs/cli.md is the longer reference; keep the two in step.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: weir <command> [options]\n"
    "\n"
    "Spark Declarative Pipelines, natively, on DuckDB.\n"
    "\n"
    "Commands:\n"
    "  init NAME       create a new pipeline project in ./NAME\n"
    "  run             run an update of the pipeline\n"
    "  dry-run         validate the pipeline and show its resolved graph\n"
    "  graph           print the dataflow graph (text, Graphviz, Mermaid)\n"
    "  query [SQL]     run SQL against the pipeline's tables\n"
    "  events          show the event log of a run\n"
    "  test [NAME]...  run the project's tests on fixture data (tests/*.yml)\n"
    "  serve           serve Spark Connect: run pipelines with pyspark's CLI\n"
    "  ui              serve the pipeline's pages (graph, updates, quality)\n"
    "  report --html   write those pages as one self-contained HTML file\n"
    "  help [CMD]      show help for a command\n"
    "\n"
    "Options:\n"
    "  -h, --help      show this help\n"
    "  --version       show the versions of weir and DuckDB\n"
    "\n"
    "Commands that load a pipeline take --spec PATH; without it weir looks for\n"
    "spark-pipeline.yml (or .yaml) in the current folder and its parents.\n"
    "Run 'weir help CMD' for the options of a command.\n";

typedef struct help_page {
    const char *name;
    const char *text;
} help_page;

static const help_page pages[] = {
    { "init",
      "usage: weir init [--language sql|python] NAME\n"
      "       weir init [--language sql|python] --name NAME\n"
      "\n"
      "Create a pipeline project in ./NAME: spark-pipeline.yml, a medallion\n"
      "example in transformations/ (bronze streaming table, silver streaming\n"
      "table with an expectation, gold materialized view) and sample order\n"
      "files in data/landing/orders/. Fails if NAME already exists.\n"
      "\n"
      "Options:\n"
      "  --name NAME          the project (and folder) name\n"
      "  --language LANGUAGE  sql (default) or python: the example as SQL\n"
      "                       files, or as pyspark.pipelines Python files\n"
      "                       (needs pyspark-client, see docs/python.md)\n" },
    { "run",
      "usage: weir run [--spec PATH] [--env NAME] [--conf KEY=VALUE]...\n"
      "                [--refresh LIST] [--full-refresh LIST]\n"
      "                [--full-refresh-all] [--sample N] [--json] [--quiet]\n"
      "                [--remote sc://HOST:PORT]\n"
      "\n"
      "Run an update: materialize every dataset in dependency order, process\n"
      "new data of streaming tables once, recompute materialized views.\n"
      "Without refresh options every dataset is updated incrementally.\n"
      "\n"
      "Options:\n"
      "  --spec PATH           the pipeline spec (default: search upward)\n"
      "  --refresh LIST        update only these datasets (comma-separated,\n"
      "                        repeatable)\n"
      "  --full-refresh LIST   reset and recompute these datasets\n"
      "  --full-refresh-all    reset and recompute every dataset\n"
      "  --json                print each event as a JSON object per line\n"
      "  --quiet               print only warnings and errors\n"
      "  --env NAME            an environment of weir-environments.yml\n"
      "                        (storage, catalog, database, configuration)\n"
      "  --conf KEY=VALUE      set a configuration key over the spec's and\n"
      "                        the environment's (repeatable); ${KEY} in SQL\n"
      "                        files and spark.conf.get see it\n"
      "  --sample N            a sample run for fast iteration: each external\n"
      "                        input (external table, read_files, path read,\n"
      "                        Kafka topic) gives at most its first N rows per\n"
      "                        query and per streaming batch; the update writes\n"
      "                        to the storage folder's path + \"-sample\", never\n"
      "                        to the real storage; sinks write below its\n"
      "                        outputs/ folder and local topics, never to their\n"
      "                        destinations (docs/testing.md)\n"
      "  --remote URI          run on the Spark Connect server at URI\n"
      "                        (sc://HOST:PORT[/;token=...]) instead: the\n"
      "                        graph, its SQL and Python files are sent\n"
      "                        there, Spark's events printed (docs/spark.md)\n"
      "\n"
      "Exit status: 0 when the run COMPLETED, 1 when it FAILED (or, with\n"
      "--remote, Spark answered an error or cannot be reached), 2 for usage,\n"
      "spec, SQL and graph errors.\n" },
    { "test",
      "usage: weir test [--spec PATH] [--env NAME] [--conf KEY=VALUE]...\n"
      "                 [--junit FILE] [--json] [--jobs N] [NAME...]\n"
      "\n"
      "Run the tests in tests/*.yml beside the spec (docs/testing.md): each\n"
      "test loads the pipeline into a temporary storage of its own, puts its\n"
      "fixture inputs in place of the pipeline's external tables, files and\n"
      "Kafka topics, runs one update per step and checks the step's\n"
      "expectations. The project's own storage is never opened and no Kafka\n"
      "broker is contacted (Kafka sinks write to the test's storage). Prints\n"
      "one line per test and a summary; a failed comparison of rows prints a\n"
      "diff.\n"
      "\n"
      "Options:\n"
      "  NAME...            run only the tests whose name matches (a glob or a\n"
      "                     part of the name) or that are in file NAME.yml\n"
      "  --spec PATH        the pipeline spec (default: search upward)\n"
      "  --junit FILE       also write the results as JUnit XML to FILE\n"
      "  --json             print the results as one JSON document instead\n"
      "  --jobs N           tests run at once (default: one per core)\n"
      "  --env NAME         an environment of weir-environments.yml\n"
      "  --conf KEY=VALUE   set a configuration key (repeatable)\n"
      "\n"
      "Exit status: 0 when every test passed, 1 when a test failed, 2 for an\n"
      "invalid test definition (shown at its file:line:col), usage, spec and\n"
      "environment errors.\n" },
    { "dry-run",
      "usage: weir dry-run [--spec PATH] [--env NAME] [--conf KEY=VALUE]...\n"
      "                    [--target spark | --remote sc://HOST:PORT] [--json]\n"
      "\n"
      "Load and resolve the pipeline without reading or writing data, report\n"
      "every error, and print the resolved graph: each dataset in dependency\n"
      "order with its schema, then each flow with its inputs.\n"
      "\n"
      "Options:\n"
      "  --spec PATH     the pipeline spec (default: search upward)\n"
      "  --target spark  instead of the graph, list what open-source Apache\n"
      "                  Spark 4.1 would reject or run differently, each at its\n"
      "                  file:line:col with the portable spelling\n"
      "  --json          print events, then {\"graph\": ...} (with --target:\n"
      "                  {\"spark\": ...}), one JSON object per line\n"
      "  --remote URI    resolve it on the Spark Connect server at URI\n"
      "                  (sc://HOST:PORT[/;token=...]) and print its events\n"
      "  --env NAME      an environment of weir-environments.yml\n"
      "  --conf KEY=VALUE  set a configuration key (repeatable)\n"
      "\n"
      "Exit status: 0 when the pipeline is valid (with --target spark: and\n"
      "portable), 2 otherwise (1 when the --remote server cannot be reached).\n" },
    { "graph",
      "usage: weir graph [--spec PATH] [--env NAME] [--conf KEY=VALUE]...\n"
      "                  [--format text|dot|mermaid]\n"
      "\n"
      "Resolve the pipeline (a silent dry run) and print its dataflow graph.\n"
      "\n"
      "Options:\n"
      "  --spec PATH       the pipeline spec (default: search upward)\n"
      "  --format FORMAT   text (default): datasets in dependency order with\n"
      "                    their inputs; dot: a Graphviz digraph (weir graph\n"
      "                    --format dot | dot -Tsvg > graph.svg); mermaid: a\n"
      "                    Mermaid flowchart\n"
      "  --env NAME        an environment of weir-environments.yml\n"
      "  --conf KEY=VALUE  set a configuration key (repeatable)\n" },
    { "query",
      "usage: weir query [--spec PATH] [--env NAME] [--conf KEY=VALUE]...\n"
      "                  [--format table|csv|json] [SQL | -]\n"
      "\n"
      "Run Spark SQL (one or more statements) against the pipeline's tables\n"
      "and print the result of the last one. The SQL comes from the argument,\n"
      "or from standard input when it is '-' or absent.\n"
      "\n"
      "Options:\n"
      "  --spec PATH       the pipeline spec (default: search upward)\n"
      "  --format FORMAT   table (default), csv (RFC 4180, NULL as an empty\n"
      "                    field) or json (one object per row and line)\n"
      "  --env NAME        an environment of weir-environments.yml\n"
      "  --conf KEY=VALUE  set a configuration key (repeatable)\n"
      "\n"
      "Ctrl-C or SIGTERM stops the query, planned or running\n"
      "(OPERATION_CANCELED; a writing statement rolls back).\n"
      "\n"
      "Exit status: 0 on success, 2 for SQL errors, 1 for other errors.\n" },
    { "events",
      "usage: weir events [--spec PATH] [--update latest|all|ID]\n"
      "                   [--format table|csv|json] [--quality]\n"
      "                   [--env NAME] [--conf KEY=VALUE]...\n"
      "                   [--remote sc://HOST:PORT]\n"
      "\n"
      "Show the event log (weir.event_log) of an update, in order.\n"
      "\n"
      "Options:\n"
      "  --spec PATH       the pipeline spec (default: search upward)\n"
      "  --update WHICH    latest (default), all, or an update id\n"
      "  --format FORMAT   table (default; timestamp, level, type, flow and\n"
      "                    message), csv or json (every column)\n"
      "  --quality         instead, the expectation results: passed and\n"
      "                    failed records per dataset and expectation\n"
      "  --env NAME        an environment of weir-environments.yml (its\n"
      "                    storage's event log)\n"
      "  --conf KEY=VALUE  set a configuration key (repeatable)\n"
      "  --remote URI      the updates run on that Spark Connect server with\n"
      "                    weir run --remote (recorded under\n"
      "                    ~/.cache/weir/remote/, docs/spark.md)\n" },
    { "serve",
      "usage: weir serve [--spec PATH] [--port N] [--host ADDR]\n"
      "                  [--token-file FILE | --token T] [--env NAME]\n"
      "                  [--conf KEY=VALUE]...\n"
      "\n"
      "Serve Spark Connect until SIGINT/SIGTERM, so that the stock pipelines\n"
      "CLI runs on weir: SPARK_REMOTE=URL python -m pyspark.pipelines.cli run\n"
      "(or dry-run). Prints the sc://localhost:PORT/;token=T URL to use.\n"
      "Each client's graph becomes a weir pipeline; its run streams weir's\n"
      "events back. On a signal, running updates are cancelled (recorded\n"
      "CANCELED) and waited for; a second signal exits at once.\n"
      "\n"
      "Options:\n"
      "  --spec PATH        the project served: relative paths the client\n"
      "                     sends (storage, data files) resolve against its\n"
      "                     folder (default: the current folder)\n"
      "  --port N           TCP port (default 15002; 0 = any free port)\n"
      "  --host ADDR        address to bind (default 127.0.0.1); one that is\n"
      "                     not loopback needs a token given\n"
      "  --token-file FILE  the bearer token clients must send: the first\n"
      "                     line of FILE (default: $WEIR_SERVE_TOKEN, else a\n"
      "                     random one, printed in the URL)\n"
      "  --token T          the token on the command line, where other\n"
      "                     local users can read it (/proc/PID/cmdline):\n"
      "                     prefer --token-file or WEIR_SERVE_TOKEN\n"
      "  --env NAME         an environment of weir-environments.yml beside\n"
      "                     --spec: runs use its storage, catalog, database\n"
      "                     and configuration instead of the client's\n"
      "  --conf KEY=VALUE   set a configuration key over the client's\n"
      "                     (repeatable; needs --spec)\n"
      "\n"
      "Exit status: 0 after a clean stop, 1 when the port cannot be bound, 2\n"
      "for usage, spec and environment errors.\n" },
    { "ui",
      "usage: weir ui [--spec PATH] [--port N] [--host ADDR]\n"
      "               [--token-file FILE | --token T] [--env NAME]\n"
      "               [--conf KEY=VALUE]...\n"
      "\n"
      "Serve the pipeline's pages until SIGINT/SIGTERM: the dataflow graph\n"
      "with what the selected update did to each dataset, the updates, the\n"
      "timeline and errors of the flows, data quality per expectation, and a\n"
      "page per dataset. Read-only; the pages follow the event log while a\n"
      "run goes on in another terminal. Prints the URL to open (it carries\n"
      "the session token once; the browser then keeps it in a cookie).\n"
      "\n"
      "Options:\n"
      "  --spec PATH        the pipeline spec (default: search upward)\n"
      "  --port N           TCP port (default 4040; 0 = any free port)\n"
      "  --host ADDR        numeric address to bind (default 127.0.0.1); one\n"
      "                     that is not loopback needs a token given\n"
      "  --token-file FILE  the token requests must present: the first line\n"
      "                     of FILE (default: $WEIR_UI_TOKEN, else a random\n"
      "                     one, printed in the URL)\n"
      "  --token T          the token on the command line, where other\n"
      "                     local users can read it (/proc/PID/cmdline):\n"
      "                     prefer --token-file or WEIR_UI_TOKEN\n"
      "  --poll-ms N        how often to look for changes (default 1000)\n"
      "\n"
      "Exit status: 0 after a clean stop, 1 when the port cannot be bound, 2\n"
      "for usage and spec errors.\n" },
    { "report",
      "usage: weir report --html [-o FILE] [--spec PATH] [--env NAME]\n"
      "                   [--conf KEY=VALUE]...\n"
      "\n"
      "Write the pages of 'weir ui' for the latest update as one HTML file\n"
      "that needs no network to view (styles inline, the graph as inline\n"
      "SVG, no scripts): for CI artefacts and sharing.\n"
      "\n"
      "Options:\n"
      "  --html             the format (the only one so far)\n"
      "  -o, --output FILE  where to write (default: standard output)\n"
      "  --spec PATH        the pipeline spec (default: search upward)\n" },
    { "help",
      "usage: weir help [CMD]\n"
      "\n"
      "Show the list of commands, or the help of command CMD.\n" },
};

void help_usage(FILE *out)
{
    fputs(usage_text, out);
}

bool help_command(FILE *out, const char *name)
{
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        if (strcmp(pages[i].name, name) == 0) {
            fputs(pages[i].text, out);
            return true;
        }
    }
    return false;
}

int cmd_help(const cli *c, int argc, char **argv)
{
    static const opt_def defs[] = { { NULL, false } };
    opt_iter it;
    const char *value = NULL, *topic = NULL;
    int id;

    opt_init(&it, argv[0], argc, argv);
    while ((id = opt_next(&it, defs, &value)) != OPT_END) {
        if (id == OPT_ERROR)
            return EXIT_USAGE;
        if (id == OPT_HELP) {
            help_command(stdout, "help");
            return EXIT_OK;
        }
        if (topic)
            return opt_unexpected(&it, value);
        topic = value;
    }
    if (!topic) {
        help_usage(stdout);
        return EXIT_OK;
    }
    if (!help_command(stdout, topic)) {
        print_error(c, "no help for '%s': there is no such command", topic);
        fprintf(stderr, "Run 'weir help' for the list of commands.\n");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}
