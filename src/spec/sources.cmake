set(WEIR_SPEC_SOURCES
  src/spec/expectations.c
  src/spec/libraries.c
  src/spec/report.c
  src/spec/settings.c
  src/spec/spark.c
  src/spec/spec.c
  src/spec/substitute.c
  src/spec/yaml_tree.c
)
set(WEIR_SPEC_DEPS util)
