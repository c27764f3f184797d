set(WEIR_GRAPH_SOURCES
  src/graph/build.c
  src/graph/defs.c
  src/graph/spark.c
  src/graph/validate.c
)
set(WEIR_GRAPH_DEPS util spec sql store)
