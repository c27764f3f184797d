-- Source rows -> a JSON-lines sink.
CREATE SINK events_out USING json OPTIONS (path 'out/events');

CREATE FLOW to_json AS INSERT INTO events_out BY NAME
SELECT id, named_struct('n', id, 'tags', array('a', 'b')) AS info,
       CAST(id AS DECIMAL(10, 2)) AS amount
FROM STREAM src;
