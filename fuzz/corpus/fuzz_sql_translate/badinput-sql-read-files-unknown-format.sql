SELECT * FROM STREAM read_files('data', format => 'xml')
