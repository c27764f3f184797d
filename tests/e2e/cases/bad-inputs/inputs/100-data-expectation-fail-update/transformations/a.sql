CREATE STREAMING TABLE st (CONSTRAINT positive EXPECT (id > 0) ON VIOLATION FAIL UPDATE) AS SELECT * FROM STREAM read_files('landing', format => 'json');
