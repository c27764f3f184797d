-- src -> bronze -> silver (plus a once backfill into silver) -> a sink.
CREATE STREAMING TABLE bronze AS SELECT id FROM STREAM src;

CREATE STREAMING TABLE silver AS SELECT id, 'live' AS origin FROM STREAM bronze;

CREATE FLOW history AS INSERT INTO ONCE silver BY NAME
SELECT id, 'history' AS origin FROM range(1000, 1010) AS t(id);

CREATE SINK out USING parquet OPTIONS (path 'out/silver');
CREATE FLOW to_out AS INSERT INTO out BY NAME SELECT id FROM STREAM bronze;
