-- Spark keeps the count of rows written as state: the table gets the
-- first 12 rows with v > 10 over all updates, then no more.
CREATE STREAMING TABLE first_rows AS
SELECT id, k, v FROM STREAM(events) WHERE v > 10 LIMIT 12;
