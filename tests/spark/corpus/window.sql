-- Window functions.
SELECT g, x, row_number() OVER (PARTITION BY g ORDER BY x) AS rn FROM VALUES ('a', 3), ('a', 1), ('b', 2) AS t(g, x);
SELECT x, rank() OVER (ORDER BY x) AS r, dense_rank() OVER (ORDER BY x) AS d FROM VALUES (1), (1), (2) AS t(x);
SELECT x, percent_rank() OVER (ORDER BY x) AS p, cume_dist() OVER (ORDER BY x) AS c FROM VALUES (1), (2), (3), (4) AS t(x);
SELECT x, ntile(2) OVER (ORDER BY x) AS n FROM VALUES (1), (2), (3) AS t(x);
SELECT x, lag(x) OVER (ORDER BY x) AS p, lead(x) OVER (ORDER BY x) AS n FROM VALUES (1), (2), (3) AS t(x);
SELECT x, lag(x, 2, 0) OVER (ORDER BY x) AS p FROM VALUES (1), (2), (3) AS t(x);
SELECT x, lead(x, 1, -1) OVER (ORDER BY x) AS n FROM VALUES (1), (2) AS t(x);
SELECT x, sum(x) OVER (ORDER BY x) AS running FROM VALUES (1), (2), (3) AS t(x);
SELECT x, sum(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM VALUES (1), (2), (3), (4) AS t(x);
SELECT x, sum(x) OVER (ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS s FROM VALUES (1), (2) AS t(x);
SELECT x, avg(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS a FROM VALUES (1), (2), (3) AS t(x);
SELECT x, count(*) OVER (ORDER BY x RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS c FROM VALUES (1), (2), (4) AS t(x);
SELECT g, x, sum(x) OVER (PARTITION BY g) AS total FROM VALUES ('a', 1), ('a', 2), ('b', 5) AS t(g, x);
SELECT x, first_value(x) OVER (ORDER BY x) AS f, last_value(x) OVER (ORDER BY x) AS l FROM VALUES (1), (2), (3) AS t(x);
SELECT x, last_value(x) OVER (ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS l FROM VALUES (1), (2) AS t(x);
SELECT x, nth_value(x, 2) OVER (ORDER BY x) AS n FROM VALUES (1), (2), (3) AS t(x);
SELECT x, max(x) OVER () AS m, min(x) OVER () AS n FROM VALUES (1), (5) AS t(x);
SELECT x, count(x) OVER (PARTITION BY x % 2) AS c FROM VALUES (1), (2), (3) AS t(x);
SELECT x, row_number() OVER w AS rn FROM VALUES (2), (1) AS t(x) WINDOW w AS (ORDER BY x);
-- known: QUALIFY is Databricks syntax that OSS Spark 4.1 lacks; weir accepts it
SELECT g, x FROM VALUES ('a', 1), ('a', 2), ('b', 3) AS t(g, x) QUALIFY row_number() OVER (PARTITION BY g ORDER BY x DESC) = 1;
SELECT x, rank() OVER (ORDER BY x DESC) AS r FROM VALUES (1), (NULL), (2) AS t(x);
SELECT x, row_number() OVER (ORDER BY x) AS r FROM VALUES (2), (NULL), (1) AS t(x);
SELECT x, lag(x) IGNORE NULLS OVER (ORDER BY i) AS p FROM VALUES (1, 10), (2, NULL), (3, 30) AS t(i, x);
SELECT i, first_value(x, true) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS f FROM VALUES (1, NULL), (2, 20), (3, 30) AS t(i, x);
SELECT i, collect_list(x) OVER (ORDER BY i) AS l FROM VALUES (1, 'a'), (2, 'b') AS t(i, x);
SELECT g, x, dense_rank() OVER (PARTITION BY g ORDER BY x DESC) AS r FROM VALUES ('a', 1), ('a', 1), ('a', 0) AS t(g, x);
SELECT x, sum(x) OVER (ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s FROM VALUES (1), (1), (2) AS t(x);
SELECT x, count(*) OVER (ORDER BY x ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS c FROM VALUES (1), (2), (3) AS t(x);
-- Session windows: a row joins its key's session when it starts at or before the session's end (10:05 exactly merges); NULL times are dropped
SELECT k, session_window.start AS s, session_window.end AS e, count(*) AS n FROM VALUES ('a', TIMESTAMP '2024-01-01 10:00:00'), ('a', TIMESTAMP '2024-01-01 10:05:00'), ('a', TIMESTAMP '2024-01-01 10:10:01'), ('b', TIMESTAMP '2024-01-01 10:02:00'), ('b', NULL) AS t(k, ts) GROUP BY k, session_window(ts, '5 minutes');
SELECT session_window(ts, g) AS w, count(*) AS n, min(ts) AS first FROM VALUES (TIMESTAMP '2024-01-01 10:00:00', '1 minute'), (TIMESTAMP '2024-01-01 10:00:30', '10 minutes'), (TIMESTAMP '2024-01-01 10:08:00', '0 minutes'), (TIMESTAMP '2024-01-01 10:09:00', '-1 minutes'), (TIMESTAMP '2024-01-01 10:20:00', '2 minutes') AS t(ts, g) GROUP BY session_window(ts, g);
SELECT session_window(ts, '5 minutes') AS w, ts FROM VALUES (TIMESTAMP '2024-01-01 10:00:00'), (NULL) AS t(ts);
SELECT session_window, count(*) AS n FROM VALUES (TIMESTAMP '2024-01-01 10:00:00'), (TIMESTAMP '2024-01-01 10:03:00') AS t(ts) WHERE ts > TIMESTAMP '2023-01-01' GROUP BY session_window(ts, '5 minutes');
-- Spark 4.1 wants a string or calendar interval as the gap and refuses an ANSI interval literal (_LEGACY_ERROR_TEMP_1040), also in its string and TO forms
-- error
SELECT session_window(ts, INTERVAL 5 MINUTES) AS w, ts FROM VALUES (TIMESTAMP '2024-01-01 10:00:00'), (NULL) AS t(ts);
-- Unaliased time windows are named after their function, `window` (tumbling or sliding) and `session_window`
SELECT window(ts, '10 minutes'), count(*) AS n FROM VALUES (TIMESTAMP '2024-01-01 10:00:00'), (TIMESTAMP '2024-01-01 10:12:00') AS t(ts) GROUP BY window(ts, '10 minutes');
SELECT window(ts, '10 minutes', '5 minutes'), count(*) AS n FROM VALUES (TIMESTAMP '2024-01-01 10:03:00') AS t(ts) GROUP BY window(ts, '10 minutes', '5 minutes');
-- error
SELECT session_window(ts, INTERVAL '1:05' HOUR TO MINUTE) AS w FROM VALUES (TIMESTAMP '2024-01-01 10:00:00') AS t(ts);
-- window_time: a window's end less a microsecond, named after the window's column
SELECT window_time(window(ts, '10 minutes')) FROM VALUES (TIMESTAMP '2024-01-01 10:03:00') AS t(ts);
SELECT window_time(w) AS t, n FROM (SELECT window(ts, '10 minutes') AS w, count(*) AS n FROM VALUES (TIMESTAMP '2024-01-01 10:03:00'), (TIMESTAMP '2024-01-01 10:14:00') AS t(ts) GROUP BY 1);
-- Rows whose time is NULL are dropped by window(), grouped by or of each row (Spark's TimeWindowing filter)
SELECT window(ts, '10 minutes') AS w, count(*) AS n FROM VALUES (TIMESTAMP '2024-01-01 10:01:00'), (NULL), (NULL) AS t(ts) GROUP BY window(ts, '10 minutes');
SELECT ts, window(ts, '10 minutes').start AS s FROM VALUES (TIMESTAMP '2024-01-01 10:01:00'), (NULL) AS t(ts) WHERE ts IS NULL OR ts > TIMESTAMP '2000-01-01';
SELECT k, window(ts, '10 minutes', '5 minutes') AS w, count(*) AS n FROM VALUES ('a', TIMESTAMP '2024-01-01 10:01:00'), ('a', NULL) AS t(k, ts) GROUP BY k, window(ts, '10 minutes', '5 minutes');
