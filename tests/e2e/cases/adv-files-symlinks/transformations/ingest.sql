CREATE STREAMING TABLE events AS
SELECT id, _metadata.file_path AS path
FROM STREAM read_files('landing', format => 'json', recursiveFileLookup => true);
