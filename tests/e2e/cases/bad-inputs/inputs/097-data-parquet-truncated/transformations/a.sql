CREATE STREAMING TABLE st AS SELECT * FROM STREAM read_files('landing', format => 'parquet');
