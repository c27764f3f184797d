CREATE STREAMING TABLE bronze AS
SELECT * FROM STREAM read_files('s3://landing/orders', format => 'json',
                                schema => 'id BIGINT, k BIGINT');

CREATE SINK pq USING parquet OPTIONS (path 's3://lake/out/pq', partitionBy 'k');
CREATE FLOW to_pq AS INSERT INTO pq BY NAME SELECT id, k FROM STREAM bronze;

CREATE SINK csv_out USING csv
OPTIONS (path 's3://lake/out/csv', header 'true', compression 'gzip');
CREATE FLOW to_csv AS INSERT INTO csv_out BY NAME SELECT id, k FROM STREAM bronze;
