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
 * an error naming the URL. The listing itself (names) costs one request
 * per 1,000 keys; each object's size and time then costs one HEAD
 * request (DuckDB does not pass on the sizes the listing returns). */
int weir__objects_list(weir_conn *c, const char *pattern, weir_file_list *out,
                       weir_error *err);

/* weir__objects_list without the sizes and times: only the listing's
 * requests. Items have size 0 and mtime_us 0. */
int weir__objects_names(weir_conn *c, const char *pattern,
                        weir_file_list *out, weir_error *err);

/* The size and modification time of each of n objects (URLs), one HEAD
 * request each, appended to out sorted by URL. An object that does not
 * exist fails the statement (and with it c's transaction): callers stat
 * objects they have just listed, and an object deleted meanwhile fails
 * the batch, whose retry lists again. */
int weir__objects_stat(weir_conn *c, const char *const *urls, size_t n,
                       weir_file_list *out, weir_error *err);

/* Copy the objects under the prefix url (a folder's URL, no trailing
 * '/') that the relative patterns in rel (NULL-terminated; `*` within one
 * level) match into the local folder dest, keeping their paths below url:
 * url/a/b lands at dest/a/b. dest is replaced as a whole, never seen
 * half-copied: the copy goes to dest + ".part" (removed first), is
 * fsynced, then renamed over dest. Patterns matching nothing copy
 * nothing; a store that cannot be listed or read is an error naming the
 * URL (c's transaction, if any, is then aborted). For small files (each
 * one is held in memory once). */
int weir__objects_copy(weir_conn *c, const char *url, const char *const *rel,
                       const char *dest, weir_error *err);

#endif
