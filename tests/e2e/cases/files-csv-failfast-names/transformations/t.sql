CREATE STREAMING TABLE t AS
SELECT * FROM STREAM read_files('land', format => 'csv', header => true, mode => 'FAILFAST');
