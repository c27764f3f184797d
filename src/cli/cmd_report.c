/*
 * `weir report --html`: the pages of `weir ui` (graph, updates, flows, data
 * quality, every dataset) as one self-contained HTML file, for CI artefacts
 * and sharing: styles inline, the graph as inline SVG, no script and no
 * link outside the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ui/ui.h"

enum { O_SPEC, O_HTML, O_OUTPUT, O_CONF, O_ENV };

static int write_file(const cli *c, const char *path, const weir_buf *page)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        print_error(c, "cannot write %s: %s", path, strerror(errno));
        return EXIT_USAGE;
    }
    bool ok = fwrite(weir__buf_cstr(page), 1, page->len, f) == page->len;
    ok = (path ? fclose(f) == 0 : fflush(f) == 0) && ok;
    if (!ok) {
        print_error(c, "cannot write %s: %s", path ? path : "the output",
                    strerror(errno));
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int cmd_report(const cli *c, int argc, char **argv)
{
    static const opt_def defs[] = {
        { "spec", true }, { "html", false }, { "output", true },
        { "conf", true }, { "env", true },   { NULL, false },
    };
    const char *spec = NULL, *output = NULL, *value = NULL;
    bool html = false;
    load_args load;
    int code = -1, id;
    opt_iter it;

    /* -o is the short form of --output. */
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        print_error(c, "out of memory");
        return EXIT_FAILED;
    }
    for (int i = 0; i < argc; i++)
        args[i] = strcmp(argv[i], "-o") == 0 ? (char *)"--output" : argv[i];
    memset(&load, 0, sizeof load);
    opt_init(&it, argv[0], argc, args);
    while (code < 0 && (id = opt_next(&it, defs, &value)) != OPT_END) {
        switch (id) {
        case OPT_HELP: help_command(stdout, "report"); code = EXIT_OK; break;
        case OPT_ERROR: code = EXIT_USAGE; break;
        case OPT_POSITIONAL: code = opt_unexpected(&it, value); break;
        case O_SPEC: spec = value; break;
        case O_HTML: html = true; break;
        case O_OUTPUT: output = value; break;
        case O_CONF: code = load_args_conf(c, &load, value); break;
        case O_ENV: load.env = value; break;
        default: break;
        }
    }
    free(args);
    if (code < 0 && !html) {
        print_error(c, "say which report: --html (the only format so far)");
        code = EXIT_USAGE;
    }
    if (code >= 0) {
        load_args_free(&load);
        return code;
    }
    ui_snapshot *snap = NULL;
    const ui_module *m = ui_module_load(c);
    code = m ? ui_load_snapshot(c, m, spec, &load, NULL, &snap) : EXIT_FAILED;
    if (code == EXIT_OK) {
        weir_buf page = WEIR_BUF_INIT;
        m->page_report(&page, snap);
        if (page.failed) {
            print_error(c, "out of memory");
            code = EXIT_FAILED;
        } else {
            code = write_file(c, output, &page);
        }
        if (code == EXIT_OK && output)
            fprintf(stderr, "Wrote the report of pipeline %s to %s\n",
                    snap->pipeline, output);
        weir__buf_free(&page);
    }
    if (m)
        m->snapshot_free(snap);
    load_args_free(&load);
    return code;
}
