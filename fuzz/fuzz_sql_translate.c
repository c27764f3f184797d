/*
 * libFuzzer target: parse a Spark query and translate it to DuckDB SQL with
 * no resolver (also rendering any read_files call and the statement
 * translator). Errors are fine; crashes, leaks and hangs are not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql.h"
#include "util/arena.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source src = { "fuzz.sql", text, size, NULL, 0, NULL, 0, false };
    weir_sql_query *q;
    weir_error err;
    weir_buf out = WEIR_BUF_INIT;
    if (weir__sql_parse_query(&q, &a, &src, 0, size, &err) == 0) {
        weir__sql_translate_query(&out, q, NULL, &err);
        weir_sql_reads r;
        if (weir__sql_query_reads(&r, &a, q, &err) == 0)
            for (size_t i = 0; i < r.n_tvfs; i++) {
                weir_buf rf = WEIR_BUF_INIT;
                weir__sql_render_read_files(&rf, &r.tvfs[i], NULL, 0, "/b", &err);
                weir__buf_free(&rf);
            }
    }
    weir__buf_clear(&out);
    weir__sql_translate_statement(&out, &a, &src, 0, size, NULL, &err);
    weir__buf_free(&out);
    weir__arena_free(&a);
    free(text);
    return 0;
}
