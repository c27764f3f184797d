-- A file source inside the project folder, and one outside it.
CREATE STREAMING TABLE inside AS
SELECT id FROM STREAM read_files('landing', format => 'json');

CREATE STREAMING TABLE outside AS
SELECT id FROM STREAM read_files('${OUTSIDE}', format => 'json');
