CREATE STREAMING TABLE feed AS
SELECT id, seq, op, name FROM STREAM read_files('landing', format => 'json');
