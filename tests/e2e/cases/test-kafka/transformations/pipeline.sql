-- Kafka -> bronze -> silver -> Kafka. The broker address is a closed
-- port: weir test must never try it.
CREATE STREAMING TABLE orders_bronze AS
SELECT * FROM STREAM read_kafka(
  bootstrapServers => '127.0.0.1:9',
  subscribe => 'orders',
  startingOffsets => 'earliest',
  includeHeaders => 'true');

CREATE STREAMING TABLE orders_silver (
  CONSTRAINT has_id EXPECT (order_id IS NOT NULL) ON VIOLATION DROP ROW
) AS
SELECT CAST(key AS STRING) AS customer, o.order_id, o.amount,
       `partition` AS src_partition, `offset` AS src_offset
FROM (SELECT key, `partition`, `offset`,
             from_json(CAST(value AS STRING), 'order_id BIGINT, amount DOUBLE') AS o
      FROM STREAM orders_bronze);

CREATE SINK clean_out USING kafka
OPTIONS ('kafka.bootstrap.servers' '127.0.0.1:9', topic 'orders_clean');
CREATE FLOW publish_clean AS INSERT INTO clean_out BY NAME
SELECT customer AS key, to_json(named_struct('id', order_id, 'amount', amount)) AS value,
       array(named_struct('key', 'src', 'value', CAST(CAST(src_offset AS STRING) AS BINARY))) AS headers
FROM STREAM orders_silver;
