CREATE STREAMING TABLE cased AS
SELECT * FROM STREAM read_files('landing/cased', format => 'json');

CREATE STREAMING TABLE odd AS
SELECT * FROM STREAM read_files('landing/odd', format => 'json');

CREATE STREAMING TABLE both_kinds AS
SELECT * FROM STREAM read_files('landing/both', format => 'json');
