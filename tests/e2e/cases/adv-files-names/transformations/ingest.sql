CREATE STREAMING TABLE glob_names AS
SELECT id, _metadata.file_name AS file FROM STREAM read_files('landing/g', format => 'json');

CREATE STREAMING TABLE bracket_folder AS
SELECT id FROM STREAM read_files('landing/land[1]', format => 'json');

CREATE MATERIALIZED VIEW bracket_folder_batch AS
SELECT id FROM read_files('landing/land[1]', format => 'json');

CREATE STREAMING TABLE odd_names AS
SELECT id, _metadata.file_name AS file FROM STREAM read_files('landing/odd', format => 'json');
