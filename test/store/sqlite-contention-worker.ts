// Runs in a worker thread: opens its own SqliteStore on a shared file, waits
// for "go", then inserts one user per username and increments a shared
// counter, and reports which usernames it won.
import { parentPort, workerData } from 'node:worker_threads';
import { DuplicateValueError } from '../../src/core/errors.ts';
import type { ClassDescriptors } from '../../src/core/ports/object-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

export interface ContentionJob {
  file: string;
  appId: string;
  worker: number;
  usernames: string[];
  /** objectId of a `Counter` object to increment `increments` times. */
  counterId: string;
  increments: number;
}

export interface ContentionReport {
  won: string[];
  duplicates: number;
  errors: string[];
}

const classes: ClassDescriptors = {
  _User: { uniqueKeys: (user) => (typeof user.username === 'string' ? [{ field: 'username', value: user.username }] : []) },
};

const job = workerData as ContentionJob;
const store = new SqliteStore({ file: job.file, classes, busyTimeoutMs: 30_000 });

parentPort?.once('message', () => {
  void run();
});
parentPort?.postMessage('ready');

async function run(): Promise<void> {
  const report: ContentionReport = { won: [], duplicates: 0, errors: [] };
  const at = new Date().toISOString();
  for (const username of job.usernames) {
    try {
      await store.insert(job.appId, '_User', { objectId: `w${job.worker}-${username}`, createdAt: at, updatedAt: at, username });
      report.won.push(username);
    } catch (error) {
      if (error instanceof DuplicateValueError) report.duplicates += 1;
      else report.errors.push(String(error));
    }
  }
  for (let count = 0; count < job.increments; count += 1) {
    try {
      const ops = [{ op: 'increment' as const, path: ['value'], amount: 1 }];
      await store.update(job.appId, 'Counter', job.counterId, ops, { updatedAt: new Date().toISOString() });
    } catch (error) {
      report.errors.push(String(error));
    }
  }
  await store.close();
  parentPort?.postMessage(report);
}
