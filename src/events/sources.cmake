set(WEIR_EVENTS_SOURCES
  src/events/events.c
)
set(WEIR_EVENTS_DEPS util store)
