-- A folder that Spark wrote (out/): part files, their .crc checksums and
-- the file sink's _spark_metadata log; read in batch and as a stream.
CREATE MATERIALIZED VIEW batch_read AS
SELECT count(*) AS n, sum(id) AS total FROM read_files('out', format => 'json');

CREATE STREAMING TABLE stream_read AS
SELECT id, name FROM STREAM read_files('out', format => 'json');
