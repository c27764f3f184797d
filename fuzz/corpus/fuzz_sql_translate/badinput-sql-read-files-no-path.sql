SELECT * FROM STREAM read_files(format => 'json')
