-- One streaming table per format and option family of read_files.
CREATE STREAMING TABLE multi AS SELECT * FROM STREAM
  read_files('in/multi', format => 'json', multiLine => true);

CREATE STREAMING TABLE semicolons AS SELECT * FROM STREAM
  read_files('in/semi', format => 'csv', header => true, sep => ';',
             quote => '''', escape => '\\');

CREATE STREAMING TABLE pq AS SELECT * FROM STREAM
  read_files('in/pq', format => 'parquet');

CREATE STREAMING TABLE lines AS SELECT * FROM STREAM
  read_files('in/text', format => 'text');

CREATE STREAMING TABLE nested AS SELECT * FROM STREAM
  read_files('in/tree', format => 'json', recursiveFileLookup => true,
             pathGlobFilter => '*.json');

CREATE STREAMING TABLE one_file AS SELECT * FROM STREAM
  read_files('in/single/only.json', format => 'json');

CREATE STREAMING TABLE given AS SELECT * FROM STREAM
  read_files('in/given', format => 'json', schema => 'id BIGINT, label STRING');

CREATE STREAMING TABLE rescued AS SELECT * FROM STREAM
  read_files('in/rescue', format => 'json', schema => 'id BIGINT',
             schemaEvolutionMode => 'rescue');

CREATE STREAMING TABLE dropped AS SELECT * FROM STREAM
  read_files('in/drop', format => 'json', mode => 'DROPMALFORMED');

CREATE STREAMING TABLE via_cloud_files AS SELECT * FROM STREAM
  cloud_files('in/cloud', 'csv', map('header', 'true', 'cloudFiles.inferColumnTypes', 'true'));
