-- Ten-minute counts rolled up into thirty-minute windows: the inner
-- aggregation writes a window once the watermark passes its end, the
-- outer one places it by its time (window_time: its end less a
-- microsecond) and writes the larger window once that closes too.
CREATE STREAMING TABLE by_window_time AS
SELECT window(window_time(w), '30 minutes') AS w30, count(*) AS windows,
       sum(n) AS n
FROM (SELECT window(ts, '10 minutes') AS w, count(*) AS n
      FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES
      GROUP BY window(ts, '10 minutes'))
GROUP BY window(window_time(w), '30 minutes');

