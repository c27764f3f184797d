/*
 * Listing objects in object storage (s3://, gs://, abfss://, ...):
 * their URLs, sizes and modification times, through DuckDB's own
 * listing (its httpfs or azure extension, loaded on use: db.h), never a
 * client of weir's. The file source lists a prefix with it as it lists a
 * local folder with util/fs.h. See docs/object-storage.md.
 */
#ifndef WEIR_STORE_OBJECTS_H
#define WEIR_STORE_OBJECTS_H

#include <stdbool.h>

#include "store/db.h"
#include "util/fs.h"

/* The objects a URL pattern matches (DuckDB's glob: `*`, `**`, `?`,
 * `[...]`; a pattern without them names one object, looked up in its
 * parent's listing), sorted by URL, with their size and modification time
 * (the store's LastModified, whole seconds on S3). Appended to out. An
 * object that does not exist, or a pattern that matches nothing, adds
 * nothing and fails no statement (c may be in a transaction); a store
 * that cannot be listed (no such bucket, access denied, unreachable) is
 * an error naming the URL. */
int weir__objects_list(weir_conn *c, const char *pattern, weir_file_list *out,
                       weir_error *err);

#endif
