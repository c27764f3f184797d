# Kafka (src/kafka/): weir's client of Apache Kafka brokers for the Kafka
# source (src/sources/kafka.c) and sink (src/sinks/kafka.c). The only module
# that includes librdkafka's header and links it (WEIR_KAFKA_LIBS).
set(WEIR_KAFKA_SOURCES
  src/kafka/client.c
  src/kafka/consumer.c
  src/kafka/producer.c
)
set(WEIR_KAFKA_DEPS util graph)
set(WEIR_KAFKA_LIBS PkgConfig::RDKAFKA)
