set(WEIR_API_SOURCES
  src/api/version.c
  src/api/pipeline.c
)
set(WEIR_API_DEPS util)
