-- The gap is an expression of the row: 2 minutes for key a, 10 for b,
-- 5 for the others. A row starting at or before the end of its key's
-- session so far joins it (rows exactly a gap apart merge), across
-- updates too; a session is written once the watermark passes its end.
CREATE STREAMING TABLE sessions AS
SELECT session_window(e.ts, CASE WHEN e.k = 'a' THEN '2 minutes'
                                 WHEN e.k = 'b' THEN '10 minutes'
                                 ELSE '5 minutes' END) AS s,
       e.k, count(*) AS n, sum(e.v) AS total, min(e.id) AS first_id
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS e
GROUP BY session_window(e.ts, CASE WHEN e.k = 'a' THEN '2 minutes'
                                   WHEN e.k = 'b' THEN '10 minutes'
                                   ELSE '5 minutes' END), e.k;

-- The same sessions in batch over every event so far (late rows too),
-- recomputed each update; an unaliased session column is named
-- session_window.
CREATE MATERIALIZED VIEW all_sessions AS
SELECT session_window(ts, CASE WHEN k = 'a' THEN '2 minutes'
                               WHEN k = 'b' THEN '10 minutes'
                               ELSE '5 minutes' END), k, count(*) AS n,
       max(v) AS top
FROM events
WHERE v > 3
GROUP BY 1, k;
