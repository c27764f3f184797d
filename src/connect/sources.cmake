# The Spark Connect endpoint (src/connect/): weir as a Spark Connect server,
# so the real PySpark client can define pipelines (issue 13) and, later,
# query them (weir serve). It sits above the public API (include/weir.h)
# like the CLI, and is the only module that links libnghttp2 and
# libprotobuf-c. The message code is generated at build time by protoc-c
# from src/connect/proto/spark-connect.pb (see scripts/connect-descriptors.py).
set(WEIR_CONNECT_SOURCES
  src/connect/arrow.c
  src/connect/arrow_read.c
  src/connect/call.c
  src/connect/confs.c
  src/connect/grpc.c
  src/connect/grpc_call.c
  src/connect/grpc_client.c
  src/connect/grpc_frame.c
  src/connect/pipeline.c
  src/connect/pipeline_flow.c
  src/connect/plan.c
  src/connect/plan_join.c
  src/connect/plan_expr.c
  src/connect/plan_literal.c
  src/connect/plan_local.c
  src/connect/plan_ops.c
  src/connect/plan_read.c
  src/connect/plan_schema.c
  src/connect/plan_text.c
  src/connect/plan_types.c
  src/connect/query.c
  src/connect/remote.c
  src/connect/remote_uri.c
  src/connect/serve.c
  src/connect/server.c
  src/connect/server_analyze.c
  src/connect/server_exec.c
  src/connect/server_ops.c
  src/connect/shim.c
  src/connect/show.c
  src/connect/wire.c
)
