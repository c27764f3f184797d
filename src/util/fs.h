/*
 * File-system helpers: whole-file reads, durable writes (temp file, fsync,
 * rename, fsync of the folder), folder creation and walking, path
 * arithmetic, and an advisory exclusive lock. All paths are plain POSIX
 * paths; errors carry errno text and the path.
 */
#ifndef WEIR_UTIL_FS_H
#define WEIR_UTIL_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "error.h"

/* Read a whole file into *out (NUL-terminated; caller frees). */
int weir__fs_read(char **out, size_t *len, const char *path, weir_error *err);
/* Write data to path durably and atomically. */
int weir__fs_write_atomic(const char *path, const void *data, size_t len,
                          weir_error *err);
/* Remove the half-written "<name>.tmp-<pid>" files weir__fs_write_atomic
 * calls that were killed left in dir (not below it). Only for folders no
 * one else writes in. Errors are ignored. */
void weir__fs_remove_atomic_temps(const char *dir);
/* mkdir -p. */
int weir__fs_mkdirs(const char *path, weir_error *err);
bool weir__fs_exists(const char *path);
bool weir__fs_is_dir(const char *path);
bool weir__fs_is_file(const char *path);
/* fsync a folder so a rename or create inside it is durable. */
int weir__fs_sync_dir(const char *path, weir_error *err);
/* Remove a file or a whole folder tree; missing paths are fine. */
int weir__fs_remove_tree(const char *path, weir_error *err);

typedef struct weir_file_info {
    char *path;         /* absolute or as joined from the root; malloc'd */
    uint64_t size;
    int64_t mtime_us;   /* modification time, microseconds since the epoch */
} weir_file_info;

typedef struct weir_file_list {
    weir_file_info *items;
    size_t len, cap;
} weir_file_list;

/* Regular files under dir (recursive when asked), sorted by path. Hidden
 * entries (leading '.' or '_') are skipped when skip_hidden. */
int weir__fs_list(weir_file_list *out, const char *dir, bool recursive,
                  bool skip_hidden, weir_error *err);
int weir__fs_stat(weir_file_info *out, const char *path, weir_error *err);
void weir__fs_list_free(weir_file_list *l);

/* Append path so that DuckDB's file readers, which expand `*`, `?` and
 * `[` in file names, read exactly that file: each such character becomes
 * a one-character bracket expression. */
void weir__fs_put_glob_literal(weir_buf *b, const char *path);
/* Why DuckDB cannot be given this file name (a static phrase), or NULL:
 * not valid UTF-8, or a backslash (a separator to DuckDB's glob) together
 * with a character that must be escaped. */
const char *weir__fs_unreadable_name(const char *path);
/* Append path for a message: bytes outside printable ASCII, and the
 * backslash, as \xNN. */
void weir__fs_put_escaped_name(weir_buf *b, const char *path);

/* Path helpers; results are malloc'd (NULL on OOM). */
char *weir__path_join(const char *a, const char *b);
char *weir__path_dirname(const char *path);
const char *weir__path_basename(const char *path); /* borrowed tail */
/* A path starting with '/', or an object store URL (url.h). */
bool weir__path_is_abs(const char *path);
/* Absolute, normalised form of path relative to base (NULL base = cwd);
 * does not require the path to exist and does not resolve symlinks. An
 * object store URL is absolute: it comes back in weir's spelling
 * (weir__url_normalize). */
char *weir__path_absolute(const char *path, const char *base);
/* The current working directory (malloc'd). */
char *weir__path_cwd(void);

/* Append a name (a catalog, sink or flow name, which may hold any
 * character) as text that is safe inside one path segment: '/', '\\',
 * '%', control characters, and the dots of a name made only of dots, are
 * written as %XX; everything else is kept, so ordinary names map to
 * themselves. The mapping is one to one (weir__path_decode_name reverses
 * it). */
void weir__path_put_name(weir_buf *out, const char *name);
/* Reverse weir__path_put_name on len bytes of s; false on a malformed
 * escape or an escaped NUL. */
bool weir__path_decode_name(weir_buf *out, const char *s, size_t len);

/* An exclusive advisory lock on path (created if missing). *fd_out receives
 * the descriptor to pass to weir__fs_unlock. WEIR_EBUSY when held by another
 * process; holder_out (may be NULL) receives the holder's pid text. */
int weir__fs_lock(int *fd_out, const char *path, char *holder_out,
                  size_t holder_size, weir_error *err);
void weir__fs_unlock(int fd);

/*
 * Throw-away folders that a killed process leaves behind and a later one
 * removes. weir__fs_temp_dir makes parent/PREFIX + six random characters
 * (mkdtemp) and holds an exclusive flock on the folder itself through
 * *lock_fd (close-on-exec) for as long as the caller uses it: release it
 * with weir__fs_unlock after removing the folder. The kernel drops the
 * lock when its holder dies, whatever killed it, so a folder nobody locks
 * has no owner any more.
 */
int weir__fs_temp_dir(char **out, int *lock_fd, const char *parent,
                      const char *prefix, weir_error *err);
/* Remove the folders weir__fs_temp_dir left in parent with this prefix
 * whose owner died: named PREFIX + six characters, real folders (not
 * symbolic links) of this user, not locked, and unchanged for
 * min_age_s seconds (a folder just made, not locked yet, is young).
 * Errors are ignored. */
void weir__fs_sweep_temp_dirs(const char *parent, const char *prefix,
                              unsigned min_age_s);

#endif
