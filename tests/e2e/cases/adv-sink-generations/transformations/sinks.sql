-- One source, one sink of each format.
CREATE SINK pq USING parquet OPTIONS (path 'out/pq');
CREATE FLOW to_pq AS INSERT INTO pq BY NAME SELECT id, s FROM STREAM src;

CREATE SINK js USING json OPTIONS (path 'out/js');
CREATE FLOW to_js AS INSERT INTO js BY NAME SELECT id, s FROM STREAM src;

CREATE SINK cs USING csv OPTIONS (path 'out/cs');
CREATE FLOW to_cs AS INSERT INTO cs BY NAME SELECT id, s FROM STREAM src;

CREATE SINK dl USING delta OPTIONS (path 'out/dl');
CREATE FLOW to_dl AS INSERT INTO dl BY NAME SELECT id, s FROM STREAM src;
