-- Two sinks: a relative path in the project, an absolute one elsewhere.
CREATE STREAMING TABLE orders AS SELECT * FROM STREAM src;

CREATE SINK near USING json OPTIONS (path 'out/orders');
CREATE FLOW to_near AS INSERT INTO near BY NAME SELECT id FROM STREAM orders;

CREATE SINK far USING parquet OPTIONS (path '${abs_out}');
CREATE FLOW to_far AS INSERT INTO far BY NAME SELECT id FROM STREAM orders;
