CREATE STREAMING TABLE st AS SELECT * FROM STREAM read_files('data', format => 'xml');
