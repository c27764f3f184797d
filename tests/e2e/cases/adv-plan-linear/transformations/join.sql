-- Two streaming tables, one with a DECIMAL column, and a materialized view
-- joining them ON arithmetic (refreshed incrementally or recomputed from
-- the second update on).
CREATE STREAMING TABLE dd AS
SELECT * FROM STREAM read_files('data/dd', format => 'csv', schema => 'x BIGINT, m DECIMAL(10,2)');

CREATE STREAMING TABLE ee AS
SELECT * FROM STREAM read_files('data/ee', format => 'csv', schema => 'y BIGINT');

CREATE MATERIALIZED VIEW joined AS
SELECT dd.x, dd.m, ee.y, dd.m * 2 AS m2
FROM dd JOIN ee ON dd.x + 1 = ee.y AND dd.m * 2 > ee.y - 10;
