CREATE MATERIALIZED VIEW mv AS SELECT * FROM STREAM read_files(format => 'json');
