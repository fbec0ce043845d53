import { errors, types } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from '../../src/store/cassandra/adaptive-limit.ts';
import type { CqlSession } from '../../src/store/cassandra/cassandra-client.ts';
import { CassandraGoneError, PacedSession } from '../../src/store/cassandra/paced-session.ts';

const writeTimeout = () => new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'Operation timed out - received only 0 responses.');
const overloaded = () => new errors.ResponseError(types.responseErrorCodes.overloaded, 'Server is in overloaded state');
const noHost = () => new errors.NoHostAvailableError({}, 'All host(s) tried for query failed');
const answered = { rows: [] } as unknown as types.ResultSet;

/** A session whose answers a test scripts per query, on a clock that only sleeps move. */
function scripted(answers: Record<string, () => Error | null>): { session: CqlSession; clock: { now: number }; sent: string[] } {
  const clock = { now: 0 };
  const sent: string[] = [];
  const answer = (query: string): Promise<types.ResultSet> => {
    sent.push(query);
    clock.now += 10;
    const failure = answers[query]?.() ?? null;
    return failure === null ? Promise.resolve(answered) : Promise.reject(failure);
  };
  return { clock, sent, session: { execute: (query) => answer(query), batch: (statements) => answer(statements[0]?.query ?? '') } };
}

function paced(session: CqlSession, clock: { now: number }, patienceMs = 60_000, signal?: AbortSignal): PacedSession {
  return new PacedSession(session, {
    limit: new AdaptiveLimit({ initial: 64, min: 1, max: 64 }),
    patienceMs,
    signal,
    now: () => clock.now,
    sleep: (ms) => {
      clock.now += ms;
      return Promise.resolve();
    },
    random: () => 1,
  });
}

describe('PacedSession', () => {
  it('sends a statement again while the node times out or says it is overloaded, and shrinks the writes in flight', async () => {
    const failures = [writeTimeout(), overloaded(), writeTimeout()];
    const { session, clock, sent } = scripted({ 'INSERT x': () => failures.shift() ?? null });
    const writes = paced(session, clock);
    await expect(writes.execute('INSERT x')).resolves.toBe(answered);
    expect(sent).toHaveLength(4);
    expect(writes.report()).toMatchObject({ answered: 1, retried: 3, congested: 3, unreachable: 0, startingLimit: 64, lowestLimit: 8, lastLatencyMs: 10 });
  });

  it('keeps trying a statement past the patience while other statements are answered: a slow node is not gone', async () => {
    let failing = true;
    const { session, clock } = scripted({ 'INSERT slow': () => (failing ? writeTimeout() : null), 'SELECT fine': () => null });
    const writes = paced(session, clock, 10_000);
    const slow = writes.execute('INSERT slow');
    // Each retry of the slow one is followed by an answered read.
    for (let n = 0; n < 20; n += 1) await writes.execute('SELECT fine');
    failing = false;
    await expect(slow).resolves.toBe(answered);
    expect(clock.now).toBeGreaterThan(10_000);
  });

  it('gives up once nothing has been answered for the patience, saying what it saw', async () => {
    const { session, clock } = scripted({ 'SELECT fine': () => null, 'INSERT x': () => (clock.now < 3000 ? writeTimeout() : noHost()) });
    const writes = paced(session, clock, 30_000);
    await writes.execute('SELECT fine');
    const error = await writes.execute('INSERT x').catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(CassandraGoneError);
    const gone = error as CassandraGoneError;
    expect(gone.retryable).toBe(false);
    expect(gone.report).toMatchObject({ answered: 1, lastLatencyMs: 10 });
    expect(gone.report.congested).toBeGreaterThan(0);
    expect(gone.report.unreachable).toBeGreaterThan(0);
    expect(gone.message).toMatch(/^Cassandra is unavailable; retry later: nothing answered for 30 s while retrying \(\d+ timeouts or overloaded answers, \d+ unreachable, \d+ retries; last: NoHostAvailableError: All host\(s\) tried for query failed\); 1 statements were answered before, the last in 10 ms, \d+ s ago; \d+ statements in flight allowed at the end \(64 at the start, \d+ at the lowest\)$/);
  });

  it('passes on a failure that is not Cassandra being slow or gone, without sending it again', async () => {
    const invalid = new errors.ResponseError(types.responseErrorCodes.invalid, 'Undefined column name nope');
    const { session, clock, sent } = scripted({ 'INSERT nope': () => invalid });
    await expect(paced(session, clock).execute('INSERT nope')).rejects.toBe(invalid);
    expect(sent).toHaveLength(1);
  });

  it('stops sending again once its signal is aborted', async () => {
    const stop = new AbortController();
    const { session, clock, sent } = scripted({ 'INSERT x': () => noHost() });
    const writes = paced(session, clock, 60_000, stop.signal);
    stop.abort();
    await expect(writes.execute('INSERT x')).rejects.toBeInstanceOf(errors.NoHostAvailableError);
    expect(sent).toHaveLength(1);
  });
});
