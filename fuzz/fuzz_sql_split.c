/*
 * libFuzzer target: the SQL statement splitter. Any input must split or
 * fail with an error, without crashing, leaking or reading out of bounds;
 * spans must lie inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source src = { "fuzz.sql", text, size, NULL, 0, NULL, 0, false };
    weir_sql_span *spans;
    size_t n;
    weir_error err;
    if (weir__sql_split(&spans, &n, &a, &src, &err) == 0) {
        for (size_t i = 0; i < n; i++)
            if (spans[i].offset + spans[i].len > size)
                abort();
    }
    weir__arena_free(&a);
    free(text);
    return 0;
}
