CREATE STREAMING TABLE bronze AS
SELECT * FROM STREAM read_files('s3://landing/orders', format => 'json',
                                schema => 'id BIGINT, amount BIGINT, day STRING');

CREATE SINK pq USING parquet OPTIONS (path 's3a://lake/out/pq');
CREATE FLOW to_pq AS INSERT INTO pq BY NAME SELECT id, amount, day FROM STREAM bronze;

CREATE SINK part USING parquet OPTIONS (path 's3://lake/out/part', partitionBy 'day');
CREATE FLOW to_part AS INSERT INTO part BY NAME SELECT id, amount, day FROM STREAM bronze;

CREATE SINK csv_out USING csv
OPTIONS (path 's3://lake/out/csv', header 'true', sep ';', compression 'gzip');
CREATE FLOW to_csv AS INSERT INTO csv_out BY NAME SELECT id, amount FROM STREAM bronze;

CREATE SINK json_out USING json OPTIONS (path 's3://lake/out/json');
CREATE FLOW to_json AS INSERT INTO json_out BY NAME SELECT id, amount FROM STREAM bronze;
