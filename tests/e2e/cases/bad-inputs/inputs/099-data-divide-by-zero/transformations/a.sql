CREATE STREAMING TABLE st AS SELECT 10 / (id - 3) AS q FROM STREAM read_files('landing', format => 'json');
