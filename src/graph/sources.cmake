set(WEIR_GRAPH_SOURCES
  src/graph/build.c
  src/graph/defs.c
)
set(WEIR_GRAPH_DEPS util sql)
