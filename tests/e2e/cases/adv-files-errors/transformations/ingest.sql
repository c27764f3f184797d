CREATE STREAMING TABLE long_lines AS
SELECT a, length(b) AS b_len FROM STREAM read_files('landing/long', format => 'csv', header => true);

CREATE STREAMING TABLE strict AS
SELECT * FROM STREAM read_files('landing/strict', format => 'csv', header => true,
                                schema => 'a INT, b STRING', mode => 'FAILFAST');

CREATE STREAMING TABLE blank AS
SELECT * FROM STREAM read_files('landing/blank', format => 'csv');

CREATE STREAMING TABLE blank_header AS
SELECT * FROM STREAM read_files('landing/blank_header', format => 'csv', header => true);

CREATE STREAMING TABLE blank_lines AS
SELECT * FROM STREAM read_files('landing/blank_lines', format => 'csv', header => true);
