set(WEIR_SINKS_SOURCES
  src/sinks/sink.c
)
set(WEIR_SINKS_DEPS util sql graph store)
