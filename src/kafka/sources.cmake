# Kafka (src/kafka/): weir's client of Apache Kafka brokers for the Kafka
# source (src/sources/kafka.c) and sink (src/sinks/kafka.c). The only module
# that includes librdkafka's header; it loads the library when a client is
# first configured (rdk.c), so only the header is needed to build it.
set(WEIR_KAFKA_SOURCES
  src/kafka/client.c
  src/kafka/consumer.c
  src/kafka/producer.c
  src/kafka/rdk.c
)
set(WEIR_KAFKA_DEPS util graph)
set(WEIR_KAFKA_LIBS weir_rdkafka_header)
