import type { types } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import type { CqlSession, CqlStatement } from '../../src/store/cassandra/cassandra-client.ts';
import { InstallationIndexEntries, registrationsPerBatch } from '../../src/store/cassandra/installation-index-entries.ts';
import { PlainBatcher, type BatchedRow } from '../../src/store/cassandra/partition-batcher.ts';

/** A session that records what it is sent and answers each request when `release` is called. */
class RecordingSession implements CqlSession {
  readonly sent: { kind: 'execute' | 'batch'; params: unknown[][] }[] = [];
  readonly #pending: (() => void)[] = [];
  inFlight = 0;
  maxInFlight = 0;

  execute(_query: string, params?: unknown): Promise<types.ResultSet> {
    return this.#answer({ kind: 'execute', params: [params as unknown[]] });
  }

  batch(statements: CqlStatement[]): Promise<types.ResultSet> {
    return this.#answer({ kind: 'batch', params: statements.map((statement) => statement.params as unknown[]) });
  }

  /** Answers every request sent so far. */
  releaseAll(): void {
    for (const answer of this.#pending.splice(0)) answer();
  }

  #answer(request: { kind: 'execute' | 'batch'; params: unknown[][] }): Promise<types.ResultSet> {
    this.sent.push(request);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise((resolve) =>
      this.#pending.push(() => {
        this.inFlight -= 1;
        resolve({} as types.ResultSet);
      }),
    );
  }
}

function row(group: string, id: number, maxRows?: number): BatchedRow {
  return { group, statement: { query: 'INSERT', params: [id] }, ...(maxRows === undefined ? {} : { maxRows }) };
}

/** Answers requests until every write has settled. */
async function settle(session: RecordingSession, writes: Promise<void>[]): Promise<void> {
  let done = false;
  const all = Promise.all(writes).then(() => {
    done = true;
  });
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    session.releaseAll();
  }
  await all;
}

describe('PlainBatcher', () => {
  it("writes the rows of a group queued together as one batch, a group's rows never mixed with another's", async () => {
    const session = new RecordingSession();
    const batcher = new PlainBatcher(session, { maxRows: 128, inFlight: () => 8 });
    const writes = [1, 2, 3].map((id) => batcher.write(row('a', id))).concat([batcher.write(row('b', 4))]);
    await settle(session, writes);
    expect(session.sent).toEqual([
      { kind: 'batch', params: [[1], [2], [3]] },
      { kind: 'execute', params: [[4]] },
    ]);
  });

  it("caps a batch at the batcher's maxRows, and lower still at a row's own maxRows", async () => {
    const session = new RecordingSession();
    const batcher = new PlainBatcher(session, { maxRows: 4, inFlight: () => 8 });
    const writes = [
      ...Array.from({ length: 9 }, (_, index) => batcher.write(row('wide', index))),
      ...Array.from({ length: 25 }, (_, index) => batcher.write(row('spread', 100 + index, 10))),
    ];
    await settle(session, writes);
    expect(session.sent.map((request) => request.params.length).sort((a, b) => b - a)).toEqual([4, 4, 4, 4, 4, 4, 4, 4, 1, 1]);

    const roomy = new RecordingSession();
    const narrow = new PlainBatcher(roomy, { maxRows: 128, inFlight: () => 8 });
    await settle(roomy, Array.from({ length: 25 }, (_, index) => narrow.write(row('spread', 200 + index, 10))));
    expect(roomy.sent.map((request) => request.params.map(([id]) => id))).toEqual([
      Array.from({ length: 10 }, (_, index) => 200 + index),
      Array.from({ length: 10 }, (_, index) => 210 + index),
      Array.from({ length: 5 }, (_, index) => 220 + index),
    ]);
  });

  it('closes a batch before the row that would take it past maxBytes, and sends a row larger than that alone', async () => {
    const session = new RecordingSession();
    const batcher = new PlainBatcher(session, { maxRows: 64, maxBytes: 1000, inFlight: () => 8 });
    const sizes = [400, 400, 300, 100, 2500, 10, 990, 10];
    await settle(
      session,
      sizes.map((bytes, id) => batcher.write({ ...row('docs', id), bytes })),
    );
    expect(session.sent.map((request) => request.params.map(([id]) => id))).toEqual([[0, 1], [2, 3], [4], [5, 6], [7]]);
  });

  it('has no more batches out than inFlight allows; rows queued meanwhile go in the next batches', async () => {
    const session = new RecordingSession();
    const batcher = new PlainBatcher(session, { maxRows: 128, inFlight: () => 2 });
    const writes = Array.from({ length: 30 }, (_, index) => batcher.write(row(`g${String(index % 5)}`, index)));
    await settle(session, writes);
    expect(session.maxInFlight).toBe(2);
    expect(session.sent).toHaveLength(5);
  });
});

describe('InstallationIndexEntries.addRows', () => {
  it("groups an app's registrationId entries, each its own partition, at most registrationsPerBatch a batch, and a channel's entries by partition", () => {
    const entries = new InstallationIndexEntries(new RecordingSession(), 'ks', () => 3);
    const rows = entries.addRows('app1', 'obj1', ['c:news', 'r:fcm-1'], 42);
    expect(rows).toEqual([
      expect.objectContaining({ group: 'channel\u0000app1\u0000news\u00003', statement: expect.objectContaining({ params: ['app1', 'news', 3, 'obj1', 42] }) }),
      expect.objectContaining({ group: 'r\u0000app1', maxRows: registrationsPerBatch, statement: expect.objectContaining({ params: ['app1', 'fcm-1', 'obj1', 42] }) }),
    ]);
    expect(rows[0]).not.toHaveProperty('maxRows');
    expect(registrationsPerBatch).toBeLessThanOrEqual(10);
  });
});
