/* duckscript DB SCRIPT: the floor of a one-process-per-batch benchmark.
 *
 * Opens the DuckDB database file DB (the same libduckdb weir links), runs
 * the SQL file SCRIPT in one transaction and closes the database, as a
 * scheduled job running a hand-written script would. Exit 0 on success;
 * on an error prints DuckDB's message and exits 1. Built by the bench
 * scripts that use it (bench/cdc.sh). */
#include <duckdb.h>
#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    if (ferror(f)) { /* never run a truncated script */
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static int run(duckdb_connection con, const char *sql)
{
    duckdb_result res;
    int failed = duckdb_query(con, sql, &res) == DuckDBError;
    if (failed)
        fprintf(stderr, "duckscript: %s\n", duckdb_result_error(&res));
    duckdb_destroy_result(&res);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: duckscript DB SCRIPT\n");
        return 2;
    }
    char *sql = slurp(argv[2]);
    if (!sql) {
        perror(argv[2]);
        return 2;
    }
    duckdb_database db;
    duckdb_connection con = NULL;
    if (duckdb_open(argv[1], &db) == DuckDBError) {
        fprintf(stderr, "duckscript: cannot open %s\n", argv[1]);
        free(sql);
        return 1;
    }
    int failed = duckdb_connect(db, &con) == DuckDBError;
    failed = failed || run(con, "BEGIN") || run(con, sql) || run(con, "COMMIT");
    duckdb_disconnect(&con);
    duckdb_close(&db);
    free(sql);
    return failed ? 1 : 0;
}
