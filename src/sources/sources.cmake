set(WEIR_SOURCES_SOURCES
  src/sources/file_source.c
  src/sources/import.c
  src/sources/files.c
  src/sources/files_csv.c
  src/sources/files_render.c
  src/sources/files_schema.c
  src/sources/infer_cache.c
  src/sources/kafka.c
  src/sources/kafka_read.c
  src/sources/jdbc.c
  src/sources/kafka_opts.c
  src/sources/range.c
  src/sources/source.c
  src/sources/spark_checkpoint.c
  src/sources/table.c
)
set(WEIR_SOURCES_DEPS util sql graph store state kafka)
