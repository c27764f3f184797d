CREATE STREAMING TABLE t AS
SELECT * FROM
  STREAM read_kafka(bootstrapServers => '127.0.0.1:1', subscribe => 'a', assign => '{"a": [0]}');
