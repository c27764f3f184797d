CREATE STREAMING TABLE orders AS
SELECT * FROM STREAM read_files('data', format => 'json');
