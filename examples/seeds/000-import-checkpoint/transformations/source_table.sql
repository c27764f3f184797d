-- The table the original Structured Streaming query read (the page assumes
-- it exists).
CREATE STREAMING TABLE source_table AS
SELECT * FROM STREAM read_files('data/source', format => 'json');
