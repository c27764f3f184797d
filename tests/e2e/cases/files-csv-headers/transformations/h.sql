-- Files whose headers name the columns in other orders.
CREATE STREAMING TABLE h AS
SELECT *, _metadata.file_name AS fn FROM STREAM read_files('hdr', format => 'csv', header => true);

-- A given schema: fields it lacks are rescued.
CREATE STREAMING TABLE hr AS
SELECT * FROM STREAM read_files('hdr', format => 'csv', header => true,
                                schema => 'id INT, a STRING',
                                rescuedDataColumn => '_rescued_data');
