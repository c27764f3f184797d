set(WEIR_STORE_SOURCES
  src/store/credentials.c
  src/store/db.c
  src/store/db_append.c
  src/store/db_error.c
  src/store/db_result.c
  src/store/db_stream.c
  src/store/extensions.c
  src/store/http_error.c
  src/store/jdbc.c
  src/store/macros.c
  src/store/objects.c
  src/store/scan.c
  src/store/spark_hash.c
  src/store/spark_text.c
  src/store/spark_type.c
  src/store/storage.c
  src/store/topics.c
  src/store/tally.c
  src/store/wal_guard.c
  src/store/watch.c
)
set(WEIR_STORE_DEPS util sql)
set(WEIR_STORE_LIBS PkgConfig::ZLIB)
