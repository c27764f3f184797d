set(WEIR_SINKS_SOURCES
  src/sinks/csv.c
  src/sinks/delta.c
  src/sinks/delta_dataset.c
  src/sinks/delta_log.c
  src/sinks/delta_schema.c
  src/sinks/files.c
  src/sinks/folder.c
  src/sinks/json.c
  src/sinks/kafka.c
  src/sinks/kafka_file.c
  src/sinks/parquet.c
  src/sinks/sink.c
)
set(WEIR_SINKS_DEPS util sql graph store kafka)
set(WEIR_SINKS_LIBS PkgConfig::ZLIB)
