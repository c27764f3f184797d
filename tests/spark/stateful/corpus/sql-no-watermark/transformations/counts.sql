-- Append mode (a streaming table's) cannot emit a group that may still
-- change: Spark fails the flow.
CREATE STREAMING TABLE per_key AS
SELECT k, count(*) AS n, sum(v) AS total FROM STREAM(events) GROUP BY k;
