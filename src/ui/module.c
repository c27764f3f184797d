/*
 * The UI's entry points for the CLI, which loads this module with dlopen
 * (src/cli/ui_module.c): the one symbol the module exports.
 */
#include "ui/ui.h"

__attribute__((visibility("default"))) const ui_module *weir_ui_module(void)
{
    static const ui_module m = { ui_snapshot_build, ui_snapshot_free,
                                 ui_page_report,    ui_server_start,
                                 ui_server_port,    ui_server_stop };
    return &m;
}
