import { serviceHost, servicePorts } from '../../scripts/services/service-ports.ts';

/** Where tests reach the local services that `npm run services -- up` starts. */
export const serviceEndpoints = {
  cassandra: {
    contactPoints: [`${serviceHost}:${servicePorts.cassandraNative}`],
    localDataCenter: 'datacenter1',
  },
  kafka: { brokers: [`${serviceHost}:${servicePorts.kafkaBroker}`] },
  redis: { url: `redis://${serviceHost}:${servicePorts.redis}` },
} as const;
