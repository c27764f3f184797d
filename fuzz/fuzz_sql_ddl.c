/*
 * libFuzzer target: weir__sql_parse_file, the pipeline statement parser
 * (and through it the lexer, splitter, query and expression parsers). Every
 * input must parse or report diagnostics, never crash, leak or hang.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql.h"
#include "util/arena.h"
#include "util/error.h"

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
    weir_sql_stmt *stmts;
    size_t n;
    weir__diags d = { NULL, 0, 0, 0 };
    weir__sql_parse_file(&stmts, &n, &a, &src, &d);
    for (size_t i = 0; i < n; i++) {
        if (stmts[i].query) {
            weir_sql_reads r;
            weir_sql_sop *ops;
            size_t n_ops;
            weir__sql_query_reads(&r, &a, stmts[i].query, NULL);
            weir__sql_stream_ops(&ops, &n_ops, &a, stmts[i].query, NULL);
        }
        for (size_t k = 0; k < stmts[i].n_constraints; k++) {
            const char **cols;
            size_t nc;
            weir__sql_expr_columns(&cols, &nc, &a, stmts[i].constraints[k].condition);
        }
    }
    weir__diags_free(&d);
    weir__arena_free(&a);
    free(text);
    return 0;
}
