CREATE STREAMING TABLE grown AS
SELECT id FROM STREAM read_files('landing/grown', format => 'json');

CREATE STREAMING TABLE overwritten AS
SELECT id FROM STREAM read_files('landing/overwritten', format => 'json',
                                 allowOverwrites => true);

CREATE STREAMING TABLE live AS
SELECT id, _metadata.file_name AS file FROM STREAM read_files('landing/live', format => 'json');
