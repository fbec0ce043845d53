import { defineConfig } from 'vitest/config';
import { httpSuites, runSettings } from './vitest.config.ts';

/**
 * Test files that need the local Cassandra, Kafka or Redis (or start a
 * redis-server of their own), by folder or by name. A new file that needs a
 * service belongs here.
 */
export const serviceTests = [
  // several Herald processes on Cassandra, Redis and Kafka
  'test/cluster/**/*.test.ts',
  // stops and restarts the shared services
  'test/outage/**/*.test.ts',
  // kills and restarts nodes of the replicated cluster (vitest.replicated.config.ts)
  'test/replicated/**/*.test.ts',
  'test/store/cassandra-*.test.ts',
  'test/import/cassandra-*.test.ts',
  'test/bus/kafka-*.test.ts',
  'test/coord/redis-coordination.test.ts',
  // the secured listeners of the local Redis (TLS port, ACL user)
  'test/coord/redis-secured.test.ts',
  // a redis-server of the test's own, stopped and restarted
  'test/coord/redis-outage.test.ts',
  'test/api/lock-persistence.test.ts',
  // the account rules once on in-memory coordination and once on Redis
  'test/api/account-takeover.test.ts',
  'test/api/lock-bursts.test.ts',
  'test/api/sms-code-attacks.test.ts',
  // docker-compose.yml's Herald commands, run against the local services
  'test/image/compose-services.test.ts',
];

/**
 * Tests of a whole Herald: the HTTP and gRPC suites start one in the test
 * process per file, test/process runs it as a child process (from this
 * checkout or from a production install). They need no service, but they
 * are most of the suite's time. test/contract runs schemathesis (Python, made
 * by scripts/tools/schemathesis.ts) against a Herald process.
 */
export const wholeHeraldTests = [...httpSuites, 'test/process/**/*.test.ts', 'test/contract/**/*.test.ts', 'test/console/browser/**/*.test.ts', 'test/console/process/**/*.test.ts', 'test/image/import-in-image.test.ts', 'test/docs/examples.test.ts'];

/** The Helm chart and the monitoring files, checked with helm and a Prometheus server: tools beyond Node. */
export const deployTests = ['test/deploy/**/*.test.ts'];

/**
 * Where the unit run tells the tests the services are: ports on which nothing
 * listens, so a file that needs a service but is missing from `serviceTests`
 * fails at once with ECONNREFUSED on every machine, instead of passing here
 * because a developer's services happen to run
 * (scripts/services/service-ports.ts reads these variables).
 */
export const noServices = {
  HERALD_SERVICES_CASSANDRA_PORT: '1',
  HERALD_SERVICES_CASSANDRA_STORAGE_PORT: '2',
  HERALD_SERVICES_KAFKA_PORT: '3',
  HERALD_SERVICES_KAFKA_CONTROLLER_PORT: '4',
  HERALD_SERVICES_REDIS_PORT: '5',
  HERALD_SERVICES_KAFKA_SASL_SSL_PORT: '6',
  HERALD_SERVICES_KAFKA_SSL_PORT: '7',
  HERALD_SERVICES_REDIS_TLS_PORT: '8',
  HERALD_SERVICES_CASSANDRA_SECURED_PORT: '9',
  HERALD_SERVICES_CASSANDRA_SECURED_STORAGE_PORT: '10',
};

/**
 * The inner loop, `npm run test:unit`: the tests of Herald's parts, with no
 * service, no whole Herald and no deployment tooling, and without the global
 * setup that starts the services. What it leaves out is chosen by file, never skipped at run time;
 * `npm test` runs everything.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...serviceTests, ...wholeHeraldTests, ...deployTests, 'node_modules/**'],
    env: noServices,
    ...runSettings,
  },
});
