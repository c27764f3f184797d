# `weir test` in the library: definitions, fixtures, comparison, running.
# Built on the public API (src/api) and the spec's YAML reader.
set(WEIR_TESTING_SOURCES
  src/testing/compare.c
  src/testing/define.c
  src/testing/fixture.c
  src/testing/run.c
  src/testing/topic.c
)
set(WEIR_TESTING_DEPS util spec sql api)
