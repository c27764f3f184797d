CREATE STREAMING TABLE events AS
SELECT * FROM STREAM read_files('data/events', format => 'json');
