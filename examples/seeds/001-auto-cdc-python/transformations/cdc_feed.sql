CREATE STREAMING TABLE customers_cdc AS
SELECT * FROM STREAM read_files('data/cdc', format => 'json');
