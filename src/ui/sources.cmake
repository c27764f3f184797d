# The pipeline UI (src/ui/): HTML pages of a pipeline's graph, updates, flows
# and data quality, for `weir report --html` and `weir ui`. It sits above the
# public API (include/weir.h) like src/connect, and is the only module that
# links Graphviz's libgvc (graph layout) and libmicrohttpd (the server).
set(WEIR_UI_SOURCES
  src/ui/gate.c
  src/ui/graph.c
  src/ui/html.c
  src/ui/module.c
  src/ui/server.c
  src/ui/snapshot.c
)
