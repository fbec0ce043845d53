import { systemClock } from '../../src/core/clock.ts';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.ts';
import { cassandraTestOptions, dropKeyspace, testKeyspace } from './cassandra-test-keyspace.ts';
import { describeDeliveryLogConformance } from './delivery-log-conformance.ts';

describeDeliveryLogConformance('Cassandra', async () => {
  const keyspace = testKeyspace();
  const store = await CassandraStore.open({ ...cassandraTestOptions(keyspace), classes: {}, clock: systemClock });
  return {
    store,
    expiresByItself: true,
    cleanup: async () => {
      await store.close();
      await dropKeyspace(keyspace);
    },
  };
});
