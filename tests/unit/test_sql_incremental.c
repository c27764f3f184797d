/*
 * Shape analysis for incremental refresh of materialized views
 * (src/sql/incremental.c): which queries are maintained from appended
 * rows, how each output column of an aggregate merges, and the reason
 * and position of every refusal.
 */
#include "harness.h"

#include <string.h>

#include "sql/sql.h"
#include "util/arena.h"

typedef struct shape {
    weir_arena arena;
    weir_sql_source src;
    weir_sql_incr incr;
} shape;

/* Analyse text; false when it does not parse. */
static bool analyse(shape *s, const char *text)
{
    weir__arena_free(&s->arena);
    weir__arena_init(&s->arena);
    weir_sql_source src = { "v.sql", text, strlen(text), NULL, 0, NULL, 0, false };
    s->src = src;
    weir_sql_query *q = NULL;
    weir_error err;
    if (weir__sql_parse_query(&q, &s->arena, &s->src, 0, s->src.len, &err)) {
        fprintf(stderr, "  parse failed: %s (%s)\n", err.message, text);
        return false;
    }
    return weir__sql_query_incremental(&s->incr, &s->arena, q) == 0;
}

static weir_sql_incr_kind kind_of(shape *s, const char *text)
{
    return analyse(s, text) ? s->incr.kind : (weir_sql_incr_kind)-1;
}

/* The refusal's reason contains want (and nothing was accepted). */
static bool refused(shape *s, const char *text, const char *want)
{
    if (!analyse(s, text) || s->incr.kind != WEIR_SQL_INCR_NONE)
        return false;
    if (!strstr(s->incr.reason, want)) {
        fprintf(stderr, "  reason \"%s\" lacks \"%s\" (%s)\n", s->incr.reason,
                want, text);
        return false;
    }
    return true;
}

TEST(test_sql_incremental__append)
{
    shape s;
    memset(&s, 0, sizeof(s));
    weir__arena_init(&s.arena);
    CHECK_INT(kind_of(&s, "SELECT * FROM t"), WEIR_SQL_INCR_APPEND);
    CHECK_INT(kind_of(&s, "SELECT a, b * 2 AS c, upper(x) FROM t WHERE a > 1 "
                          "AND x LIKE 'a%'"),
              WEIR_SQL_INCR_APPEND);
    CHECK_INT(kind_of(&s, "SELECT a FROM t UNION ALL SELECT b FROM u WHERE b "
                          "IS NOT NULL"),
              WEIR_SQL_INCR_APPEND);
    CHECK_INT(kind_of(&s, "SELECT y FROM (SELECT a + 1 AS y FROM t WHERE a > 0) "
                          "WHERE y < 9"),
              WEIR_SQL_INCR_APPEND);
    CHECK_INT(kind_of(&s, "SELECT CASE WHEN a > 1 THEN 'x' ELSE NULL END AS c, "
                          "CAST(d AS DECIMAL(10,2)) FROM cat.db.t"),
              WEIR_SQL_INCR_APPEND);
    weir__arena_free(&s.arena);
}

TEST(test_sql_incremental__joins)
{
    shape s;
    memset(&s, 0, sizeof(s));
    weir__arena_init(&s.arena);
    CHECK_INT(kind_of(&s, "SELECT t.a, u.b FROM t JOIN u ON t.k = u.k"),
              WEIR_SQL_INCR_APPEND);
    CHECK(s.incr.join);
    CHECK_INT(s.incr.n_fixed, 0);
    CHECK_INT(kind_of(&s, "SELECT a FROM t"), WEIR_SQL_INCR_APPEND);
    CHECK(!s.incr.join);
    /* The outer side of a left join (and of a right join) is fixed. */
    CHECK_INT(kind_of(&s, "SELECT t.a, u.b FROM t LEFT JOIN u ON t.k = u.k "
                          "JOIN w ON w.k = t.k"),
              WEIR_SQL_INCR_APPEND);
    CHECK_INT(s.incr.n_fixed, 1);
    CHECK_INT(kind_of(&s, "SELECT t.a FROM (SELECT * FROM u, v) RIGHT JOIN t "
                          "ON t.k = u.k"),
              WEIR_SQL_INCR_APPEND);
    CHECK_INT(s.incr.n_fixed, 2);
    CHECK_INT(kind_of(&s, "SELECT u.b, count(*), sum(t.a) FROM t JOIN u ON "
                          "t.k = u.k GROUP BY u.b"),
              WEIR_SQL_INCR_AGGREGATE);
    CHECK(s.incr.join);
    /* The right side of a left semi or anti join is fixed. */
    CHECK_INT(kind_of(&s, "SELECT t.a FROM t LEFT SEMI JOIN u ON t.k = u.k"),
              WEIR_SQL_INCR_APPEND);
    CHECK(s.incr.join);
    CHECK_INT(s.incr.n_fixed, 1);
    CHECK_INT(kind_of(&s, "SELECT a FROM t LEFT ANTI JOIN (SELECT k FROM u "
                          "UNION ALL SELECT k FROM v) AS w ON t.k = w.k "
                          "JOIN x ON x.k = t.k"),
              WEIR_SQL_INCR_APPEND);
    CHECK_INT(s.incr.n_fixed, 2);
    CHECK_INT(kind_of(&s, "SELECT k, count(*), avg(d) FROM t SEMI JOIN u "
                          "USING (k) GROUP BY k"),
              WEIR_SQL_INCR_AGGREGATE);
    CHECK_INT(s.incr.n_fixed, 1);
    weir__arena_free(&s.arena);
}

TEST(test_sql_incremental__aggregate)
{
    shape s;
    memset(&s, 0, sizeof(s));
    weir__arena_init(&s.arena);
    CHECK_INT(kind_of(&s, "SELECT k, count(*) AS n, sum(v) AS s, min(v), "
                          "max(v), count(v) FROM t GROUP BY k"),
              WEIR_SQL_INCR_AGGREGATE);
    CHECK_INT(s.incr.n_cols, 6);
    if (s.incr.n_cols == 6) {
        CHECK_INT(s.incr.cols[0], WEIR_SQL_INCR_KEY);
        CHECK_INT(s.incr.cols[1], WEIR_SQL_INCR_COUNT);
        CHECK_INT(s.incr.cols[2], WEIR_SQL_INCR_SUM);
        CHECK_INT(s.incr.cols[3], WEIR_SQL_INCR_MIN);
        CHECK_INT(s.incr.cols[4], WEIR_SQL_INCR_MAX);
        CHECK_INT(s.incr.cols[5], WEIR_SQL_INCR_COUNT);
    }
    /* Keys by expression, alias or ordinal, after the aggregates too. */
    CHECK_INT(kind_of(&s, "SELECT to_date(ts) AS d, c, sum(x) FROM t GROUP BY "
                          "to_date( ts ), c"),
              WEIR_SQL_INCR_AGGREGATE);
    CHECK_INT(kind_of(&s, "SELECT sum(x) AS s, k % 3 AS m FROM t GROUP BY m"),
              WEIR_SQL_INCR_AGGREGATE);
    CHECK_INT(s.incr.cols[0], WEIR_SQL_INCR_SUM);
    CHECK_INT(s.incr.cols[1], WEIR_SQL_INCR_KEY);
    CHECK_INT(kind_of(&s, "SELECT a, b, max(c) FROM t GROUP BY 1, 2"),
              WEIR_SQL_INCR_AGGREGATE);
    CHECK_INT(kind_of(&s, "SELECT a, max(c) FROM t WHERE c > 0 GROUP BY ALL"),
              WEIR_SQL_INCR_AGGREGATE);
    /* A global aggregate, DISTINCT, an aggregate FILTER. */
    CHECK_INT(kind_of(&s, "SELECT count(*) AS n, sum(v) FROM t"),
              WEIR_SQL_INCR_AGGREGATE);
    CHECK_INT(kind_of(&s, "SELECT DISTINCT a, b FROM t"),
              WEIR_SQL_INCR_AGGREGATE);
    CHECK_INT(s.incr.cols[1], WEIR_SQL_INCR_KEY);
    CHECK_INT(kind_of(&s, "SELECT k, count(*) FILTER (WHERE v > 0) AS p FROM t "
                          "GROUP BY k"),
              WEIR_SQL_INCR_AGGREGATE);
    /* avg (mean) of each group, with its FILTER too. */
    CHECK_INT(kind_of(&s, "SELECT k, avg(v) AS a, count(*), mean(d) FILTER "
                          "(WHERE v > 0) FROM t GROUP BY k"),
              WEIR_SQL_INCR_AGGREGATE);
    CHECK_INT(s.incr.n_cols, 4);
    if (s.incr.n_cols == 4) {
        CHECK_INT(s.incr.cols[1], WEIR_SQL_INCR_AVG);
        CHECK_INT(s.incr.cols[2], WEIR_SQL_INCR_COUNT);
        CHECK_INT(s.incr.cols[3], WEIR_SQL_INCR_AVG);
    }
    /* count(DISTINCT x), kept as pairs. */
    CHECK_INT(kind_of(&s, "SELECT k, count(DISTINCT v) AS d, count(v) FROM t "
                          "GROUP BY k"),
              WEIR_SQL_INCR_AGGREGATE);
    CHECK_INT(s.incr.cols[1], WEIR_SQL_INCR_COUNT_DISTINCT);
    CHECK_INT(s.incr.cols[2], WEIR_SQL_INCR_COUNT);
    /* Over a subquery of projections. */
    CHECK_INT(kind_of(&s, "SELECT k, sum(v) FROM (SELECT upper(a) AS k, b AS v "
                          "FROM t UNION ALL SELECT a, c FROM u) GROUP BY k"),
              WEIR_SQL_INCR_AGGREGATE);
    weir__arena_free(&s.arena);
}

/* The query of partial rows of an aggregate with averages: each avg()
 * becomes a sum and a count (after the other columns), FILTER kept. */
TEST(test_sql_incremental__state_query)
{
    shape s;
    memset(&s, 0, sizeof(s));
    weir__arena_init(&s.arena);
    const char *text = "SELECT k, avg(v) AS a, count(*) AS n, mean(d) FILTER "
                       "(WHERE v > 0) FROM t GROUP BY 1";
    weir_sql_source src = { "v.sql", text, strlen(text), NULL, 0, NULL, 0, false };
    weir_sql_query *q = NULL;
    weir_error err;
    CHECK_INT(weir__sql_parse_query(&q, &s.arena, &src, 0, src.len, &err), 0);
    CHECK_INT(weir__sql_query_incremental(&s.incr, &s.arena, q), 0);
    CHECK_INT(s.incr.kind, WEIR_SQL_INCR_AGGREGATE);
    const weir_sql_query *state = NULL;
    CHECK_INT(weir__sql_incr_state_query(&state, &s.arena, q, &s.incr), 0);
    CHECK(state && state != q);
    weir_buf out = WEIR_BUF_INIT;
    if (state)
        CHECK_INT(weir__sql_translate_query(&out, state, NULL, &err), 0);
    const char *sql = weir__buf_cstr(&out);
    CHECK(strstr(sql, "SELECT \"k\", weir_sum(\"v\") AS \"__weir_sum_1\", "
                      "count(*) AS \"n\", weir_sum(CASE WHEN (\"v\" > 0) "
                      "THEN \"d\" END) AS \"__weir_sum_3\", count(\"v\") AS "
                      "\"__weir_count_1\", count(\"d\") FILTER (WHERE ((\"v\" "
                      "> 0))) AS \"__weir_count_3\" FROM") != NULL);
    CHECK(strstr(sql, "avg") == NULL);
    /* Without averages: the query itself. */
    CHECK_INT(kind_of(&s, "SELECT k, sum(v) FROM t GROUP BY k"),
              WEIR_SQL_INCR_AGGREGATE);
    if (!strstr(sql, "GROUP BY 1"))
        fprintf(stderr, "  state query: %s\n", sql);
    weir__buf_free(&out);
    weir__arena_free(&s.arena);
}

/* The rows of a count(DISTINCT x)'s groups and values: the keys, x and
 * the FILTER's condition, ungrouped. */
TEST(test_sql_incremental__distinct_query)
{
    shape s;
    memset(&s, 0, sizeof(s));
    weir__arena_init(&s.arena);
    const char *text = "SELECT upper(k) AS uk, count(DISTINCT v) AS d, g, "
                       "count(DISTINCT w) FILTER (WHERE v > 0) FROM t WHERE "
                       "g > 1 GROUP BY upper(k), g";
    weir_sql_source src = { "v.sql", text, strlen(text), NULL, 0, NULL, 0, false };
    weir_sql_query *q = NULL;
    weir_error err;
    CHECK_INT(weir__sql_parse_query(&q, &s.arena, &src, 0, src.len, &err), 0);
    CHECK_INT(weir__sql_query_incremental(&s.incr, &s.arena, q), 0);
    CHECK_INT(s.incr.kind, WEIR_SQL_INCR_AGGREGATE);
    const weir_sql_query *d1 = NULL, *d3 = NULL;
    CHECK_INT(weir__sql_incr_distinct_query(&d1, &s.arena, q, &s.incr, 1), 0);
    CHECK_INT(weir__sql_incr_distinct_query(&d3, &s.arena, q, &s.incr, 3), 0);
    weir_buf a = WEIR_BUF_INIT, b = WEIR_BUF_INIT;
    if (d1 && d3) {
        CHECK_INT(weir__sql_translate_query(&a, d1, NULL, &err), 0);
        CHECK_INT(weir__sql_translate_query(&b, d3, NULL, &err), 0);
    }
    const char *sa = weir__buf_cstr(&a), *sb = weir__buf_cstr(&b);
    CHECK(strstr(sa, "\"v\" AS \"__weir_value\" FROM") != NULL);
    CHECK(strstr(sa, "__weir_keep") == NULL);
    CHECK(strstr(sb, "\"w\" AS \"__weir_value\", (\"v\" > 0) AS "
                     "\"__weir_keep\" FROM") != NULL);
    CHECK(strstr(sa, "GROUP BY") == NULL && strstr(sa, "count") == NULL);
    CHECK(strstr(sa, "WHERE (\"g\" > 1)") != NULL);
    if (!strstr(sb, "__weir_keep\" FROM"))
        fprintf(stderr, "  distinct queries: %s | %s\n", sa, sb);
    weir__buf_free(&a);
    weir__buf_free(&b);
    weir__arena_free(&s.arena);
}

TEST(test_sql_incremental__refused)
{
    shape s;
    memset(&s, 0, sizeof(s));
    weir__arena_init(&s.arena);
    CHECK(refused(&s, "SELECT a, rand() AS r FROM t", "non-deterministic "
                                                       "function rand()"));
    CHECK_INT(s.incr.pos.line, 1);
    CHECK_INT(s.incr.pos.column, 11);
    CHECK(refused(&s, "SELECT a, current_timestamp AS r FROM t",
                  "non-deterministic"));
    CHECK(refused(&s, "SELECT a FROM t WHERE d < current_date()",
                  "non-deterministic"));
    CHECK(refused(&s, "SELECT uuid() AS id, k, count(*) FROM t GROUP BY k",
                  "non-deterministic"));
    CHECK(refused(&s, "SELECT a, row_number() OVER (ORDER BY a) FROM t",
                  "window function"));
    CHECK(refused(&s, "SELECT a FROM t ORDER BY a", "ORDER BY"));
    CHECK(refused(&s, "SELECT a FROM t LIMIT 3", "LIMIT"));
    CHECK(refused(&s, "SELECT a FROM t FULL JOIN u ON t.k = u.k",
                  "a FULL join"));
    CHECK(refused(&s, "SELECT a FROM t JOIN u ON t.k = u.k AND rand() > 0",
                  "non-deterministic"));
    CHECK(refused(&s, "SELECT a FROM t WHERE a IN (SELECT b FROM u)",
                  "subquery"));
    CHECK(refused(&s, "SELECT a FROM t UNION SELECT b FROM u", "UNION"));
    CHECK(refused(&s, "SELECT a FROM t EXCEPT SELECT b FROM u", "EXCEPT"));
    CHECK(refused(&s, "WITH x AS (SELECT 1 AS a) SELECT a FROM x", "WITH"));
    CHECK(refused(&s, "SELECT k, avg(DISTINCT v) FROM t GROUP BY k", "avg()"));
    CHECK(refused(&s, "SELECT k, count(DISTINCT v, w) FROM t GROUP BY k",
                  "count()"));
    CHECK(refused(&s, "SELECT k, sum(DISTINCT v) FROM t GROUP BY k",
                  "sum()"));
    CHECK(refused(&s, "SELECT k, sum(v) / count(*) FROM t GROUP BY k",
                  "inside an expression"));
    CHECK(refused(&s, "SELECT k, sum(v) FROM t GROUP BY k HAVING sum(v) > 1",
                  "HAVING"));
    CHECK(refused(&s, "SELECT k, sum(v) FROM t GROUP BY k, j",
                  "not a column of the result"));
    CHECK(refused(&s, "SELECT k, sum(v) FROM t GROUP BY ROLLUP (k)",
                  "ROLLUP"));
    CHECK(refused(&s, "SELECT k, v FROM (SELECT k, count(*) AS v FROM t "
                      "GROUP BY k)",
                  "aggregation inside"));
    CHECK(refused(&s, "SELECT * FROM range(10)", "table-valued function"));
    CHECK(refused(&s, "SELECT 1 AS a", "without FROM"));
    CHECK(refused(&s, "SELECT explode(arr) FROM t", "generator"));
    CHECK(refused(&s, "SELECT a FROM t QUALIFY row_number() OVER (ORDER BY "
                      "a) = 1",
                  "QUALIFY"));
    weir__arena_free(&s.arena);
}

TEST_MAIN(RUN(test_sql_incremental__append);
          RUN(test_sql_incremental__joins);
          RUN(test_sql_incremental__aggregate);
          RUN(test_sql_incremental__state_query);
          RUN(test_sql_incremental__distinct_query);
          RUN(test_sql_incremental__refused))
