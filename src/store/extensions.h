/*
 * DuckDB's extensions (httpfs, aws, azure, delta, the database scanners,
 * tpch): where weir finds the pinned files scripts/bootstrap.sh installs,
 * and loading one into an instance when something asks for it by name.
 * weir never installs or downloads an extension, and DuckDB's own
 * autoinstall and autoload are off (db.c): an extension is in an
 * instance only once weir__db_extension loaded it. Private to src/store
 * but for the one function db.h declares. See docs/object-storage.md.
 */
#ifndef WEIR_STORE_EXTENSIONS_H
#define WEIR_STORE_EXTENSIONS_H

#include <duckdb.h>

#include "util/error.h"

/* The extensions one instance loaded (thread-safe). */
typedef struct weir_extensions weir_extensions;

int weir__extensions_new(weir_extensions **out);
void weir__extensions_free(weir_extensions *e); /* NULL is fine */

/* The folder DuckDB's extension_directory is set to: $WEIR_DUCKDB_EXTENSIONS
 * when set, else duckdb_extensions/ beside the libduckdb.so this process
 * runs with (the bootstrap puts them there in .deps, `cmake --install`
 * beside the installed library). Written into out; false when it cannot
 * be told (then DuckDB's default is left alone). */
bool weir__extensions_dir(char *out, size_t size);

/* Load extension `name` (httpfs, aws, azure, delta, postgres, mysql,
 * sqlite, tpch) into the instance db, once: later calls return at once.
 * A file that is not installed is DUCKDB_EXTENSION_MISSING (WEIR_EINVAL:
 * a setup error, exit 2), naming the file and the install command;
 * `what` (may be NULL) says what needs it, e.g. "s3:// paths". */
int weir__extensions_load(weir_extensions *e, duckdb_database db,
                          const char *name, const char *what,
                          weir_error *err);

#endif
