/*
 * Translation tests for src/sql: each case translates a Spark SQL query,
 * runs the DuckDB SQL in an in-memory database prepared with weir's session
 * setup and fixture tables, and compares the rows (rendered as text) and,
 * where it matters, the column names with what Spark returns.
 */
#include "harness.h"

#include <duckdb.h>
#include <stdio.h>
#include <string.h>

#include "sql/sql.h"
#include "util/arena.h"
#include "util/buf.h"

static duckdb_database db;
static duckdb_connection con;

static const char FIXTURES[] =
    "CREATE TABLE t (id INTEGER, name VARCHAR, amount DOUBLE, ts TIMESTAMP, "
    "d DATE, tags VARCHAR[], m MAP(VARCHAR, INTEGER), s STRUCT(a INTEGER, b VARCHAR));"
    "INSERT INTO t VALUES "
    "(1, 'alice', 10.5, TIMESTAMP '2024-01-15 10:30:00', DATE '2024-01-15', "
    "['a', 'b'], MAP {'k': 1}, {'a': 1, 'b': 'x'}),"
    "(2, 'bob', 20.25, TIMESTAMP '2024-02-29 23:59:59', DATE '2024-02-29', "
    "[], MAP {'k': 2, 'j': 3}, {'a': 2, 'b': 'y'}),"
    "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL);"
    "CREATE TABLE nums (x INTEGER);"
    "INSERT INTO nums VALUES (1), (2), (3), (4), (5), (NULL);"
    "CREATE TABLE sales (region VARCHAR, product VARCHAR, qty INTEGER, price DECIMAL(10,2));"
    "INSERT INTO sales VALUES ('east', 'a', 1, 2.50), ('east', 'b', 2, 1.25), "
    "('west', 'a', 3, 2.50), ('west', 'a', NULL, 3.00);"
    "CREATE TABLE j (s VARCHAR);"
    "INSERT INTO j VALUES ('{\"a\": 1, \"b\": {\"c\": \"x\"}, \"arr\": [1, 2]}'), ('not json');"
    "CREATE TABLE ev (ts TIMESTAMP, v INTEGER);"
    "INSERT INTO ev VALUES (TIMESTAMP '2024-01-01 00:00:03', 1), "
    "(TIMESTAMP '2024-01-01 00:00:07', 2), (TIMESTAMP '2024-01-01 00:00:08', 3);";

static void setup(void)
{
    if (duckdb_open(NULL, &db) != DuckDBSuccess ||
        duckdb_connect(db, &con) != DuckDBSuccess) {
        fprintf(stderr, "cannot open duckdb\n");
        exit(2);
    }
    duckdb_result r;
    if (duckdb_query(con, weir__sql_session_setup(), &r) != DuckDBSuccess) {
        fprintf(stderr, "session setup failed: %s\n", duckdb_result_error(&r));
        exit(2);
    }
    duckdb_destroy_result(&r);
    if (duckdb_query(con, FIXTURES, &r) != DuckDBSuccess) {
        fprintf(stderr, "fixtures failed: %s\n", duckdb_result_error(&r));
        exit(2);
    }
    duckdb_destroy_result(&r);
}

static void teardown(void)
{
    duckdb_disconnect(&con);
    duckdb_close(&db);
}

/* The resolver's type probe, as weir's (a described query's one column). */
static int probe_type(void *payload, const char *sql, weir_buf *out)
{
    (void)payload;
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_printf(&q, "DESCRIBE %s", sql);
    duckdb_result r;
    int rc = -1;
    if (duckdb_query(con, weir__buf_cstr(&q), &r) == DuckDBSuccess) {
        rc = 0;
        for (idx_t i = 0; i < duckdb_row_count(&r); i++) {
            char *v = duckdb_value_varchar(&r, 1, i);
            weir__buf_printf(out, "%s%s", i ? "\n" : "", v ? v : "");
            duckdb_free(v);
        }
    }
    duckdb_destroy_result(&r);
    weir__buf_free(&q);
    return rc;
}

/* Translate spark; 0 and the DuckDB SQL in out, or the error. */
static int translate(const char *spark, weir_buf *out, weir_error *err)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source src = { "q.sql", spark, strlen(spark), NULL, 0, NULL, 0, false };
    weir_sql_query *q = NULL;
    int rc = weir__sql_parse_query(&q, &a, &src, 0, src.len, err);
    weir_sql_resolver probe = { .expr_type = probe_type };
    if (!rc)
        rc = weir__sql_translate_query(out, q, &probe, err);
    weir__arena_free(&a);
    return rc;
}

/* Run sql; rows as "a|b;c|d" and names as "x,y". */
static int run(const char *sql, weir_buf *rows, weir_buf *names, char *msg,
               size_t msg_size)
{
    weir_buf q = WEIR_BUF_INIT;
    weir__buf_printf(&q, "SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (%s)", sql);
    duckdb_result r;
    int rc = 0;
    if (duckdb_query(con, weir__buf_cstr(&q), &r) != DuckDBSuccess) {
        snprintf(msg, msg_size, "%s", duckdb_result_error(&r));
        rc = -1;
    } else {
        idx_t nc = duckdb_column_count(&r), nr = duckdb_row_count(&r);
        for (idx_t c = 0; c < nc; c++)
            weir__buf_printf(names, "%s%s", c ? "," : "", duckdb_column_name(&r, c));
        for (idx_t i = 0; i < nr; i++) {
            if (i)
                weir__buf_putc(rows, ';');
            for (idx_t c = 0; c < nc; c++) {
                char *v = duckdb_value_varchar(&r, c, i);
                weir__buf_printf(rows, "%s%s", c ? "|" : "", v ? v : "NULL");
                duckdb_free(v);
            }
        }
    }
    duckdb_destroy_result(&r);
    weir__buf_free(&q);
    return rc;
}

static int n_cases;

/* Check spark's rows (and names when given). */
static void check(const char *file, int line, const char *spark,
                  const char *want_rows, const char *want_names)
{
    n_cases++;
    weir_buf out = WEIR_BUF_INIT, rows = WEIR_BUF_INIT, names = WEIR_BUF_INIT;
    weir_error err;
    memset(&err, 0, sizeof(err));
    char msg[2048] = "";
    if (translate(spark, &out, &err) != 0) {
        fprintf(stderr, "  %s:%d: translate failed: %s\n    %s\n", file, line,
                err.message, spark);
        T_.failures++;
    } else if (run(weir__buf_cstr(&out), &rows, &names, msg, sizeof(msg)) != 0) {
        fprintf(stderr, "  %s:%d: duckdb failed: %s\n    %s\n    %s\n", file,
                line, msg, spark, weir__buf_cstr(&out));
        T_.failures++;
    } else {
        if (strcmp(weir__buf_cstr(&rows), want_rows) != 0) {
            fprintf(stderr, "  %s:%d: rows \"%s\", expected \"%s\"\n    %s\n    %s\n",
                    file, line, weir__buf_cstr(&rows), want_rows, spark,
                    weir__buf_cstr(&out));
            T_.failures++;
        }
        if (want_names && strcmp(weir__buf_cstr(&names), want_names) != 0) {
            fprintf(stderr, "  %s:%d: names \"%s\", expected \"%s\"\n    %s\n",
                    file, line, weir__buf_cstr(&names), want_names, spark);
            T_.failures++;
        }
    }
    weir__buf_free(&out);
    weir__buf_free(&rows);
    weir__buf_free(&names);
}

/* spark must fail to translate with UNSUPPORTED_SPARK_SQL (or a parse
 * error class) mentioning needle. */
static void check_error(const char *file, int line, const char *spark,
                        const char *cls, const char *needle)
{
    n_cases++;
    weir_buf out = WEIR_BUF_INIT;
    weir_error err;
    memset(&err, 0, sizeof(err));
    if (translate(spark, &out, &err) == 0) {
        fprintf(stderr, "  %s:%d: expected an error, got %s\n", file, line,
                weir__buf_cstr(&out));
        T_.failures++;
    } else if (strcmp(err.error_class, cls) != 0 || !strstr(err.message, needle)) {
        fprintf(stderr, "  %s:%d: error [%s] %s; expected [%s] ~ %s\n", file, line,
                err.error_class, err.message, cls, needle);
        T_.failures++;
    }
    weir__buf_free(&out);
}

/* Check the DuckDB types of the result columns. */
static void check_types(const char *file, int line, const char *spark,
                        const char *want)
{
    n_cases++;
    weir_buf out = WEIR_BUF_INIT, q = WEIR_BUF_INIT, rows = WEIR_BUF_INIT,
             names = WEIR_BUF_INIT;
    weir_error err;
    memset(&err, 0, sizeof(err));
    char msg[2048] = "";
    if (translate(spark, &out, &err) != 0) {
        fprintf(stderr, "  %s:%d: translate failed: %s\n", file, line, err.message);
        T_.failures++;
    } else {
        weir__buf_printf(&q, "SELECT typeof(COLUMNS(*)) FROM (%s) LIMIT 1",
                         weir__buf_cstr(&out));
        if (run(weir__buf_cstr(&q), &rows, &names, msg, sizeof(msg)) != 0 ||
            strcmp(weir__buf_cstr(&rows), want) != 0) {
            fprintf(stderr, "  %s:%d: types \"%s\" (%s), expected \"%s\"\n", file,
                    line, weir__buf_cstr(&rows), msg, want);
            T_.failures++;
        }
    }
    weir__buf_free(&out);
    weir__buf_free(&q);
    weir__buf_free(&rows);
    weir__buf_free(&names);
}

#define QT(spark, types) check_types(__FILE__, __LINE__, spark, types)
#define Q(spark, rows) check(__FILE__, __LINE__, spark, rows, NULL)
#define QN(spark, names, rows) check(__FILE__, __LINE__, spark, rows, names)
#define QERR(spark, needle)                                                   \
    check_error(__FILE__, __LINE__, spark, "UNSUPPORTED_SPARK_SQL", needle)

/* ---- CASES ---- */
/* spark translates, but running it must fail with needle in the error
 * (Spark 4's ANSI errors). */
static void check_run_error(const char *file, int line, const char *spark,
                            const char *needle)
{
    n_cases++;
    weir_buf out = WEIR_BUF_INIT, rows = WEIR_BUF_INIT, names = WEIR_BUF_INIT;
    weir_error err;
    memset(&err, 0, sizeof(err));
    char msg[2048] = "";
    if (translate(spark, &out, &err) != 0) {
        fprintf(stderr, "  %s:%d: translate failed: %s\n    %s\n", file, line,
                err.message, spark);
        T_.failures++;
    } else if (run(weir__buf_cstr(&out), &rows, &names, msg, sizeof(msg)) == 0) {
        fprintf(stderr, "  %s:%d: expected a run-time error, got \"%s\"\n    %s\n",
                file, line, weir__buf_cstr(&rows), spark);
        T_.failures++;
    } else if (!strstr(msg, needle)) {
        fprintf(stderr, "  %s:%d: error %s; expected ~ %s\n", file, line, msg,
                needle);
        T_.failures++;
    }
    weir__buf_free(&out);
    weir__buf_free(&rows);
    weir__buf_free(&names);
}
#define QRUNERR(spark, needle) check_run_error(__FILE__, __LINE__, spark, needle)

TEST(test_sql_translate__select_basics)
{
    QN("SELECT id, name FROM t ORDER BY id", "id,name",
       "1|alice;2|bob;3|NULL");
    QN("SELECT t.id, t.name AS n FROM t WHERE id < 3 ORDER BY 1", "id,n",
       "1|alice;2|bob");
    QN("SELECT * FROM nums WHERE x > 3 ORDER BY x", "x", "4;5");
    QN("SELECT id + 1, upper(name), count(*) FROM t GROUP BY id, name ORDER BY id",
       "(id + 1),upper(name),count(1)", "2|ALICE|1;3|BOB|1;4|NULL|1");
    QN("SELECT 1, 'x', 1.5, true, NULL", "1,x,1.5,true,NULL", "1|x|1.5|true|NULL");
    QN("SELECT sum(amount), max(ts), min(d) FROM t", "sum(amount),max(ts),min(d)",
       "30.75|2024-02-29 23:59:59|2024-01-15");
    QN("SELECT concat(name, '!') FROM t WHERE id = 1", "concat(name, !)", "alice!");
    QN("SELECT CAST(id AS STRING), CAST(id + 1 AS BIGINT) FROM t WHERE id = 1",
       "id,CAST((id + 1) AS BIGINT)", "1|2");
    QN("SELECT `id` AS `my id` FROM t WHERE id = 2", "my id", "2");
    QN("SELECT id x FROM t WHERE id = 2", "x", "2");
    Q("SELECT DISTINCT region FROM sales ORDER BY region", "east;west");
    Q("SELECT ALL region FROM sales ORDER BY region LIMIT 1", "east");
    Q("SELECT x FROM nums ORDER BY x", "NULL;1;2;3;4;5");
    Q("SELECT x FROM nums ORDER BY x DESC", "5;4;3;2;1;NULL");
    Q("SELECT x FROM nums ORDER BY x ASC NULLS LAST LIMIT 2", "1;2");
    Q("SELECT x FROM nums ORDER BY x DESC NULLS FIRST LIMIT 2", "NULL;5");
    Q("SELECT x FROM nums ORDER BY x LIMIT 2 OFFSET 2", "2;3");
    Q("SELECT x FROM nums SORT BY x LIMIT 1", "NULL");
    Q("SELECT x FROM nums WHERE x IS NOT NULL DISTRIBUTE BY x SORT BY x DESC LIMIT 1",
      "5");
    Q("SELECT x FROM nums WHERE x IS NOT NULL CLUSTER BY x LIMIT 1", "1");
    Q("SELECT * FROM (SELECT x FROM nums WHERE x < 3) sub ORDER BY x", "1;2");
    Q("SELECT * FROM (SELECT x FROM nums WHERE x < 3) AS sub(y) ORDER BY y", "1;2");
    Q("SELECT LIVE.t.id FROM LIVE.t WHERE id = 1", "1");
    Q("SELECT * EXCEPT (amount, ts, d, tags, m, s) FROM t WHERE id = 1", "1|alice");
    Q("SELECT t.* FROM nums t WHERE x = 1", "1");
    Q("SELECT x FROM nums WHERE x IN (1, 3) ORDER BY x", "1;3");
    Q("SELECT x FROM nums WHERE x NOT IN (1, 3) ORDER BY x", "2;4;5");
    Q("SELECT x FROM nums WHERE x BETWEEN 2 AND 4 ORDER BY x", "2;3;4");
    Q("SELECT x FROM nums WHERE x NOT BETWEEN 2 AND 4 ORDER BY x", "1;5");
    Q("SELECT x FROM nums WHERE x IN (SELECT id FROM t) ORDER BY x", "1;2;3");
    Q("SELECT x FROM nums n WHERE EXISTS (SELECT 1 FROM t WHERE t.id = n.x) ORDER BY x",
      "1;2;3");
    Q("SELECT x FROM nums n WHERE NOT EXISTS (SELECT 1 FROM t WHERE t.id = n.x) "
      "ORDER BY x", "NULL;4;5");
    Q("SELECT (SELECT max(x) FROM nums) AS m", "5");
    Q("SELECT id FROM t WHERE id = (SELECT min(x) FROM nums)", "1");
}

TEST(test_sql_translate__with_and_setops)
{
    Q("WITH a AS (SELECT x FROM nums WHERE x <= 2) SELECT * FROM a ORDER BY x",
      "1;2");
    Q("WITH a AS (SELECT 1 AS v), b AS (SELECT v + 1 AS v FROM a) "
      "SELECT * FROM b", "2");
    Q("WITH a (c) AS (SELECT 7) SELECT c FROM a", "7");
    Q("WITH c AS (WITH b AS (SELECT 1 AS z) SELECT * FROM b) SELECT * FROM c", "1");
    /* CTEs read once become subqueries; the rest stay CTEs */
    Q("WITH a AS (SELECT 1 AS v), b AS (SELECT v FROM a), c AS (SELECT v FROM a) "
      "SELECT b.v + c.v FROM b, c", "2");
    Q("WITH a AS (SELECT 1 AS v) SELECT a.v FROM a", "1");
    Q("WITH a (v) AS (SELECT 5), b AS (SELECT v FROM a) SELECT v FROM b", "5");
    Q("WITH a (v) AS (SELECT 5) SELECT w FROM a AS z(w)", "5");
    Q("WITH a AS (SELECT 6 AS v) SELECT w FROM a AS z(w)", "6");
    Q("WITH a AS (SELECT 1 AS v) SELECT (SELECT max(v) FROM a) AS m", "1");
    /* b reads the outer a, also when read where an inner a is in scope */
    Q("WITH a AS (SELECT 1 AS v), b AS (SELECT v FROM a) SELECT * FROM "
      "(WITH a AS (SELECT 2 AS v) SELECT b.v * 10 + a.v AS s FROM b, a)", "12");
    Q("WITH a AS (SELECT 1 AS v), b AS (SELECT v FROM a) SELECT * FROM "
      "(WITH a AS (SELECT 2 AS v) SELECT v FROM b)", "1");
    /* a CTE's free column stays unresolved where outer columns are in
     * reach (DuckDB would bind it laterally or as a correlation) */
    QRUNERR("WITH c AS (SELECT y) SELECT * FROM (SELECT 1 AS y) t, c", "y");
    QRUNERR("WITH c AS (SELECT y) SELECT * FROM (SELECT 1 AS y) t "
            "WHERE EXISTS (SELECT * FROM c)", "y");
    Q("SELECT 1 AS a UNION SELECT 1 UNION SELECT 2 ORDER BY a", "1;2");
    Q("SELECT 1 AS a UNION ALL SELECT 1 ORDER BY a", "1;1");
    Q("SELECT x FROM nums WHERE x < 4 INTERSECT SELECT x FROM nums WHERE x > 1 "
      "ORDER BY x", "2;3");
    Q("SELECT x FROM nums WHERE x < 4 EXCEPT SELECT x FROM nums WHERE x > 1 "
      "ORDER BY x", "1");
    Q("SELECT x FROM nums WHERE x < 4 MINUS SELECT x FROM nums WHERE x > 1 "
      "ORDER BY x", "1");
    Q("(SELECT 1 AS a) UNION ALL (SELECT 2) ORDER BY a DESC LIMIT 1", "2");
    Q("SELECT 1 AS a UNION ALL SELECT 2 INTERSECT SELECT 2 ORDER BY a", "1;2");
    QN("VALUES (1, 'a'), (2, 'b')", "col1,col2", "1|a;2|b");
    QN("SELECT * FROM VALUES (1, 'a'), (2, 'b') AS v(n, s) ORDER BY n DESC",
       "n,s", "2|b;1|a");
    QN("SELECT * FROM (VALUES (1), (2)) ORDER BY col1", "col1", "1;2");
    /* a field of an array of structs is the array of the elements' fields
     * (nested structs too; a struct holding the array too) */
    QT("SELECT w.main, w.d.k, s.w.main FROM (SELECT array(named_struct('main', 'x', "
       "'d', named_struct('k', 1))) AS w, named_struct('w', array(named_struct("
       "'main', 'y'))) AS s) AS t", "VARCHAR[]|INTEGER[]|VARCHAR[]");
    Q("SELECT w.main, t.w.d.k FROM (SELECT array(named_struct('main', 'x', 'd', "
      "named_struct('k', 1)), named_struct('main', 'y', 'd', named_struct('k', 2))) "
      "AS w) AS t", "[x, y]|[1, 2]");
    /* column aliases without a table alias (Spark accepts them) */
    QN("SELECT * FROM VALUES (1, 'a'), (2, 'b') AS (id, name) ORDER BY id",
       "id,name", "1|a;2|b");
    QN("SELECT name FROM VALUES (1, 'a') AS (id, name) WHERE id = 1", "name",
       "a");
    Q("SELECT * FROM VALUES 1, 2, 3 AS v(a) WHERE a > 1", "2;3");
    Q("TABLE nums ORDER BY x LIMIT 1", "NULL");
    Q("SELECT a FROM (SELECT 1 AS a UNION ALL SELECT 2) ORDER BY a", "1;2");
}

TEST(test_sql_translate__joins)
{
    Q("SELECT t.id, n.x FROM t JOIN nums n ON t.id = n.x ORDER BY t.id",
      "1|1;2|2;3|3");
    Q("SELECT t.id, n.x FROM t INNER JOIN nums n ON t.id = n.x AND n.x > 1 "
      "ORDER BY 1", "2|2;3|3");
    Q("SELECT n.x, t.id FROM nums n LEFT JOIN t ON t.id = n.x ORDER BY n.x",
      "NULL|NULL;1|1;2|2;3|3;4|NULL;5|NULL");
    Q("SELECT n.x, t.id FROM nums n LEFT OUTER JOIN t ON t.id = n.x WHERE t.id "
      "IS NULL ORDER BY 1", "NULL|NULL;4|NULL;5|NULL");
    Q("SELECT t.id, n.x FROM t RIGHT JOIN nums n ON t.id = n.x ORDER BY n.x",
      "NULL|NULL;1|1;2|2;3|3;NULL|4;NULL|5");
    Q("SELECT count(*) FROM t FULL OUTER JOIN nums n ON t.id = n.x", "6");
    Q("SELECT x FROM nums LEFT SEMI JOIN t ON t.id = nums.x ORDER BY x", "1;2;3");
    Q("SELECT x FROM nums LEFT ANTI JOIN t ON t.id = nums.x ORDER BY x",
      "NULL;4;5");
    Q("SELECT x FROM nums SEMI JOIN t ON t.id = nums.x ORDER BY x", "1;2;3");
    Q("SELECT count(*) FROM t CROSS JOIN nums", "18");
    Q("SELECT count(*) FROM t, nums WHERE t.id = nums.x", "3");
    Q("SELECT a.id, b.id FROM t a JOIN t b USING (id) ORDER BY 1", "1|1;2|2;3|3");
    Q("SELECT id FROM t NATURAL JOIN (SELECT 2 AS id) x", "2");
    Q("SELECT t.id, l.y FROM t, LATERAL (SELECT t.id * 10 AS y) l ORDER BY 1",
      "1|10;2|20;3|30");
    Q("SELECT count(*) FROM t a JOIN t b ON a.id = b.id JOIN t c ON b.id = c.id",
      "3");
}

TEST(test_sql_translate__aggregation)
{
    QN("SELECT region, sum(qty), count(*) FROM sales GROUP BY region ORDER BY region",
       "region,sum(qty),count(1)", "east|3|2;west|3|2");
    Q("SELECT region, count(qty) FROM sales GROUP BY 1 ORDER BY 1", "east|2;west|1");
    Q("SELECT region, count(DISTINCT product) FROM sales GROUP BY ALL ORDER BY 1",
      "east|2;west|1");
    Q("SELECT region, sum(qty) s FROM sales GROUP BY region HAVING sum(qty) > 2 "
      "ORDER BY 1", "east|3;west|3");
    Q("SELECT region, avg(qty) FROM sales GROUP BY region ORDER BY 1",
      "east|1.5;west|3.0");
    /* Spark's decimal result types: sum DECIMAL(p+10,s), avg
     * DECIMAL(p+4,s+4), at most 38 digits */
    QT("SELECT sum(qty), sum(price), sum(1.5D), count(*) FROM sales",
       "BIGINT|DECIMAL(20,2)|DOUBLE|BIGINT");
    QT("SELECT avg(price), avg(DISTINCT price), sum(price) FILTER (WHERE qty > 1), "
       "avg(qty) FROM sales", "DECIMAL(14,6)|DECIMAL(14,6)|DECIMAL(20,2)|DOUBLE");
    QT("SELECT sum(price) OVER (PARTITION BY region) FROM sales LIMIT 1",
       "DECIMAL(20,2)");
    QT("SELECT sum(CAST(price AS DECIMAL(35,2))), avg(CAST(price AS DECIMAL(36,35))) "
       "FROM sales", "DECIMAL(38,2)|DECIMAL(38,38)");
    Q("SELECT region, avg(price) FROM sales GROUP BY region ORDER BY 1",
      "east|1.875000;west|2.750000");
    /* decimal arithmetic: Spark's DecimalPrecision rules, literals as
     * wide as their digits */
    QT("SELECT price * qty, price + 1, price / qty, price % 3, 1.1 * 2.2, "
       "0.1 + 0.2, qty * 2, qty / 2 FROM sales LIMIT 1",
       "DECIMAL(21,2)|DECIMAL(11,2)|DECIMAL(21,13)|DECIMAL(3,2)|DECIMAL(5,2)|"
       "DECIMAL(2,1)|INTEGER|DOUBLE");
    QT("SELECT CAST(price AS DECIMAL(38,10)) * CAST(price AS DECIMAL(38,10)) "
       "FROM sales LIMIT 1", "DECIMAL(38,6)");
    Q("SELECT CAST(1 AS DECIMAL(10,2)) / CAST(3 AS DECIMAL(10,2))", "0.3333333333333");
    /* the innermost SELECT's FROM types the argument */
    QT("SELECT (SELECT sum(price) FROM sales) AS t, "
       "(SELECT avg(x) FROM VALUES (1.5) AS v(x)) AS u",
       "DECIMAL(20,2)|DECIMAL(6,5)");
    Q("SELECT region, product, sum(qty) FROM sales GROUP BY ROLLUP(region, product) "
      "ORDER BY region NULLS LAST, product NULLS LAST",
      "east|a|1;east|b|2;east|NULL|3;west|a|3;west|NULL|3;NULL|NULL|6");
    Q("SELECT region, sum(qty) FROM sales GROUP BY region WITH ROLLUP "
      "ORDER BY region", "NULL|6;east|3;west|3");
    Q("SELECT count(*) FROM (SELECT region, product FROM sales GROUP BY "
      "CUBE(region, product))", "8");
    Q("SELECT region, product, sum(qty) FROM sales GROUP BY GROUPING SETS "
      "((region), (product)) ORDER BY 1, 2", "NULL|a|4;NULL|b|2;east|NULL|3;west|NULL|3");
    /* Casts of aggregates to integers (pyspark: F.sum(c).cast("int")):
     * DuckDB cannot pick a typed macro overload for an aggregate. */
    QT("SELECT CAST(sum(qty) AS INT), CAST(count(*) AS SMALLINT), "
       "TRY_CAST(avg(qty) AS BIGINT), CAST(sum(price) * 2 AS BIGINT) FROM sales",
       "INTEGER|SMALLINT|BIGINT|BIGINT");
    Q("SELECT CAST(avg(qty) AS INT), CAST(-avg(qty) AS INT) FROM sales "
      "WHERE region = 'east'", "1|-1");
    Q("SELECT CAST(row_number() OVER (ORDER BY product) AS TINYINT) AS r "
      "FROM sales WHERE region = 'east' ORDER BY r", "1;2");
    Q("SELECT count(*) FILTER (WHERE qty > 1) FROM sales", "2");
    Q("SELECT sum(qty) FILTER (WHERE region = 'west') FROM sales", "3");
    Q("SELECT count_if(qty > 1) FROM sales", "2");
    Q("SELECT collect_list(qty) FROM sales WHERE region = 'west'", "[3]");
    Q("SELECT collect_list(qty) FROM sales WHERE region = 'none'", "[]");
    Q("SELECT size(collect_set(product)) FROM sales", "2");
    Q("SELECT sort_array(collect_set(region)) FROM sales", "[east, west]");
    Q("SELECT max_by(product, qty), min_by(product, qty) FROM sales", "a|a");
    Q("SELECT first(qty), last(qty) FROM (SELECT qty FROM sales WHERE region = 'west' "
      "ORDER BY qty NULLS FIRST)", "NULL|3");
    Q("SELECT first(qty, true) FROM (SELECT qty FROM sales WHERE region = 'west' "
      "ORDER BY qty NULLS FIRST)", "3");
    Q("SELECT first(qty) IGNORE NULLS FROM (SELECT qty FROM sales WHERE region = "
      "'west' ORDER BY qty NULLS FIRST)", "3");
    Q("SELECT stddev(x), variance(x) FROM nums", "1.5811388300841898|2.5");
    Q("SELECT stddev_pop(x), var_pop(x) FROM nums", "1.4142135623730951|2.0");
    Q("SELECT percentile_approx(x, 0.5), median(x), percentile(x, 0.5) FROM nums",
      "3|3.0|3.0");
    Q("SELECT approx_count_distinct(region) FROM sales", "2");
    Q("SELECT bool_and(x > 0), bool_or(x > 4), every(x > 1) FROM nums",
      "true|true|false");
    Q("SELECT count(DISTINCT region, product) FROM sales", "3");
    Q("SELECT count(qty, price) FROM sales", "3");
    Q("SELECT sum(DISTINCT price) FROM sales", "6.75");
    Q("SELECT any_value(region) FROM sales WHERE region = 'east'", "east");
    QN("SELECT mean(x) FROM nums", "mean(x)", "3.0");
    Q("SELECT region, array_agg(product) FROM sales WHERE qty IS NOT NULL "
      "GROUP BY region ORDER BY 1", "east|[a, b];west|[a]");
}

TEST(test_sql_translate__windows)
{
    Q("SELECT x, row_number() OVER (ORDER BY x) FROM nums WHERE x IS NOT NULL "
      "ORDER BY x LIMIT 2", "1|1;2|2");
    Q("SELECT product, rank() OVER (PARTITION BY region ORDER BY qty DESC) r "
      "FROM sales WHERE region = 'east' ORDER BY r", "b|1;a|2");
    Q("SELECT qty, dense_rank() OVER (ORDER BY price) FROM sales WHERE qty IS NOT "
      "NULL ORDER BY qty", "1|2;2|1;3|2");
    Q("SELECT x, sum(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) "
      "FROM nums WHERE x IS NOT NULL ORDER BY x", "1|1;2|3;3|5;4|7;5|9");
    Q("SELECT x, sum(x) OVER (ORDER BY x) FROM nums WHERE x < 4 ORDER BY x",
      "1|1;2|3;3|6");
    Q("SELECT x, lag(x) OVER (ORDER BY x), lead(x, 2, 0) OVER (ORDER BY x) FROM nums "
      "WHERE x IS NOT NULL ORDER BY x",
      "1|NULL|3;2|1|4;3|2|5;4|3|0;5|4|0");
    Q("SELECT x, first_value(x) OVER w, last_value(x) OVER w FROM nums WHERE x IS "
      "NOT NULL WINDOW w AS (ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND "
      "UNBOUNDED FOLLOWING) ORDER BY x LIMIT 1", "1|1|5");
    Q("SELECT x, ntile(2) OVER (ORDER BY x) FROM nums WHERE x IS NOT NULL "
      "ORDER BY x", "1|1;2|1;3|1;4|2;5|2");
    Q("SELECT x, count(*) OVER (PARTITION BY x % 2) FROM nums WHERE x IS NOT NULL "
      "ORDER BY x", "1|3;2|2;3|3;4|2;5|3");
    Q("SELECT x FROM nums WHERE x IS NOT NULL QUALIFY row_number() OVER (ORDER BY x "
      "DESC) = 1", "5");
    Q("SELECT region, collect_list(qty) OVER (PARTITION BY region ORDER BY qty) "
      "FROM sales WHERE region = 'west' ORDER BY 2",
      "west|[]" ";" "west|[3]");
    Q("SELECT x, percent_rank() OVER (ORDER BY x), cume_dist() OVER (ORDER BY x) "
      "FROM nums WHERE x <= 2 ORDER BY x", "1|0.0|0.5;2|1.0|1.0");
}

TEST(test_sql_translate__operators)
{
    QN("SELECT 7 / 2, 7 div 2, -7 div 2, 7 % 3, -7 % 3", NULL, "3.5|3|-3|1|-1");
    Q("SELECT 1 == 1, 1 != 2, 1 <> 1, NULL <=> NULL, 1 <=> NULL", "true|true|false|true|false");
    Q("SELECT 'a' || 'b', 'a' || NULL", "ab|NULL");
    Q("SELECT 5 & 3, 5 | 3, 5 ^ 3, ~5", "1|7|6|-6");
    Q("SELECT !true, NOT false, true AND NULL, false AND NULL, true OR NULL",
      "false|true|NULL|false|true");
    Q("SELECT 2 + 3 * 4, (2 + 3) * 4, -2 * 3, 10 - 2 - 3", "14|20|-6|5");
    Q("SELECT 1 < 2 AND 2 < 3 OR false", "true");
    Q("SELECT NOT 1 = 2", "true");
    Q("SELECT NULL IS NULL, 1 IS NOT NULL, true IS TRUE, NULL IS NOT FALSE",
      "true|true|true|true");
    Q("SELECT 1 IS DISTINCT FROM NULL, NULL IS NOT DISTINCT FROM NULL", "true|true");
    Q("SELECT 'abc' LIKE 'a%', 'abc' LIKE 'a_c', 'a_c' LIKE 'a\\\\_c', 'abc' LIKE 'a\\\\_c'",
      "true|true|true|false");
    Q("SELECT 'ABC' ILIKE 'a%', 'abc' NOT LIKE 'b%'", "true|true");
    Q("SELECT 'a%c' LIKE 'a!%c' ESCAPE '!'", "true");
    Q("SELECT 'abc' RLIKE 'b', 'abc' REGEXP '^b', 'abc' NOT RLIKE 'z'",
      "true|false|true");
    Q("SELECT 'abc' LIKE ANY ('x%', 'a%'), 'abc' LIKE ALL ('a%', '%c')", "true|true");
    Q("SELECT CASE WHEN 1 > 2 THEN 'a' WHEN 2 > 1 THEN 'b' ELSE 'c' END", "b");
    Q("SELECT CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' END", "two");
    Q("SELECT CASE WHEN false THEN 1 END", "NULL");
    Q("SELECT 1L, 2S, 3Y, 1.5D, 2.5F, 1e3, 1.50BD", "1|2|3|1.5|2.5|1000.0|1.50");
    QT("SELECT 1, 1L, 2S, 3Y, 1.5, 1.5D, 2147483648, 1.5F, 'a', true",
       "INTEGER|BIGINT|SMALLINT|TINYINT|DECIMAL(2,1)|DOUBLE|BIGINT|FLOAT|VARCHAR|BOOLEAN");
    Q("SELECT 'it''s', \"dq\", 'a' 'b', 'tab\\there'", "it's|dq|ab|tab\there");
    Q("SELECT '\\u00e9', X'4142'", "\xc3\xa9|AB");
    Q("SELECT DATE '2024-03-01', TIMESTAMP '2024-03-01 10:00:00'",
      "2024-03-01|2024-03-01 10:00:00");
    Q("SELECT TIMESTAMP '2024-03-01 10:00:00+02:00'", "2024-03-01 08:00:00");
    /* CAST of strings: the fast path (no offset) and the offset forms. */
    Q("SELECT CAST('2024-03-01T10:00:00' AS TIMESTAMP), "
      "CAST('2024-03-01 10:00:00+02:00' AS TIMESTAMP), "
      "CAST('2024-03-01 10:00:00.5-0730' AS TIMESTAMP), "
      "CAST('2024-03-01 10:00:00Z' AS TIMESTAMP), CAST('2024-03-01' AS TIMESTAMP), "
      "CAST(' 2024-03-01 10:00:00 ' AS TIMESTAMP), "
      "try_cast('2024-03-01 10:00:00+02' AS TIMESTAMP), try_cast('x' AS TIMESTAMP)",
      "2024-03-01 10:00:00|2024-03-01 08:00:00|2024-03-01 17:30:00.5|"
      "2024-03-01 10:00:00|2024-03-01 00:00:00|2024-03-01 10:00:00|"
      "2024-03-01 08:00:00|NULL");
    Q("SELECT DATE '2024-03-01' + INTERVAL 1 DAY", "2024-03-02");
    Q("SELECT TIMESTAMP '2024-03-01 10:00:00' + INTERVAL '2' HOUR",
      "2024-03-01 12:00:00");
    Q("SELECT TIMESTAMP '2024-03-01 10:00:00' + INTERVAL 1 HOUR 30 MINUTES",
      "2024-03-01 11:30:00");
    Q("SELECT TIMESTAMP '2024-03-01 10:00:00' - INTERVAL '1 day 2 hours'",
      "2024-02-29 08:00:00");
    Q("SELECT TIMESTAMP '2024-03-01 10:00:00' + INTERVAL '1-2' YEAR TO MONTH",
      "2025-05-01 10:00:00");
    Q("SELECT TIMESTAMP '2024-03-01 10:00:00' + INTERVAL '1 02:03:04' DAY TO SECOND",
      "2024-03-02 12:03:04");
    Q("SELECT CAST(1.9 AS INT), CAST(-1.9 AS INT), CAST(2.5D AS BIGINT), CAST('12' AS INT)",
      "1|-1|2|12");
    Q("SELECT CAST(TIMESTAMP '1970-01-01 00:01:40' AS LONG)", "100");
    Q("SELECT CAST('2024-01-02' AS DATE), CAST('1.5' AS DOUBLE), CAST(1 AS BOOLEAN)",
      "2024-01-02|1.5|true");
    Q("SELECT TRY_CAST('x' AS INT), '12'::INT, CAST(3.14159 AS DECIMAL(5,2))",
      "NULL|12|3.14");
    Q("SELECT CAST(array(1, 2) AS ARRAY<STRING>)", "[1, 2]");
    Q("SELECT s.a, s.b, m['k'], tags[0], tags[1], get(tags, 5) FROM t WHERE id = 1",
      "1|x|1|a|b|NULL");
    QRUNERR("SELECT tags[5] FROM t WHERE id = 1", "INVALID_ARRAY_INDEX");
    QRUNERR("SELECT element_at(tags, 5) FROM t WHERE id = 1",
            "INVALID_ARRAY_INDEX_IN_ELEMENT_AT");
    QN("SELECT s.a FROM t WHERE id = 1", "a", "1");
    Q("SELECT named_struct('x', 1, 'y', 'z').y", "z");
    Q("SELECT array(10, 20, 30)[1], map('a', 1, 'b', 2)['b'], map(1, 'one')[1]",
      "20|2|one");
    Q("SELECT (1, 2) IN ((1, 2), (3, 4))", "true");
    Q("SELECT EXTRACT(YEAR FROM ts), EXTRACT(MONTH FROM ts), EXTRACT(DAY FROM d), "
      "EXTRACT(DAYOFWEEK FROM d), EXTRACT(HOUR FROM ts) FROM t WHERE id = 1",
      "2024|1|15|2|10");
    Q("SELECT EXTRACT(SECOND FROM TIMESTAMP '2024-01-01 00:00:12.5')", "12.500000");
    Q("SELECT trim('  a  '), trim(BOTH 'x' FROM 'xxaxx'), trim(LEADING 'x' FROM 'xxa'), "
      "trim(TRAILING FROM 'a  ')", "a|a|a|a");
    Q("SELECT position('b' IN 'abc'), position('z' IN 'abc')", "2|0");
    Q("SELECT substring('hello' FROM 2 FOR 3), substring('hello' FROM 3)", "ell|llo");
}

TEST(test_sql_translate__string_functions)
{
    Q("SELECT upper('aB'), lower('aB'), ucase('x'), lcase('X')", "AB|ab|X|x");
    Q("SELECT length('héllo'), char_length('ab'), octet_length('é')", "5|2|2");
    Q("SELECT substr('hello', 2), substr('hello', 2, 2), substring('hello', 0, 2), "
      "substr('hello', -3, 2), substr('hello', -10, 3), substr('hello', 3, 0)",
      "ello|el|he|ll||");
    Q("SELECT substr(NULL, 1, 2), substr('abc', NULL)", "NULL|NULL");
    Q("SELECT concat('a', 'b', 'c'), concat('a', NULL), concat_ws('-', 'a', NULL, 'b')",
      "abc|NULL|a-b");
    Q("SELECT instr('hello', 'l'), locate('l', 'hello'), locate('l', 'hello', 4), "
      "locate('z', 'hello')", "3|3|4|0");
    Q("SELECT lpad('hi', 5, '*'), rpad('hi', 5, '*'), lpad('hello', 2), rpad('a', 3)",
      "***hi|hi***|he|a  ");
    Q("SELECT split('a,b,,c', ','), split('a1b22c', '[0-9]+')",
      "[a, b, '', c]|[a, b, c]");
    Q("SELECT split_part('a-b-c', '-', 2)", "b");
    Q("SELECT regexp_extract('foo123bar', '([a-z]+)([0-9]+)', 2), "
      "regexp_extract('abc', '(x)', 1), regexp_extract('ab12', '[0-9]+', 0)",
      "123||12");
    Q("SELECT regexp_extract_all('a1b22', '([0-9]+)', 1)", "[1, 22]");
    /* Java regex syntax: what RE2 can say the same way is rewritten
     * (possessive quantifiers with nothing to backtrack into, \\Q..\\E,
     * named groups), the rest refused at translation with the construct */
    Q("SELECT regexp_extract('a   b', 'a[ ]*+b', 0), regexp_extract('ab12', "
      "'[a-z]++[0-9]', 0), 'x1' RLIKE '^[a-z]?+\\\\d{1,2}+$', "
      "regexp_extract('x.y', '\\\\Q.\\\\E', 0), "
      "regexp_extract('ab', '(?<first>a)b', 1), split('a1b22c', '\\\\d++')",
      "a   b|ab1|true|.|a|[a, b, c]");
    QERR("SELECT regexp_extract('aaa', 'a*+a', 0)", "possessive quantifier");
    QERR("SELECT regexp_extract(' c', '[ ]*+b*c', 0)", "possessive quantifier");
    QERR("SELECT regexp_replace('foobar', '(?<=foo)bar', 'X')", "look-behind");
    QERR("SELECT 'ab' RLIKE 'a(?=b)'", "look-ahead");
    QERR("SELECT regexp_extract('abc', '(?>a)bc', 0)", "atomic group");
    QERR("SELECT 'aa' RLIKE '(a)\\\\1'", "backreference");
    QERR("SELECT regexp_like('a', '(?x) a')", "inline flag x");
    QERR("SELECT regexp_count('a', '\\\\h')", "escape \\h");
    Q("SELECT regexp_replace('a1b22', '[0-9]+', '#'), "
      "regexp_replace('john smith', '(\\\\w+) (\\\\w+)', '$2 $1')",
      "a#b#|smith john");
    Q("SELECT rlike('abc', 'b+'), regexp_like('abc', '^a')", "true|true");
    Q("SELECT initcap('hello wORLD'), reverse('abc'), repeat('ab', 3)",
      "Hello World|cba|ababab");
    Q("SELECT trim('  x '), ltrim('  x '), rtrim('  x '), btrim('xxaxx', 'x')",
      "x|x |  x|a");
    Q("SELECT replace('aXbX', 'X', '-'), replace('aXbX', 'X'), translate('abc', 'ab', 'xy')",
      "a-b-|ab|xyc");
    Q("SELECT left('hello', 2), right('hello', 2), space(2) || '|'", "he|lo|  |");
    Q("SELECT md5('a'), sha1('a')",
      "0cc175b9c0f1b6a831c399e269772661|86f7e437faa5a7fce15d1ddcb9eaeaea377667b8");
    Q("SELECT sha2('a', 256)",
      "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb");
    Q("SELECT base64('hi'), CAST(unbase64('aGk=') AS STRING), hex(255), ascii('A'), chr(66)",
      "aGk=|hi|FF|65|B");
    Q("SELECT substring_index('a.b.c', '.', 2), substring_index('a.b.c', '.', -1)",
      "a.b|c");
    Q("SELECT startswith('abc', 'ab'), endswith('abc', 'bc'), contains('abc', 'z')",
      "true|true|false");
    Q("SELECT format_string('%s-%d', 'a', 5), printf('%.2f', 1.005D)", "a-5|1.00");
    Q("SELECT levenshtein('kitten', 'sitting')", "3");
    QN("SELECT upper(name) FROM t WHERE id = 1", "upper(name)", "ALICE");
}

TEST(test_sql_translate__math_functions)
{
    Q("SELECT abs(-2), round(2.5), round(-2.5), round(1.255, 2), bround(2.5), bround(3.5)",
      "2|3|-3|1.26|2|4");
    Q("SELECT round(2.5D), round(2.675D, 2)", "3.0|2.68");
    Q("SELECT floor(1.7D), ceil(1.2D), floor(-1.5D), ceiling(1.0D)", "1|2|-2|1");
    QT("SELECT floor(1.7D), ceil(1.2D)", "BIGINT|BIGINT");
    Q("SELECT pow(2, 10), power(2, 0.5) > 1.41, sqrt(16), sqrt(-1)", "1024.0|true|4.0|nan");
    Q("SELECT ln(1), log(10, 100), log10(1000), log2(8), ln(0), log(0)",
      "0.0|2.0|3.0|3.0|NULL|NULL");
    Q("SELECT exp(0), mod(7, 3), pmod(-7, 3), pmod(7, -3), 7 % 3", "1.0|1|2|1|1");
    Q("SELECT sign(-3), signum(2.5), greatest(1, NULL, 3), least(2, NULL, 1)",
      "-1.0|1.0|3|1");
    Q("SELECT coalesce(NULL, 2, 3), nvl(NULL, 'x'), ifnull(1, 2), nullif(1, 1), "
      "nvl2(NULL, 'a', 'b'), nvl2(1, 'a', 'b')", "2|x|1|NULL|b|a");
    Q("SELECT if(1 > 2, 'y', 'n'), iff(true, 1, 2), if(NULL, 1, 2)", "n|1|2");
    Q("SELECT isnull(NULL), isnotnull(NULL), equal_null(NULL, NULL), nanvl(CAST('NaN' AS DOUBLE), 0D)",
      "true|false|true|0.0");
    Q("SELECT factorial(5), factorial(21), degrees(pi()) = 180", "120|NULL|true");
    Q("SELECT decode(2, 1, 'one', 2, 'two', 'other'), decode(9, 1, 'one', 'other')",
      "two|other");
    QN("SELECT if(x > 2, 1, 0) FROM nums WHERE x = 3", "(IF((x > 2), 1, 0))", "1");
}

TEST(test_sql_translate__collection_functions)
{
    Q("SELECT size(array(1, 2, 3)), size(tags), cardinality(m) FROM t WHERE id = 2",
      "3|0|2");
    Q("SELECT size(tags), size(m), size(array(named_struct('a', 1))) FROM t WHERE id = 3",
      "NULL|NULL|1");
    Q("SELECT array_contains(array(1, 2), 2), array_contains(array(1, 2), 3), "
      "array_contains(array(1, NULL), 3)", "true|false|NULL");
    Q("SELECT array_distinct(array(1, 2, 1, NULL, NULL, 3))", "[1, 2, NULL, 3]");
    Q("SELECT array_union(array(1, 2), array(2, 3)), array_intersect(array(1, 2, 2), "
      "array(2, 3)), array_except(array(1, 2, 3), array(2))",
      "[1, 2, 3]|[2]|[1, 3]");
    Q("SELECT array_join(array('a', NULL, 'b'), ','), array_join(array('a', NULL), ',', '?')",
      "a,b|a,?");
    Q("SELECT array_position(array(3, 4), 4), array_position(array(3), 9)", "2|0");
    Q("SELECT array_remove(array(1, 2, 1, NULL), 1), array_max(array(1, 5, NULL)), "
      "array_min(array(4, 2))", "[2, NULL]|5|2");
    Q("SELECT slice(array(1, 2, 3, 4), 2, 2), slice(array(1, 2, 3, 4), -2, 2)",
      "[2, 3]|[3, 4]");
    Q("SELECT sort_array(array(3, NULL, 1)), sort_array(array(3, NULL, 1), false), "
      "array_sort(array(3, NULL, 1))", "[NULL, 1, 3]|[3, 1, NULL]|[1, 3, NULL]");
    Q("SELECT sequence(1, 4), sequence(5, 1), sequence(0, 10, 5)",
      "[1, 2, 3, 4]|[5, 4, 3, 2, 1]|[0, 5, 10]");
    Q("SELECT sequence(DATE '2024-01-30', DATE '2024-02-01')",
      "[2024-01-30, 2024-01-31, 2024-02-01]");
    Q("SELECT flatten(array(array(1), array(2, 3))), array_repeat('x', 2)",
      "[1, 2, 3]|[x, x]");
    Q("SELECT element_at(array(1, 2, 3), 1), element_at(array(1, 2, 3), -1), "
      "element_at(map('a', 1), 'a')", "1|3|1");
    Q("SELECT transform(array(1, 2), x -> x * 10), transform(array(5, 6), (x, i) -> i)",
      "[10, 20]|[0, 1]");
    Q("SELECT filter(array(1, 2, 3, 4), x -> x % 2 = 0), filter(array(7, 8), (x, i) -> i = 0)",
      "[2, 4]|[7]");
    Q("SELECT exists(array(1, 2), x -> x > 1), exists(array(1, NULL), x -> x > 1), "
      "forall(array(2, 4), x -> x % 2 = 0)", "true|NULL|true");
    Q("SELECT aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x), "
      "aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10)", "6|60");
    Q("SELECT map_keys(map('a', 1, 'b', 2)), map_values(map('a', 1, 'b', 2))",
      "[a, b]|[1, 2]");
    Q("SELECT map_from_arrays(array('x'), array(1))['x'], str_to_map('a:1,b:2')['b']",
      "1|2");
    Q("SELECT map_contains_key(map('a', 1), 'a'), size(map())", "true|0");
    Q("SELECT named_struct('a', 1, 'b', 'x'), struct(id, name).name FROM t WHERE id = 1",
      "{'a': 1, 'b': x}|alice");
    Q("SELECT arrays_overlap(array(1, 2), array(2, 3))", "true");
}

TEST(test_sql_translate__datetime_functions)
{
    Q("SELECT year(ts), month(ts), day(ts), dayofmonth(d), hour(ts), minute(ts), "
      "second(ts), quarter(d) FROM t WHERE id = 2", "2024|2|29|29|23|59|59|1");
    Q("SELECT dayofweek(DATE '2024-01-14'), weekday(DATE '2024-01-14'), "
      "dayofyear(DATE '2024-02-01'), weekofyear(DATE '2024-01-01')", "1|6|32|1");
    Q("SELECT year('2024-05-06'), month('2024-05-06 10:00:00')", "2024|5");
    Q("SELECT to_date('2024-01-02'), to_date('02/01/2024', 'dd/MM/yyyy'), "
      "to_date('2024-01-02 10:11:12')", "2024-01-02|2024-01-02|2024-01-02");
    Q("SELECT to_timestamp('2024-01-02 03:04:05'), "
      "to_timestamp('02/01/2024 03:04', 'dd/MM/yyyy HH:mm')",
      "2024-01-02 03:04:05|2024-01-02 03:04:00");
    Q("SELECT date_format(TIMESTAMP '2024-01-05 07:03:09.123', 'yyyy-MM-dd HH:mm:ss.SSS'), "
      "date_format(DATE '2024-01-05', 'dd/MM/yy EEE MMM'), "
      "date_format(TIMESTAMP '2024-01-05 17:00:00', 'h a, EEEE MMMM d')",
      "2024-01-05 07:03:09.123|05/01/24 Fri Jan|5 PM, Friday January 5");
    Q("SELECT date_format(TIMESTAMP '2024-01-05 07:03:09', \"yyyy-MM-dd'T'HH:mm:ss\")",
      "2024-01-05T07:03:09");
    Q("SELECT from_unixtime(0), from_unixtime(86400, 'yyyy-MM-dd'), "
      "unix_timestamp('1970-01-02 00:00:00'), unix_timestamp('02/01/1970', 'dd/MM/yyyy'), "
      "unix_timestamp(TIMESTAMP '1970-01-01 00:01:00')",
      "1970-01-01 00:00:00|1970-01-02|86400|86400|60");
    /* The pattern applies to strings only (pyspark always sends one). */
    Q("SELECT unix_timestamp(TIMESTAMP '1970-01-01 00:01:00', 'yyyy-MM-dd HH:mm:ss'), "
      "to_unix_timestamp(DATE '1970-01-02', 'dd/MM/yyyy')", "60|86400");
    Q("SELECT date_add(DATE '2024-02-28', 2), date_sub(DATE '2024-03-01', 1), "
      "datediff(DATE '2024-03-01', DATE '2024-02-01'), add_months(DATE '2024-01-31', 1)",
      "2024-03-01|2024-02-29|29|2024-02-29");
    Q("SELECT date_add('2024-01-01', 1)", "2024-01-02");
    Q("SELECT date_trunc('MONTH', TIMESTAMP '2024-02-29 23:59:59'), "
      "date_trunc('hour', TIMESTAMP '2024-02-29 23:59:59'), trunc(DATE '2024-02-29', 'YEAR'), "
      "trunc(DATE '2024-02-29', 'MM')",
      "2024-02-01 00:00:00|2024-02-29 23:00:00|2024-01-01|2024-02-01");
    Q("SELECT last_day(DATE '2024-02-10'), make_date(2024, 2, 29)", "2024-02-29|2024-02-29");
    Q("SELECT timestamp_seconds(60), timestamp_millis(1000), unix_seconds(TIMESTAMP "
      "'1970-01-01 00:00:10'), unix_millis(TIMESTAMP '1970-01-01 00:00:01')",
      "1970-01-01 00:01:00|1970-01-01 00:00:01|10|1000");
    Q("SELECT timestampadd(HOUR, 2, TIMESTAMP '2024-01-01 00:00:00'), "
      "timestampdiff(MONTH, DATE '2024-01-31', DATE '2024-02-28'), "
      "datediff(DAY, DATE '2024-01-01', DATE '2024-01-03')",
      "2024-01-01 02:00:00|0|2");
    Q("SELECT from_utc_timestamp(TIMESTAMP '2024-01-01 12:00:00', 'America/New_York'), "
      "to_utc_timestamp(TIMESTAMP '2024-01-01 07:00:00', 'America/New_York')",
      "2024-01-01 07:00:00|2024-01-01 12:00:00");
    Q("SELECT current_date() = current_date, current_timestamp() IS NOT NULL, "
      "now() IS NOT NULL", "true|true|true");
    Q("SELECT window.start, window.end, count(*) FROM ev GROUP BY window(ts, '5 seconds') "
      "ORDER BY 1", "2024-01-01 00:00:00|2024-01-01 00:00:05|1;"
                     "2024-01-01 00:00:05|2024-01-01 00:00:10|2");
    Q("SELECT CAST(window.start AS LONG) AS ws, sum(v) FROM ev "
      "GROUP BY window(ts, '5 seconds') ORDER BY 1", "1704067200|1;1704067205|5");
    /* Sliding windows: a row in every window holding it (start <= ts <
     * end), by the start aligned to the slide. */
    Q("SELECT window.start, window.end, count(*), sum(v) FROM ev "
      "GROUP BY window(ts, '10 seconds', '5 seconds') ORDER BY 1",
      "2023-12-31 23:59:55|2024-01-01 00:00:05|1|1;"
      "2024-01-01 00:00:00|2024-01-01 00:00:10|3|6;"
      "2024-01-01 00:00:05|2024-01-01 00:00:15|2|5");
    Q("SELECT window(e.ts, '4 seconds', '2 seconds').start AS s, count(*) AS n "
      "FROM ev AS e WHERE e.v > 1 GROUP BY window(e.ts, '4 seconds', '2 seconds') "
      "ORDER BY 1",
      "2024-01-01 00:00:04|1;2024-01-01 00:00:06|2;2024-01-01 00:00:08|1");
}

TEST(test_sql_translate__json_functions)
{
    Q("SELECT get_json_object(s, '$.a'), get_json_object(s, '$.b.c'), "
      "get_json_object(s, '$.arr[1]') FROM j ORDER BY s",
      "NULL|NULL|NULL;1|x|2");
    Q("SELECT from_json(s, 'a INT, b STRUCT<c: STRING>').b.c FROM j ORDER BY s",
      "NULL;x");
    Q("SELECT from_json('{\"a\": [1, 2]}', 'a ARRAY<INT>').a[1]", "2");
    Q("SELECT to_json(named_struct('a', 1, 'b', 'x'))", "{\"a\":1,\"b\":\"x\"}");
    Q("SELECT json_array_length('[1, 2, 3]'), json_array_length('{}')", "3|NULL");
}

TEST(test_sql_translate__generators)
{
    QN("SELECT id, explode(tags) FROM t ORDER BY id, col", "id,col", "1|a;1|b");
    QN("SELECT id, explode(tags) AS tag FROM t WHERE id = 1 ORDER BY tag", "id,tag",
       "1|a;1|b");
    QN("SELECT id, posexplode(tags) FROM t WHERE id = 1 ORDER BY pos", "id,pos,col",
       "1|0|a;1|1|b");
    Q("SELECT id, explode_outer(tags) FROM t WHERE id IN (1, 2) ORDER BY id, 2",
      "1|a;1|b;2|NULL");
    QN("SELECT explode(map('a', 1, 'b', 2)) ORDER BY key", "key,value", "a|1;b|2");
    QN("SELECT explode(m) AS (k, v) FROM t WHERE id = 2 ORDER BY k", "k,v", "j|3;k|2");
    QN("SELECT t.id, tag FROM t LATERAL VIEW explode(tags) tt AS tag ORDER BY id, tag",
       "id,tag", "1|a;1|b");
    Q("SELECT t.id, tag FROM t LATERAL VIEW OUTER explode(tags) tt AS tag "
      "WHERE t.id < 3 ORDER BY id, tag", "1|a;1|b;2|NULL");
    Q("SELECT t.id, p, v FROM t LATERAL VIEW posexplode(tags) x AS p, v ORDER BY 1, 2",
      "1|0|a;1|1|b");
    QN("SELECT * FROM explode(array(1, 2))", "col", "1;2");
    Q("SELECT a, b FROM (SELECT inline(array(named_struct('a', 1, 'b', 'x'), "
      "named_struct('a', 2, 'b', 'y')))) ORDER BY a", "1|x;2|y");
    Q("SELECT * FROM range(3)", "0;1;2");
    QN("SELECT id FROM range(1, 7, 2)", "id", "1;3;5");
    Q("SELECT count(*) FROM RANGE(5)", "5");
}


/* Differences found by the Spark differential tier (tests/spark/). */
TEST(test_sql_translate__spark_differential)
{
    /* ANSI errors instead of values */
    QRUNERR("SELECT 1 / 0", "DIVIDE_BY_ZERO");
    QRUNERR("SELECT x / y FROM VALUES (1, 0) AS t(x, y)", "DIVIDE_BY_ZERO");
    QRUNERR("SELECT 7 div 0", "DIVIDE_BY_ZERO");
    QRUNERR("SELECT 5 % 0", "REMAINDER_BY_ZERO");
    QRUNERR("SELECT mod(5, 0)", "REMAINDER_BY_ZERO");
    QRUNERR("SELECT pmod(5, 0)", "REMAINDER_BY_ZERO");
    QRUNERR("SELECT -2147483648 - 1", "Overflow");
    QRUNERR("SELECT abs(-2147483648)", "Overflow");
    QRUNERR("SELECT CAST('1.5' AS INT)", "CAST_INVALID_INPUT");
    QRUNERR("SELECT CAST('' AS BIGINT)", "CAST_INVALID_INPUT");
    QRUNERR("SELECT '1.5' * 2", "CAST_INVALID_INPUT");
    QRUNERR("SELECT regexp_extract('abc', 'b')", "REGEX_GROUP_INDEX");
    QRUNERR("SELECT elt(3, 'a', 'b')", "INVALID_ARRAY_INDEX");
    Q("SELECT x / y FROM VALUES (1, NULL) AS t(x, y)", "NULL");
    Q("SELECT try_divide(1, 0), try_mod(5, 0), try_add(2147483647, 1)", "NULL|NULL|NULL");
    QT("SELECT -2147483648, -9223372036854775808", "INTEGER|BIGINT");
    Q("SELECT TRY_CAST('1.5' AS INT), CAST(' 42 ' AS INT), '5' + 1", "NULL|42|6");
    Q("SELECT CAST(CAST('12345678901234567.89' AS DECIMAL(20,2)) AS BIGINT)",
      "12345678901234567");
    /* casts to TIMESTAMP and STRING */
    Q("SELECT CAST('2024-03-05 10:11:12+01:00' AS TIMESTAMP), "
      "CAST(1700000000 AS TIMESTAMP)",
      "2024-03-05 09:11:12|2023-11-14 22:13:20");
    Q("SELECT CAST(1e20D AS STRING), CAST(0.00001D AS STRING), "
      "CAST(12345678.9D AS STRING), CAST(100.0D AS STRING), CAST(1.50 AS STRING)",
      "1.0E20|1.0E-5|1.23456789E7|100.0|1.50");
    QRUNERR("SELECT CAST(map('a', 1) AS STRING)", "not supported");
    /* dates */
    QT("SELECT DATE '2024-03-01' - INTERVAL 1 DAY, DATE '2024-03-01' + INTERVAL 1 MONTH",
       "DATE|DATE");
    Q("SELECT next_day(DATE '2024-03-05', 'Mon'), date_part('month', DATE '2024-03-05')",
      "2024-03-11|3");
    QT("SELECT year(DATE '2024-03-05'), extract(DOW FROM DATE '2024-03-05'), "
       "length('abc'), instr('ab', 'b')",
       "INTEGER|INTEGER|INTEGER|INTEGER");
    /* integer result types */
    QT("SELECT sum(x) OVER (), row_number() OVER (ORDER BY x) FROM VALUES (1), (2) "
       "AS t(x)",
       "BIGINT|INTEGER");
    QT("SELECT sum(x) FILTER (WHERE x > 0), sum(DISTINCT x) FROM VALUES (1), (2) AS t(x)",
       "BIGINT|BIGINT");
    Q("SELECT sum(x) FILTER (WHERE x > 1), sum(DISTINCT x) FROM VALUES (1.5), "
      "(2.25), (2.25) AS t(x)",
      "6.00|3.75");
    /* strings, JSON, maps, arrays */
    Q("SELECT left('abc', -1), right('abc', -1)", "|");
    Q("SELECT to_json(named_struct('a', 1, 'b', CAST(NULL AS STRING)))", "{\"a\":1}");
    Q("SELECT from_json('bad', 'a INT').a IS NULL, from_json('bad', 'a INT') IS NULL",
      "true|false");
    Q("SELECT map_filter(map('a', 1, 'b', 2), (k, v) -> v > 1)['b']", "2");
    Q("SELECT transform_values(map('a', 1), (k, v) -> v * 10)['a']", "10");
    Q("SELECT zip_with(array(1, 2), array(10, 20), (x, y) -> x + y)", "[11, 22]");
    Q("SELECT typeof(1), typeof(1.5), typeof(array('a'))", "int|decimal(2,1)|array<string>");
    /* generators and syntax added from the tier */
    QN("SELECT json_tuple('{\"a\": 1, \"b\": {\"c\": 2}}', 'a', 'b', 'z')",
       "c0,c1,c2", "1|{\"c\":2}|NULL");
    QN("SELECT json_tuple(j, 'a') AS (x) FROM VALUES ('bad') AS t(j)", "x", "NULL");
    QN("SELECT stack(2, 1, 'a', 2, 'b') AS (n, s)", "n,s", "1|a;2|b");
    QN("SELECT inline(array(struct(1, 'x'))) AS (n, s)", "n,s", "1|x");
    Q("SELECT k, v FROM VALUES (1) AS t(id) LATERAL VIEW stack(2, 'a', 1, 'b', 2) s "
      "AS k, v",
      "a|1;b|2");
    Q("SELECT overlay('Spark SQL' PLACING 'CORE' FROM 7 FOR 3), "
      "overlay('Spark SQL', '_', 6)",
      "Spark CORE|Spark_SQL");
    Q("SELECT struct(1 AS a, 'x' AS b).b", "x");
    /* struct(*): the columns a select list's star gives (the Kafka sink's
     * to_json(struct(*)) AS value) */
    Q("SELECT to_json(struct(*)) FROM VALUES (1, 'x') AS t(a, b)",
      "{\"a\":1,\"b\":\"x\"}");
    Q("SELECT to_json(struct(t.*, 2 AS c)) FROM VALUES (1, 'x') AS t(a, b)",
      "{\"a\":1,\"b\":\"x\",\"c\":2}");
    Q("SELECT to_json(struct(* EXCEPT (a))) FROM VALUES (1, 'x') AS t(a, b)",
      "{\"b\":\"x\"}");
    Q("SELECT to_json(struct(v.*)), to_json(struct(* EXCEPT (a))), to_json(struct(*, 2 AS z)) "
      "FROM VALUES (1, 'x') AS v(a, b)",
      "{\"a\":1,\"b\":\"x\"}|{\"b\":\"x\"}|{\"a\":1,\"b\":\"x\",\"z\":2}");
    /* CAST(binary AS STRING) reads the bytes as UTF-8 (a Kafka value). */
    Q("SELECT CAST(CAST('{\"k\": 1}' AS BINARY) AS STRING), CAST(X'C3A9' AS STRING), "
      "CAST(CAST(NULL AS BINARY) AS STRING), string(X'41')",
      "{\"k\": 1}|\u00e9|NULL|A");
    /* CAST(string AS BINARY) is its UTF-8 bytes (DuckDB's BLOB cast
     * refuses non-ASCII characters and reads \\xNN escapes). */
    Q("SELECT hex(CAST('\u00e9' AS BINARY)), hex(binary('\u20ac')), "
      "CAST(CAST('\u00fc' AS BINARY) AS STRING), CAST(NULL AS BINARY) IS NULL",
      "C3A9|E282AC|\u00fc|true");
    Q("SELECT hex(CAST(s AS BINARY)) FROM VALUES ('\u00e9a'), ('x\\\\x41') AS t(s) "
      "ORDER BY s",
      "785C783431;C3A961");
    Q("SELECT hex(CAST(X'00FF' AS BINARY)), hex(concat(unhex('00'), CAST('\u00e9' AS BINARY)))",
      "00FF|00C3A9");
    QT("SELECT CAST('a' AS BINARY), CAST(NULL AS BINARY), binary('b')", "BLOB|BLOB|BLOB");
    Q("SELECT months_between(TIMESTAMP '1997-02-28 10:30:00', "
      "TIMESTAMP '1996-10-30 00:00:00'), months_between(DATE '2024-03-31', "
      "DATE '2024-02-29')",
      "3.94959677|1.0");
    Q("SELECT date_format(TIMESTAMP '2024-03-05 07:08:09', 'HH:mm XXX|Z|xxx')",
      "07:08 Z|+0000|+00:00");
    Q("SELECT lpad('abc', 6, ''), rpad('abcdef', 2, ''), CAST(' true ' AS BOOLEAN)",
      "abc|ab|true");
    QT("SELECT pmod(-10, 3), position('b' IN 'abc'), posexplode(array('a'))",
       "INTEGER|INTEGER|INTEGER|VARCHAR");
    Q("SELECT concat_ws(',', array('x', 'y'), NULL, 'z'), elt(1, 'a'), "
      "format_number(1234567.891, 2)",
      "x,y,z|a|1,234,567.89");
    /* generated names (Spark 4) */
    QN("SELECT ID, x BETWEEN 1 AND 2, substr('abc', 2) FROM VALUES (1, 1) AS t(id, x)",
       "ID,between(x, 1, 2),substr(abc, 2, 2147483647)", "1|true|bc");
}

/* A resolver that refuses every name starting with "c": CTE references
 * must not reach it. */
static int refuse_c(void *payload, const weir_sql_relref *ref, weir_buf *out,
                    weir_error *err)
{
    (void)payload;
    const char *n = ref->name.parts[ref->name.n - 1];
    if (n[0] == 'c')
        return WEIR_ERR(err, WEIR_ERROR, NULL, "resolver asked for %s", n);
    weir__buf_put_sql_ident(out, n);
    return 0;
}

TEST(test_sql_translate__cte_not_resolved)
{
    static const char *const ok[] = {
        "WITH c AS (SELECT 1 AS x) SELECT a.x FROM c a, c b",
        "WITH c AS (SELECT 1 AS x), c2 AS (SELECT x FROM c) SELECT * FROM c2 JOIN c USING (x)",
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) "
        "SELECT * FROM c",
        "SELECT * FROM t WHERE id IN (WITH c AS (SELECT 1 AS id) SELECT id FROM c)",
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        weir_arena a = WEIR_ARENA_INIT;
        weir_sql_source src = { "q.sql", ok[i], strlen(ok[i]), NULL, 0, NULL, 0, false };
        weir_sql_query *q = NULL;
        weir_error err;
        memset(&err, 0, sizeof(err));
        weir_buf out = WEIR_BUF_INIT;
        weir_sql_resolver r = { .relation = refuse_c };
        int rc = weir__sql_parse_query(&q, &a, &src, 0, src.len, &err);
        if (!rc)
            rc = weir__sql_translate_query(&out, q, &r, &err);
        CHECK(rc == 0);
        if (rc)
            fprintf(stderr, "  %s: %s\n", ok[i], err.message);
        weir__buf_free(&out);
        weir__arena_free(&a);
    }
    /* outside its WITH, the name is a table again */
    {
        const char *sql = "SELECT * FROM (WITH c AS (SELECT 1) SELECT * FROM c) x, c";
        weir_arena a = WEIR_ARENA_INIT;
        weir_sql_source src = { "q.sql", sql, strlen(sql), NULL, 0, NULL, 0, false };
        weir_sql_query *q = NULL;
        weir_error err;
        memset(&err, 0, sizeof(err));
        weir_buf out = WEIR_BUF_INIT;
        weir_sql_resolver r = { .relation = refuse_c };
        int rc = weir__sql_parse_query(&q, &a, &src, 0, src.len, &err);
        CHECK(rc == 0);
        CHECK(weir__sql_translate_query(&out, q, &r, &err) != 0);
        weir__buf_free(&out);
        weir__arena_free(&a);
    }
}

/* A chain of 1,600 CTEs, each reading the one before it: DuckDB binds a
 * WITH list of that length in quadratic time and memory (gigabytes), so
 * the translator nests most of them as subqueries. */
TEST(test_sql_translate__cte_chain)
{
    enum { N = 1600 };
    weir_buf sql = WEIR_BUF_INIT, out = WEIR_BUF_INIT;
    weir__buf_puts(&sql, "WITH a1 AS (SELECT 1 AS x)");
    for (int i = 2; i <= N; i++)
        weir__buf_printf(&sql, ", a%d AS (SELECT x + 1 AS x FROM a%d)", i, i - 1);
    weir__buf_printf(&sql, " SELECT x FROM a%d", N);
    weir_error err;
    memset(&err, 0, sizeof(err));
    int rc = translate(weir__buf_cstr(&sql), &out, &err);
    CHECK(rc == 0);
    size_t withs = 0;
    for (const char *p = weir__buf_cstr(&out); (p = strstr(p, " AS (")); p++)
        withs++;
    CHECK(withs < N / 10); /* CTEs left in the WITH list */
    weir_buf rows = WEIR_BUF_INIT, names = WEIR_BUF_INIT;
    char msg[512] = "";
    CHECK(rc == 0 && run(weir__buf_cstr(&out), &rows, &names, msg, sizeof(msg)) == 0);
    CHECK(strcmp(weir__buf_cstr(&rows), "1600") == 0);
    if (msg[0])
        fprintf(stderr, "  %s\n", msg);
    weir__buf_free(&rows);
    weir__buf_free(&names);
    weir__buf_free(&sql);
    weir__buf_free(&out);
}

TEST(test_sql_translate__unsupported)
{
    QERR("SELECT no_such_function(1)", "no_such_function");
    QERR("SELECT date_format(ts, name) FROM t", "literal");
    QERR("SELECT date_format(ts, 'yyyy GGGGG') FROM t", "GGGGG");
    QERR("SELECT to_date('2024 1', 'yyyy Q')", "'Q'");
    QERR("SELECT explode(tags) + 1 FROM t", "explode");
    QERR("SELECT sha2('a', 512)", "sha2");
    QERR("SELECT row_number() FROM t", "OVER");
    QERR("SELECT upper(name) OVER (ORDER BY id) FROM t", "not an aggregate");
    QERR("SELECT * FROM t TABLESAMPLE (10 PERCENT)", "TABLESAMPLE");
    QERR("SELECT * FROM no_tvf(1)", "no_tvf");
    QERR("SELECT window(ts, '10 seconds', '5 seconds') FROM ev", "GROUP BY only");
    QERR("SELECT regexp_replace(name, 'a', name) FROM t", "literal");
    QERR("SELECT rand(42)", "rand");
}

/* Functions and types the full differential tier found different (issue
 * 22): each case gives Spark 4.1's answer. */
TEST(test_sql_translate__spark_round2)
{
    /* decimal rounding keeps Spark's DECIMAL types; bround is HALF_EVEN on
     * the exact decimal (2.45 is no DOUBLE tie) */
    QT("SELECT floor(3.7), ceil(-3.2), round(3.14159, 2), round(1234.5678, -2)",
       "DECIMAL(2,0)|DECIMAL(2,0)|DECIMAL(4,2)|DECIMAL(5,0)");
    Q("SELECT floor(-3.7), ceiling(3.2), round(-2.5), round(1234.5678, -2)",
      "-4|4|-3|1200");
    QT("SELECT bround(2.5), bround(2.25, 1), bround(CAST(12.345 AS DECIMAL(5,3)), 2)",
       "DECIMAL(2,0)|DECIMAL(3,1)|DECIMAL(5,2)");
    Q("SELECT bround(2.5), bround(3.5), bround(2.45, 1), bround(-2.5), "
      "bround(1245.0, -1)",
      "2|4|2.4|-2|1240");
    /* an INT literal keeps INT: no SMALLINT/TINYINT overflow */
    QT("SELECT CAST(5 AS SMALLINT) * 2, 2 * CAST(5 AS SMALLINT), CAST(5 AS TINYINT) * -2",
       "INTEGER|INTEGER|INTEGER");
    Q("SELECT CAST(100 AS TINYINT) + 100", "200");
    /* DATE - DATE is an INTERVAL DAY */
    Q("SELECT DATE '2024-03-02' - DATE '2024-03-01', d - d FROM t WHERE id = 1",
      "1 day|00:00:00");
    Q("SELECT quote('a\\\\b''c'), quote(NULL)", "'a\\b\\'c'|NULL");
    QT("SELECT quote(NULL)", "VARCHAR");
    Q("SELECT mask('AbCD123-@$#'), mask('AbCD123-@$#', 'a'), "
      "mask('AbCD123-@$#', NULL, NULL, NULL, '*')",
      "XxXXnnn-@$#|axaannn-@$#|AbCD123****");
    Q("SELECT luhn_check('79927398713'), luhn_check('1234'), luhn_check(''), "
      "luhn_check(' 79927398713'), luhn_check('0')",
      "true|false|false|false|true");
    Q("SELECT collate('a', 'utf8_binary')", "a");
    QERR("SELECT collate('a', 'UTF8_LCASE')", "UTF8_LCASE");
    Q("SELECT width_bucket(5.3, 0.2, 10.6, 5), width_bucket(-1, 0, 10, 5), "
      "width_bucket(10, 0, 10, 5), width_bucket(5, 10, 0, 5), "
      "width_bucket(5, 0, 10, 0), width_bucket(11, 10, 0, 5)",
      "3|0|6|3|NULL|0");
    Q("SELECT regexp_instr('Steven Jones', 'J.'), regexp_instr('abc', 'x'), "
      "regexp_instr('', ''), regexp_instr('aXbX', 'X', 0)",
      "8|0|1|2");
    QERR("SELECT regexp_instr('ab', '(b)', 1)", "group index");
    Q("SELECT regexp_replace('aaa', 'a', 'b', 2), regexp_replace('aaa', '^a', 'b', 2), "
      "regexp_replace('abc', 'b', 'x', 5)",
      "abb|aba|abc");
    Q("SELECT split('a,b,c', ',', 2), split('a,b,c', ',', 1), split('a,b,c,', ',', 5), "
      "split(',a', ',', 2)",
      "[a, 'b,c']|['a,b,c']|[a, b, c, '']|['', a]");
    Q("SELECT array_insert(array(1, 2, 3), 2, 9), array_insert(array(1, 2, 3), 5, 9), "
      "array_insert(array(1, 2, 3), -1, 9), array_insert(array(1, 2, 3), -5, 9)",
      "[1, 9, 2, 3]|[1, 2, 3, NULL, 9]|[1, 2, 3, 9]|[9, NULL, 1, 2, 3]");
    QRUNERR("SELECT array_insert(array(1), 0, 9)", "INVALID_INDEX_OF_ZERO");
    Q("SELECT arrays_zip(array(1, 2), array('a')), arrays_zip(tags, array(1)) FROM t "
      "WHERE id = 1",
      "[{'0': 1, '1': a}, {'0': 2, '1': NULL}]|"
      "[{'tags': a, '1': 1}, {'tags': b, '1': NULL}]");
    QERR("SELECT arrays_zip(tags, tags) FROM t", "same name");
    Q("SELECT shuffle(array(7)), shuffle(CAST(NULL AS ARRAY<INT>))", "[7]|NULL");
    Q("SELECT date_format(DATE '2024-03-05', 'Q'), date_format(ts, 'yyyy QQ QQQ QQQQ'), "
      "from_unixtime(86400 * 40, 'yyyy q') FROM t WHERE id = 2",
      "1|2024 01 Q1 1st quarter|1970 1");
    Q("SELECT conv('100', 2, 10), conv('-10', 10, 16), conv('12a', 10, 16), "
      "conv('-ff', 16, -10), conv('', 10, 16), conv(255, 10, 2), conv('-1', 10, 10)",
      "4|FFFFFFFFFFFFFFF6|C|-255|NULL|11111111|18446744073709551615");
    QRUNERR("SELECT conv('FFFFFFFFFFFFFFFFFF', 16, 10)", "ARITHMETIC_OVERFLOW");
    /* avg of a decimal and decimal quotients are exact (no DOUBLE) */
    Q("SELECT avg(x) FROM VALUES (CAST(12345678901234567.123 AS DECIMAL(20,3))), "
      "(CAST(0.001 AS DECIMAL(20,3))) AS v(x)",
      "6172839450617283.5620000");
    Q("SELECT avg(x), avg(x) FILTER (WHERE x > 0) FROM VALUES (CAST(-1.25 AS DECIMAL(3,2))), "
      "(CAST(0 AS DECIMAL(3,2))), (NULL) AS v(x)",
      "-0.625000|NULL");
    Q("SELECT CAST(12345678901234567890 AS DECIMAL(20,0)) / 7, 2.5 / -0.5",
      "1763668414462081127.142857|-5.000000");
    QRUNERR("SELECT 1.0 / 0", "DIVIDE_BY_ZERO");
    Q("SELECT listagg(name, ',') WITHIN GROUP (ORDER BY name DESC) FROM t",
      "bob,alice");
    /* zip_with binds its arrays once: nesting grows the text linearly, and
     * an inner call's names do not shadow the outer lambda's */
    Q("SELECT zip_with(array(1, 2), array(10, 20, 30), (x, y) -> x + y)",
      "[11, 22, NULL]");
    Q("SELECT zip_with(array(4, 6), array(array(1), array(2, 3)), (x, y) -> "
      "zip_with(y, array(x, x), (p, q) -> p * q + x))",
      "[[8, NULL], [18, 24]]");
    weir_buf sql = WEIR_BUF_INIT, out = WEIR_BUF_INIT;
    weir__buf_puts(&sql, "SELECT ");
    for (int i = 0; i < 12; i++)
        weir__buf_puts(&sql, "zip_with(");
    weir__buf_puts(&sql, "array(1)");
    for (int i = 0; i < 12; i++)
        weir__buf_puts(&sql, ", array(1), (x, y) -> x + y)");
    weir_error err;
    memset(&err, 0, sizeof(err));
    CHECK(translate(weir__buf_cstr(&sql), &out, &err) == 0);
    CHECK(out.len < 20 * sql.len);
    Q(weir__buf_cstr(&sql), "[13]");
    weir__buf_free(&out);
    weir__buf_free(&sql);
}

/* A resolver that knows the types of t, nums and sales itself (as the
 * engine knows its datasets' resolved schemas) and counts the probes. */
static int counted_probe(void *payload, const char *sql, weir_buf *out)
{
    ++*(int *)payload;
    return probe_type(NULL, sql, out);
}

static int known_types(void *payload, const weir_sql_relref *ref, weir_buf *out)
{
    (void)payload;
    const char *name = ref->name.parts[ref->name.n - 1];
    if (!strcmp(name, "nums"))
        weir__buf_puts(out, "INTEGER");
    else if (!strcmp(name, "sales"))
        weir__buf_puts(out, "VARCHAR\nVARCHAR\nINTEGER\nDECIMAL(10,2)");
    else
        return -1;
    return 0;
}

static int translate_known(const char *spark, weir_buf *out, int *probes)
{
    weir_arena a = WEIR_ARENA_INIT;
    weir_sql_source src = { "q.sql", spark, strlen(spark), NULL, 0, NULL, 0, false };
    weir_sql_query *q = NULL;
    weir_error err;
    int rc = weir__sql_parse_query(&q, &a, &src, 0, src.len, &err);
    weir_sql_resolver r = { .payload = probes, .expr_type = counted_probe, .relation_types = known_types };
    if (!rc)
        rc = weir__sql_translate_query(out, q, &r, &err);
    weir__arena_free(&a);
    return rc;
}

TEST(test_sql_translate__known_relation_types)
{
    /* Arithmetic and sum() over tables the resolver can type need no
     * probe of the FROM when none of their columns is a DECIMAL, and
     * translate as with the probe; a DECIMAL column, or a table the
     * resolver does not know, is still probed. */
    static const char *const cases[][2] = {
        { "SELECT x + 1 AS y, sum(x) AS s FROM nums GROUP BY x", "0" },
        { "SELECT a.x * b.x AS y FROM nums a JOIN nums b ON a.x = b.x", "0" },
        { "SELECT qty * price AS v FROM sales", "1" },
        { "SELECT sum(qty) AS q FROM sales", "1" },
        { "SELECT id + 1 AS y FROM t", "1" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        weir_buf known = WEIR_BUF_INIT, probed = WEIR_BUF_INIT;
        weir_error err;
        int probes = 0;
        CHECK_INT(translate_known(cases[i][0], &known, &probes), 0);
        CHECK(translate(cases[i][0], &probed, &err) == 0);
        CHECK_STR(weir__buf_cstr(&known), weir__buf_cstr(&probed));
        if (cases[i][1][0] == '0')
            CHECK_INT(probes, 0);
        else
            CHECK(probes > 0);
        weir__buf_free(&known);
        weir__buf_free(&probed);
    }
}

TEST_MAIN(setup(); RUN(test_sql_translate__select_basics);
          RUN(test_sql_translate__with_and_setops);
          RUN(test_sql_translate__joins);
          RUN(test_sql_translate__aggregation);
          RUN(test_sql_translate__windows);
          RUN(test_sql_translate__operators);
          RUN(test_sql_translate__string_functions);
          RUN(test_sql_translate__math_functions);
          RUN(test_sql_translate__collection_functions);
          RUN(test_sql_translate__datetime_functions);
          RUN(test_sql_translate__json_functions);
          RUN(test_sql_translate__generators);
          RUN(test_sql_translate__spark_differential);
          RUN(test_sql_translate__cte_not_resolved);
          RUN(test_sql_translate__cte_chain);
          RUN(test_sql_translate__unsupported);
          RUN(test_sql_translate__spark_round2);
          RUN(test_sql_translate__known_relation_types); teardown();
          fprintf(stderr, "%d translation cases\n", n_cases))
