/*
 * DuckDB's httpfs errors as weir's object-store error classes: the one
 * place where "HTTP Error: ..." and httpfs's connection "IO Error: ..."
 * messages become OBJECT_STORE_NOT_FOUND, _BUCKET_NOT_FOUND,
 * _ACCESS_DENIED, _THROTTLED or _UNREACHABLE, in weir's words, naming the
 * URL and what the user can do (docs/object-storage.md, "Errors").
 * Called by weir__db_error (db_error.c) before its own rules.
 */
#ifndef WEIR_STORE_HTTP_ERROR_H
#define WEIR_STORE_HTTP_ERROR_H

#include "util/error.h"

/* When msg (DuckDB's message, without its SQL excerpt) is an httpfs
 * error, sets err (WEIR_EIO, its message prefixed with what) and returns
 * WEIR_EIO; otherwise leaves err alone and returns 0. */
int weir__http_error(weir_error *err, const char *what, const char *msg);

#endif
