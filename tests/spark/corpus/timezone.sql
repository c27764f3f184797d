-- The session time zone (spark.sql.session.timeZone, set per entry with
-- `-- conf:`): strings and dates read as wall clocks of the zone, timestamps
-- written and taken apart as its wall clocks, DST gaps and overlaps as Java
-- resolves them, day and month arithmetic on the wall clock. Timestamps are
-- compared as instants.
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT current_timezone() AS z;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT CAST('2024-01-15 10:00:00' AS TIMESTAMP) AS t;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT CAST('2024-03-10 02:30:00' AS TIMESTAMP) AS gap, CAST('2024-11-03 01:30:00' AS TIMESTAMP) AS overlap;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT CAST('2024-11-03 01:00:00' AS TIMESTAMP) AS a, CAST('2024-11-03 02:00:00' AS TIMESTAMP) AS b, CAST('2024-03-10 03:00:00' AS TIMESTAMP) AS c;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT CAST('2024-06-01T12:00:00Z' AS TIMESTAMP) AS utc, CAST('2024-06-01 12:00:00+02:00' AS TIMESTAMP) AS off;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT TIMESTAMP '2024-07-01 09:30:00' AS t, TIMESTAMP '2024-07-01 09:30:00+00:00' AS u;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT CAST(TIMESTAMP '2024-11-03 01:30:00' AS STRING) AS s, CAST(timestamp_seconds(0) AS STRING) AS e;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT string(timestamp_millis(1700000000123)) AS s;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT CAST(timestamp_seconds(0) AS DATE) AS d, CAST(DATE '2024-03-10' AS TIMESTAMP) AS t;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT to_timestamp('2024-01-01 10:00:00') AS a, to_timestamp('2024-01-01 10:00', 'yyyy-MM-dd HH:mm') AS b, to_timestamp('2024-03-10') AS c;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT try_to_timestamp('2024-07-04 12:00:00') AS a, try_to_timestamp('nope') AS b;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT to_date(timestamp_seconds(0)) AS a, to_date('2024-05-05') AS b;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT unix_timestamp('2024-01-01 10:00:00') AS a, to_unix_timestamp('2024-07-01 10:00:00') AS b, unix_timestamp('2024-01-01', 'yyyy-MM-dd') AS c;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT unix_timestamp(TIMESTAMP '2024-01-01 10:00:00') AS a, unix_timestamp(DATE '2024-07-01') AS b;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT from_unixtime(0) AS a, from_unixtime(1710064800, 'yyyy-MM-dd HH:mm') AS b;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT unix_seconds(TIMESTAMP '2024-01-01 00:00:00') AS s, unix_millis(TIMESTAMP '2024-07-01 00:00:00') AS ms, unix_micros(TIMESTAMP '2024-07-01 00:00:00.5') AS us;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT unix_date(DATE '2024-01-01') AS d, timestamp_seconds(1704096000) AS t;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT hour(ts) AS h, minute(ts) AS m, day(ts) AS d, dayofweek(ts) AS w, dayofyear(ts) AS y FROM VALUES (timestamp_seconds(0)), (timestamp_seconds(1710064800)) AS v(ts);
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT year(timestamp_seconds(1704067200)) AS y, month(timestamp_seconds(1704067200)) AS m, quarter(timestamp_seconds(1704067200)) AS q, weekofyear(timestamp_seconds(1704067200)) AS w;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT EXTRACT(HOUR FROM timestamp_seconds(0)) AS h, EXTRACT(DAY FROM timestamp_seconds(0)) AS d, date_part('minute', timestamp_seconds(0)) AS m;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT second(TIMESTAMP '2024-01-01 10:00:05') AS s, weekday(timestamp_seconds(0)) AS w;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT date_trunc('DAY', timestamp_seconds(0)) AS d, date_trunc('HOUR', timestamp_seconds(1800)) AS h, date_trunc('MONTH', TIMESTAMP '2024-03-15 10:00:00') AS m;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT date_trunc('YEAR', TIMESTAMP '2024-07-15 10:00:00') AS y, date_trunc('WEEK', TIMESTAMP '2024-03-13 10:00:00') AS w;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT trunc(timestamp_seconds(0), 'MM') AS m, last_day(timestamp_seconds(0)) AS l, next_day(timestamp_seconds(0), 'MON') AS n;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT date_format(TIMESTAMP '2024-07-01 23:00:00', 'yyyy-MM-dd HH:mm:ss') AS a, date_format(timestamp_seconds(0), 'EEE dd MMM yyyy HH:mm') AS b;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT date_format(DATE '2024-01-01', 'yyyy-MM-dd HH:mm') AS a, date_format('2024-02-03 04:05:06', 'HH:mm') AS b;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT from_utc_timestamp('2017-07-14 02:40:00', 'Asia/Seoul') AS a, to_utc_timestamp('2017-07-14 02:40:00', 'Asia/Seoul') AS b;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT from_utc_timestamp(timestamp_seconds(0), 'UTC') AS a, to_utc_timestamp(timestamp_seconds(0), 'America/New_York') AS b;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT make_timestamp(2024, 3, 10, 2, 30, 0) AS gap, make_timestamp(2024, 7, 1, 12, 0, 30.5) AS t;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT timestamp_seconds(0) = '1969-12-31 16:00:00' AS a, timestamp_seconds(0) > DATE '1969-12-31' AS b, timestamp_seconds(0) < '1970-01-01' AS c;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT count(*) AS n FROM VALUES (timestamp_seconds(0)), (timestamp_seconds(86400)) AS v(ts) WHERE ts BETWEEN '1969-12-31 00:00:00' AND '1970-01-01 00:00:00';
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT count(*) AS n FROM VALUES (timestamp_seconds(0)), (timestamp_seconds(3600)) AS v(ts) WHERE ts IN ('1969-12-31 16:00:00', '1970-01-01 01:00:00');
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT ts >= '2024-03-10' AS a, ts < DATE '2024-03-11' AS b FROM VALUES (TIMESTAMP '2024-03-10 05:00:00') AS v(ts);
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT concat('at ', timestamp_seconds(0)) AS a, timestamp_seconds(0) || '!' AS b, concat_ws('/', timestamp_seconds(0), 'x') AS c;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT date_add(timestamp_seconds(0), 1) AS a, date_sub(timestamp_seconds(0), 1) AS b, datediff(timestamp_seconds(0), DATE '1969-12-30') AS c;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT add_months(timestamp_seconds(0), 1) AS a, months_between(TIMESTAMP '2024-03-31 23:00:00', TIMESTAMP '2024-02-28 23:00:00') AS b;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT timestampadd(DAY, 1, TIMESTAMP '2024-03-09 12:00:00') AS d, timestampadd(HOUR, 24, TIMESTAMP '2024-03-09 12:00:00') AS h, timestampadd(MONTH, 1, TIMESTAMP '2024-02-10 12:00:00') AS m;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT timestampdiff(DAY, TIMESTAMP '2024-03-09 12:00:00', TIMESTAMP '2024-03-10 12:00:00') AS d, timestampdiff(HOUR, TIMESTAMP '2024-03-09 12:00:00', TIMESTAMP '2024-03-10 12:00:00') AS h, timestampdiff(MINUTE, TIMESTAMP '2024-11-03 00:30:00', TIMESTAMP '2024-11-03 03:30:00') AS m;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT TIMESTAMP '2024-03-09 12:00:00' + INTERVAL 1 DAY AS d, TIMESTAMP '2024-03-09 12:00:00' + INTERVAL 36 HOURS AS h, TIMESTAMP '2024-03-11 12:00:00' - INTERVAL '1' DAY AS m;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT TIMESTAMP '2024-01-31 00:00:00' + INTERVAL 1 MONTH AS a, TIMESTAMP '2024-03-01 00:00:00' + INTERVAL '1' MONTH AS b, TIMESTAMP '2024-03-01 00:00:00' + INTERVAL '1-1' YEAR TO MONTH AS c;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT TIMESTAMP '2024-03-09 12:00:00' + INTERVAL '1 02:00:00' DAY TO SECOND AS a, TIMESTAMP '2024-03-09 12:00:00' + INTERVAL 90 MINUTES AS b;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT window.start AS s, window.end AS e, count(*) AS n FROM VALUES (timestamp_seconds(0)), (timestamp_seconds(7200)) AS v(ts) GROUP BY window(ts, '1 day');
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT hour(max(ts)) AS h, max(ts) > '1969-12-31 15:00:00' AS c, concat('x', max(ts)) AS s FROM VALUES (timestamp_seconds(0)) AS v(ts);
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT CAST(d AS TIMESTAMP) AS t, hour(CAST(d AS TIMESTAMP)) AS h FROM VALUES (DATE '2024-03-10'), (DATE '2024-11-03') AS v(d);
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT date_format(to_timestamp(s, 'dd/MM/yyyy HH:mm'), 'yyyy-MM-dd HH:mm') AS r FROM VALUES ('10/03/2024 02:30'), ('03/11/2024 01:30') AS v(s);
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT unix_timestamp(s, 'dd/MM/yyyy HH:mm') AS r FROM VALUES ('10/03/2024 02:30'), ('03/11/2024 01:30') AS v(s);
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT CAST(CAST(s AS TIMESTAMP) AS STRING) AS r FROM VALUES ('2024-03-10 02:30:00'), ('2024-11-03 01:30:00'), ('2024-11-03 01:30:00-08:00') AS v(s);
-- conf: spark.sql.session.timeZone=Asia/Kolkata
SELECT current_timezone() AS z, CAST(timestamp_seconds(0) AS STRING) AS s;
-- conf: spark.sql.session.timeZone=Asia/Kolkata
SELECT date_trunc('HOUR', timestamp_seconds(0)) AS h, hour(timestamp_seconds(0)) AS a, minute(timestamp_seconds(0)) AS b;
-- conf: spark.sql.session.timeZone=Asia/Kolkata
SELECT CAST('2024-01-01 00:00:00' AS TIMESTAMP) AS t, unix_timestamp('2024-01-01 00:00:00') AS u, from_unixtime(0) AS f;
-- conf: spark.sql.session.timeZone=Asia/Kolkata
SELECT to_date(timestamp_seconds(66600)) AS d, date_format(timestamp_seconds(66600), 'yyyy-MM-dd HH:mm') AS s;
-- conf: spark.sql.session.timeZone=+05:30
SELECT current_timezone() AS z, CAST(timestamp_seconds(0) AS STRING) AS s, CAST('1970-01-01 05:30:00' AS TIMESTAMP) AS t;
-- conf: spark.sql.session.timeZone=UTC+8
SELECT current_timezone() AS z, hour(timestamp_seconds(0)) AS h, CAST('2024-01-01 08:00:00' AS TIMESTAMP) AS t;
-- conf: spark.sql.session.timeZone=PST
SELECT current_timezone() AS z, CAST(timestamp_seconds(0) AS STRING) AS s;
-- conf: spark.sql.session.timeZone=Etc/UTC
SELECT current_timezone() AS z, CAST(timestamp_seconds(0) AS STRING) AS s;
-- conf: spark.sql.session.timeZone=America/Los_Angeles
SELECT to_timestamp_ntz('2024-01-01 10:00:00') AS t;
