-- A key's rows less than 5 minutes apart form one session; a session is
-- written once the watermark passes its end (last row + gap).
CREATE STREAMING TABLE sessions AS
SELECT session_window(e.ts, '5 minutes') AS s, e.k, count(*) AS n, sum(e.v) AS total,
       min(e.id) AS first_id
FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES AS e
GROUP BY session_window(e.ts, '5 minutes'), e.k;
