CREATE STREAMING TABLE st AS SELECT CAST(name AS INT) AS n FROM STREAM read_files('landing', format => 'json');
