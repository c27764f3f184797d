set(WEIR_API_SOURCES
  src/api/version.c
)
set(WEIR_API_DEPS util)
