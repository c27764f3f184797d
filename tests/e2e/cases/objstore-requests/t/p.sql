CREATE STREAMING TABLE bronze AS
SELECT * FROM STREAM read_files('s3://landing/orders', format => 'json',
                                schema => 'id BIGINT, amount BIGINT');
