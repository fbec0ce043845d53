import { describeInstallationsApi } from './installations-suite.ts';

import { testBackends } from '../support/test-backends.ts';

// The distributed test project runs this file again on Cassandra, Redis and Kafka.
describeInstallationsApi({ name: `the ${testBackends()} backends`, options: () => Promise.resolve({}), cleanup: () => Promise.resolve() });
