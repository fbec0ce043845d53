import { cassandraTestOptions, dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { describeInstallationsApi } from './installations-suite.ts';

const keyspace = testKeyspace();

describeInstallationsApi({
  name: 'Cassandra',
  options: () => {
    const { contactPoints, localDataCenter } = cassandraTestOptions(keyspace);
    return Promise.resolve({ store: { kind: 'cassandra', contactPoints: [...contactPoints], localDataCenter, keyspace } });
  },
  cleanup: () => dropKeyspace(keyspace),
});
