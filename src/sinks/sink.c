/*
 * The registry of sink formats (see sink.h): one line per format, each
 * implemented in its own file (delta.c, parquet.c, json.c, csv.c, kafka.c).
 */
#include "sinks/sink.h"

#include <stddef.h>

#include "sinks/internal.h"
#include "util/str.h"

static const weir_sink_format *const formats[] = {
    &weir__sink_delta, &weir__sink_parquet, &weir__sink_json, &weir__sink_csv,
    &weir__sink_kafka, NULL
};

const weir_sink_format *weir__sink_format(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; formats[i]; i++)
        if (weir__str_ieq(formats[i]->name, name))
            return formats[i];
    return NULL;
}

