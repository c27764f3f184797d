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
  src/cli/python.c
  src/cli/python_child.c
  src/cli/remote.c
  src/cli/scaffold.c
  src/cli/token.c
  src/cli/interrupt.c
  src/cli/cmd_init.c
  src/cli/cmd_run.c
  src/cli/cmd_dry_run.c
  src/cli/cmd_graph.c
  src/cli/cmd_query.c
  src/cli/cmd_events.c
  src/cli/cmd_serve.c
  src/cli/cmd_test.c
  src/cli/test_report.c
  src/cli/cmd_report.c
  src/cli/cmd_ui.c
  src/cli/ui_load.c
  src/cli/ui_module.c
)
list(APPEND WEIR_CLI_SOURCES ${WEIR_CLI_FILES})
set_source_files_properties(${WEIR_CLI_FILES} PROPERTIES
  COMPILE_DEFINITIONS _POSIX_C_SOURCE=200809L)

# The Python launcher and Databricks shim run for projects with Python
# files, compiled into the binary (nothing to install beside it).
set(WEIR_CLI_PY_DIR "${CMAKE_CURRENT_SOURCE_DIR}/src/cli/python")
set(WEIR_CLI_PY_C "${CMAKE_BINARY_DIR}/cli-python.c")
add_custom_command(
  OUTPUT "${WEIR_CLI_PY_C}"
  COMMAND ${CMAKE_COMMAND} "-DOUT=${WEIR_CLI_PY_C}"
          "-DINPUTS=cli_py_launch=${WEIR_CLI_PY_DIR}/weir_launch.py,cli_py_shim=${WEIR_CLI_PY_DIR}/weir_shim.py"
          -P "${WEIR_CLI_PY_DIR}/embed.cmake"
  DEPENDS "${WEIR_CLI_PY_DIR}/weir_launch.py" "${WEIR_CLI_PY_DIR}/weir_shim.py"
          "${WEIR_CLI_PY_DIR}/embed.cmake"
  COMMENT "Embedding the Python launcher and shim"
  VERBATIM)
list(APPEND WEIR_CLI_SOURCES "${WEIR_CLI_PY_C}")
