-- Incremental file ingestion: JSON lines with an inferred, stored and
-- evolving schema, rescued data and file metadata; CSV with header and a
-- schema hint; a folder that does not exist yet.
CREATE STREAMING TABLE events AS
SELECT *, _metadata.file_name AS source_file
FROM STREAM read_files('landing/events', format => 'json');

CREATE STREAMING TABLE people AS
SELECT * FROM STREAM read_files('landing/people', format => 'csv',
                                header => true, schemaHints => 'age BIGINT');

CREATE STREAMING TABLE later AS
SELECT * FROM STREAM read_files('landing/not_yet', format => 'json',
                                schema => 'id BIGINT, note STRING');

CREATE STREAMING TABLE strict_events AS
SELECT * FROM STREAM read_files('landing/strict', format => 'json',
                                schemaEvolutionMode => 'failOnNewColumns');
