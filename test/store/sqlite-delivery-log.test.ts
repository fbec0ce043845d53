import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../src/core/clock.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { describeDeliveryLogConformance } from './delivery-log-conformance.ts';

describeDeliveryLogConformance('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'herald-delivery-log-'));
  const store = new SqliteStore({ file: join(dir, 'herald.db'), classes: {}, clock: systemClock });
  return {
    store,
    expiresByItself: false,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
