-- The Structured Streaming query of spark-4.1/ (tests/spark/
-- checkpoint-job.py) as a flow that imports its checkpoint.
CREATE STREAMING TABLE events;

CREATE FLOW migrate
OPTIONS (import_checkpoint 'cp/files')
AS INSERT INTO events BY NAME
SELECT id, name FROM STREAM read_files('input', format => 'json',
                                       schema => 'id BIGINT, name STRING');
