CREATE STREAMING TABLE src AS SELECT * FROM STREAM read_files('data', format => 'json');
CREATE VIEW v AS SELECT * FROM STREAM src;
