set(WEIR_ENGINE_SOURCES
  src/engine/analyze.c
  src/engine/cdc.c
  src/engine/common.c
  src/engine/exec.c
  src/engine/flow_state.c
  src/engine/materialize.c
  src/engine/record.c
  src/engine/mv.c
  src/engine/mv_state.c
  src/engine/relocate.c
  src/engine/resolve.c
  src/engine/run.c
  src/engine/select.c
  src/engine/sink_flow.c
  src/engine/write.c
)
set(WEIR_ENGINE_DEPS util sql graph store events sinks sources)
