# The weir command-line tool: main.c, one cmd_<name>.c per subcommand and the
# helpers they share. Built on the public API only (include/weir.h).
set(WEIR_CLI_FILES
  src/cli/main.c
  src/cli/help.c
  src/cli/opt.c
  src/cli/print.c
  src/cli/events.c
  src/cli/json.c
  src/cli/utf8.c
  src/cli/table.c
  src/cli/project.c
  src/cli/scaffold.c
  src/cli/cmd_init.c
  src/cli/cmd_run.c
  src/cli/cmd_dry_run.c
  src/cli/cmd_graph.c
  src/cli/cmd_query.c
  src/cli/cmd_events.c
)
list(APPEND WEIR_CLI_SOURCES ${WEIR_CLI_FILES})
set_source_files_properties(${WEIR_CLI_FILES} PROPERTIES
  COMPILE_DEFINITIONS _POSIX_C_SOURCE=200809L)
