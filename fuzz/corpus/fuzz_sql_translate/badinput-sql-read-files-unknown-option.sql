SELECT * FROM STREAM read_files('data', format => 'json', bogusOption => 'x')
