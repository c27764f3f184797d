list(APPEND WEIR_CLI_SOURCES
  src/cli/main.c
)
