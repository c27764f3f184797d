-- A stream of the Delta table events: each batch reads the files of the
-- versions appended since the last (stored as Delta too).
CREATE STREAMING TABLE fives USING DELTA AS
SELECT id, k FROM STREAM events WHERE id % 5 = 0;
