-- One source, four sinks: every format's flow writes each batch.
CREATE SINK lake USING delta OPTIONS (path 'out/delta', partitionBy 'k');
CREATE SINK pq USING parquet OPTIONS (path 'out/parquet', partitionBy 'k');
CREATE SINK js USING json OPTIONS (path 'out/json');
CREATE SINK cs USING csv OPTIONS (path 'out/csv');

CREATE FLOW to_delta AS INSERT INTO lake BY NAME SELECT id, k, s FROM STREAM src;
CREATE FLOW to_parquet AS INSERT INTO pq BY NAME SELECT id, k, s FROM STREAM src;
CREATE FLOW to_json AS INSERT INTO js BY NAME SELECT id, k, s FROM STREAM src;
CREATE FLOW to_csv AS INSERT INTO cs BY NAME SELECT id, k, s FROM STREAM src;
