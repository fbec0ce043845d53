/**
 * Loopback ports of the local services that `npm run services` starts for
 * development and tests. They are deliberately not the defaults (9042, 9092,
 * 6379), so a Cassandra, Kafka or Redis the developer already runs is never
 * touched.
 */
export const servicePorts = {
  cassandraNative: 19042,
  cassandraStorage: 17000,
  kafkaBroker: 19092,
  kafkaController: 19093,
  redis: 16379,
} as const;

export const serviceHost = '127.0.0.1';
