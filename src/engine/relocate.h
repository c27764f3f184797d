/*
 * A project that moved: file sources are keyed in _weir by absolute path
 * ("files:/old/project/landing"), so a project copied or moved together
 * with its storage would read every file again. weir.duckdb remembers the
 * project folder of the last update; when it differs, the keys and paths
 * under the old folder are rewritten to the new one before anything reads
 * them. Sources outside the project folder are left alone.
 */
#ifndef WEIR_ENGINE_RELOCATE_H
#define WEIR_ENGINE_RELOCATE_H

#include <stddef.h>

#include "store/storage.h"

/*
 * Compare root_dir with the folder recorded in the storage (RUN mode, every
 * catalog attached) and rewrite the catalogs' file-source state when the
 * project moved. Each catalog is rewritten in its own transaction and the
 * new folder recorded last, so an interrupted move is finished by the next
 * update. *moved_from gets the old folder (malloc'd) when a move happened,
 * else NULL.
 */
int weir__relocate(weir_storage *st, const char *root_dir, char **moved_from,
                   weir_error *err);

#endif
