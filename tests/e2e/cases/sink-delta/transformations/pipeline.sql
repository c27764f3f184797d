-- Source rows -> a Delta Lake table partitioned by k.
CREATE SINK lake USING delta OPTIONS (path 'out/lake', partitionBy 'k');

CREATE FLOW to_delta AS INSERT INTO lake BY NAME
SELECT id, k, s, CAST(id AS DECIMAL(12, 2)) AS amount,
       timestamp_seconds(1704067200 + id) AS ts
FROM STREAM src;
