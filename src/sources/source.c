/*
 * The registry of source kinds (see source.h): one line per kind, each
 * implemented in its own file (table.c, files.c, range.c, kafka.c, jdbc.c,
 * delta.c), and what all
 * kinds share.
 */
#include "sources/source.h"

#include <stdio.h>
#include <string.h>

/* Tables last: an input no other kind accepts is a table reference. */
static const weir_source_kind *const kinds[] = {
    &weir__source_files, &weir__source_range, &weir__source_kafka,
    &weir__source_jdbc, &weir__source_delta, &weir__source_table, NULL
};

const weir_source_kind *weir__source_kind_of(const weir_input *in)
{
    for (size_t i = 0; kinds[i]; i++)
        if (kinds[i]->accepts(in))
            return kinds[i];
    return &weir__source_table;
}

/* Append a sentence to a message buffer, cut with "..." when full. */
static void append(char *buf, size_t room, const char *text)
{
    size_t have = strlen(buf);
    if (have + 4 >= room)
        return;
    int n = snprintf(buf + have, room - have, "%s%s", have ? " " : "", text);
    if (n < 0 || (size_t)n >= room - have)
        memcpy(buf + room - 4, "...", 4);
}

void weir__source_warn(const weir_source_ctx *c, const char *text)
{
    append(c->warning, c->warning_size, text);
}

void weir__source_note(const weir_source_ctx *c, const char *text)
{
    append(c->note, c->note_size, text);
}

void weir__source_progress_offsets(const weir_source_ctx *c,
                                   const weir_source_batch *b, weir_buf *d)
{
    (void)c;
    weir__buf_printf(d, ", \"start_offset\": %lld, \"end_offset\": %lld",
                     (long long)b->start, (long long)b->end);
}
