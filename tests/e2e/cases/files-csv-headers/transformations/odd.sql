-- Headers DuckDB reads otherwise than they are written (CRLF, spaces, an
-- empty name, a name twice): read by position, as before.
CREATE STREAMING TABLE o AS
SELECT o.*, o._metadata.file_name AS f FROM STREAM read_files('odd', format => 'csv', header => true) o
WHERE EXISTS (SELECT * FROM (SELECT 1 AS x));
