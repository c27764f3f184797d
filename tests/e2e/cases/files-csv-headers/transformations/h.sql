-- Files whose headers name the columns in other orders.
CREATE STREAMING TABLE h AS
SELECT *, _metadata.file_name AS fn FROM STREAM read_files('hdr', format => 'csv', header => true);
