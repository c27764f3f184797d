-- Files as they land, into one sink of each format with a path: relative
-- paths in the project and an absolute one elsewhere (${abs_out}).
CREATE STREAMING TABLE events
AS SELECT * FROM STREAM read_files('landing', format => 'csv', header => true);

CREATE SINK pq USING parquet OPTIONS (path 'out/pq', partitionBy 'k');
CREATE FLOW to_pq AS INSERT INTO pq BY NAME SELECT id, k FROM STREAM events;

CREATE SINK js USING json OPTIONS (path 'out/js');
CREATE FLOW to_js AS INSERT INTO js BY NAME SELECT id, k FROM STREAM events;

CREATE SINK far USING csv OPTIONS (path '${abs_out}', header 'true');
CREATE FLOW to_far AS INSERT INTO far BY NAME SELECT id, k FROM STREAM events;

CREATE SINK lake USING delta OPTIONS (path 'out/lake', partitionBy 'k');
CREATE FLOW to_lake AS INSERT INTO lake BY NAME SELECT id, k FROM STREAM events;
