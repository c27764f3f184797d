CREATE STREAMING TABLE bronze AS
SELECT * FROM STREAM read_files('s3a://landing/orders', format => 'json',
                                schema => 'id BIGINT, amount BIGINT');
CREATE STREAMING TABLE big AS
SELECT * FROM STREAM read_files('s3://landing/many/', format => 'json',
                                schema => 'id BIGINT, amount BIGINT');
CREATE STREAMING TABLE again AS
SELECT * FROM STREAM read_files('s3://landing/orders', format => 'json',
                                schema => 'id BIGINT, amount BIGINT',
                                allowOverwrites => 'true');
