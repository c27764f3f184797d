/*
 * The files of a folder written by Spark's file sink: the sink commits each
 * batch's files to a log in <folder>/_spark_metadata/ (batch files 0, 1,
 * .., every tenth one compacted into N.compact holding everything up to
 * it), and Spark reads such a folder through that log only, so that the
 * files of a batch that never committed (a job that died) are not data.
 * This module reads the log; the readers of folders (src/sql/read_files.c
 * for batch reads, src/sources/files.c for streaming ones) list a folder
 * through it when it has one.
 */
#ifndef WEIR_UTIL_SPARK_SINK_LOG_H
#define WEIR_UTIL_SPARK_SINK_LOG_H

#include <stdbool.h>

#include "error.h"
#include "fs.h"

/* Does dir hold a file sink log (a _spark_metadata folder)? */
bool weir__spark_sink_has_log(const char *dir);

/*
 * The files dir's _spark_metadata log lists as committed (added and not
 * deleted), in log order, into *out (paths malloc'd, under dir: a logged
 * path keeps its file name and the key=value folders above it, so a
 * folder that was moved or copied reads too; sizes and times from the
 * files). A listed file that is missing, a missing batch file between the
 * last compaction and the last batch, or a malformed entry is an error
 * naming the file (WEIR_EIO / WEIR_EINVAL). The caller frees *out with
 * weir__fs_list_free.
 */
int weir__spark_sink_files(weir_file_list *out, const char *dir,
                           weir_error *err);

#endif
