set(WEIR_STATE_SOURCES
  src/state/catalog.c
  src/state/cdc.c
  src/state/checkpoint.c
  src/state/file_schemas.c
  src/state/integrity.c
  src/state/mv.c
  src/state/operator.c
  src/state/sink.c
  src/state/table_reads.c
  src/state/tables.c
)
set(WEIR_STATE_DEPS util sql graph store)
