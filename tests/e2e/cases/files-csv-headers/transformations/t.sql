CREATE STREAMING TABLE t AS
SELECT * FROM STREAM read_files('landing', format => 'csv', header => true);
