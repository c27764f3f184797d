/*
 * __weir_spark_type(VARCHAR) -> VARCHAR: the Spark name of a DuckDB type
 * name as DuckDB's DESCRIBE prints it (BIGINT -> bigint, VARCHAR ->
 * string, DECIMAL(10,2) -> decimal(10,2), INTEGER[] -> array<int>,
 * STRUCT(a INTEGER) -> struct<a:int>), by the one mapping weir uses
 * everywhere (weir__sql_duckdb_type_to_spark). SQL's DESCRIBE is
 * translated to a query over DuckDB's DESCRIBE that calls it, so a
 * table's description shows Spark's types whoever asks.
 */
#include "store/spark_type.h"

#include <string.h>

#include "sql/sql.h"
#include "util/buf.h"
#include "weir.h"

static void spark_type_fn(duckdb_function_info info, duckdb_data_chunk input,
                          duckdb_vector output)
{
    idx_t n = duckdb_data_chunk_get_size(input);
    duckdb_vector in = duckdb_data_chunk_get_vector(input, 0);
    duckdb_string_t *names = duckdb_vector_get_data(in);
    uint64_t *valid = duckdb_vector_get_validity(in);
    weir_buf b = WEIR_BUF_INIT;
    for (idx_t row = 0; row < n; row++) {
        if (valid && !duckdb_validity_row_is_valid(valid, row)) {
            duckdb_vector_ensure_validity_writable(output);
            duckdb_validity_set_row_invalid(duckdb_vector_get_validity(output), row);
            continue;
        }
        duckdb_string_t *s = &names[row];
        uint32_t len = duckdb_string_t_length(*s);
        const char *data = duckdb_string_t_data(s);
        weir_buf name = WEIR_BUF_INIT;
        weir__buf_put(&name, data, len);
        weir__buf_clear(&b);
        weir__sql_duckdb_type_to_spark(&b, weir__buf_cstr(&name));
        weir__buf_free(&name);
        if (weir__buf_failed(&b)) {
            duckdb_scalar_function_set_error(info, "out of memory");
            break;
        }
        duckdb_vector_assign_string_element_len(output, row, weir__buf_cstr(&b),
                                                strlen(weir__buf_cstr(&b)));
    }
    weir__buf_free(&b);
}

int weir__spark_type_register(duckdb_connection c)
{
    duckdb_scalar_function fn = duckdb_create_scalar_function();
    duckdb_scalar_function_set_name(fn, "__weir_spark_type");
    duckdb_logical_type text = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
    duckdb_scalar_function_add_parameter(fn, text);
    duckdb_scalar_function_set_return_type(fn, text);
    duckdb_scalar_function_set_function(fn, spark_type_fn);
    duckdb_state st = duckdb_register_scalar_function(c, fn);
    duckdb_destroy_scalar_function(&fn);
    duckdb_destroy_logical_type(&text);
    return st == DuckDBError ? WEIR_EENGINE : 0;
}
