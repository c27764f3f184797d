set(WEIR_API_SOURCES
  src/api/define.c
  src/api/describe.c
  src/api/pipeline.c
  src/api/query.c
  src/api/query_cancel.c
  src/api/query_guard.c
  src/api/spark.c
  src/api/replay.c
  src/api/version.c
)
set(WEIR_API_DEPS util spec sql graph store state events engine)
