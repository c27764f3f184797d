CREATE MATERIALIZED VIEW orders AS
SELECT * FROM read_files('s3a://landing/orders/*.json', format => 'json');
CREATE MATERIALIZED VIEW one AS SELECT * FROM json.`s3://landing/orders/b.json`;
CREATE MATERIALIZED VIEW dims AS SELECT * FROM csv.`s3://landing/dims/c.csv`;
