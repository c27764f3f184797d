-- Timestamps read and written as wall clocks of the pipeline's zone
-- (America/Los_Angeles), across the spring-forward gap of 2024-03-10.
CREATE MATERIALIZED VIEW events AS
SELECT id, CAST(s AS TIMESTAMP) AS ts
FROM VALUES (1, '2024-01-15 10:00:00'), (2, '2024-03-10 02:30:00'),
            (3, '2024-07-01 23:00:00') AS v(id, s);

CREATE MATERIALIZED VIEW local_fields (
  CONSTRAINT evening EXPECT (ts < '2024-07-01 23:30:00') ON VIOLATION FAIL UPDATE
) AS
SELECT id, ts, unix_timestamp(ts) AS unix, hour(ts) AS h,
       CAST(ts AS STRING) AS s, date_format(ts, 'yyyy-MM-dd HH:mm') AS f,
       to_date(ts) AS d, current_timezone() AS z
FROM events;

SET spark.sql.session.timeZone = Asia/Kolkata;
CREATE MATERIALIZED VIEW kolkata AS
SELECT id, CAST(ts AS STRING) AS s, current_timezone() AS z FROM events;
