CREATE STREAMING TABLE bronze AS
SELECT * FROM STREAM read_files('s3://landing/orders', format => 'json',
                                schema => 'id BIGINT, amount BIGINT');

CREATE SINK lake USING parquet OPTIONS (path 's3://lake/out');
CREATE FLOW to_lake AS INSERT INTO lake BY NAME SELECT id, amount FROM STREAM bronze;
