import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/http2/connection-error.ts';
import { FrameType } from '../../src/http2/frame-types.ts';
import type { H2FailureReason } from '../../src/http2/h2-failure.ts';
import { H2Pool } from '../../src/http2/h2-pool.ts';
import type { H2Answer } from '../../src/http2/h2-request.ts';
import { keptBodyLimit } from '../../src/http2/kept-body.ts';
import { makeCase, type FuzzCase } from './support/fuzz/fuzz-case.ts';
import { FuzzServer } from './support/fuzz/fuzz-server.ts';
import { memoryInUse } from './support/memory.ts';

/**
 * Thousands of frame sequences, random or valid answers spoilt, each sent by
 * a hostile server to Herald's client while it waits for one or two answers.
 * Every case must end with valid answers or failures to send again — never
 * an exception, never a request past its deadline, never a connection left
 * open — and memory must not keep growing. The run is seeded:
 * HERALD_FUZZ_SEED replays it, HERALD_FUZZ_CASE one case of it,
 * HERALD_FUZZ_CASES sets how many (10,000 unless told: about 6 s on two
 * cores).
 */
const seed = process.env.HERALD_FUZZ_SEED === undefined ? Math.floor(Math.random() * 2 ** 32) : whole('HERALD_FUZZ_SEED', process.env.HERALD_FUZZ_SEED);
const only = process.env.HERALD_FUZZ_CASE === undefined ? undefined : whole('HERALD_FUZZ_CASE', process.env.HERALD_FUZZ_CASE);
const caseCount = whole('HERALD_FUZZ_CASES', process.env.HERALD_FUZZ_CASES ?? '10000');

function whole(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${text}`);
  return value;
}

/** Cases played at once, each against a server of its own. */
const lanes = 24;
/** How late past its deadline a request may settle on a busy machine (the deadline sweep runs every eighth of it). */
const lateness = 2000;
const failureReasons: readonly H2FailureReason[] = ['ConnectFailed', 'ConnectionLost', 'ConnectionUnavailable', 'GoAway', 'StreamRefused', 'StreamReset', 'Timeout'];
const knownCodes = new Set<number>(Object.values(ErrorCode));

/** Plays one case; answers what is wrong with how the client took it (nothing if all is well). */
async function play(fuzzCase: FuzzCase, server: FuzzServer, port: number): Promise<string[]> {
  const problems: string[] = [];
  server.play(fuzzCase);
  const pool = new H2Pool({
    origin: `https://127.0.0.1:${port}`,
    tls: {},
    connections: 1,
    requestTimeoutMs: fuzzCase.patienceMs,
    pingIntervalMs: 60_000,
    dial: () => connect(port, '127.0.0.1'),
  });
  const started = performance.now();
  const answers = await Promise.all(
    fuzzCase.bodies.map(async (length, n) => {
      const answer: H2Answer = await pool.exchange({ path: `/3/device/${n}`, pathRepeats: false, headers: ['apns-topic', 'com.example.app'], body: Buffer.alloc(length, 0x7b) });
      return { answer, after: performance.now() - started };
    }),
  );
  for (const [n, { answer, after }] of answers.entries()) {
    if (after > fuzzCase.patienceMs + lateness) problems.push(`request ${n} settled ${Math.round(after)} ms after it started`);
    if (answer.failure === undefined) {
      if (!(answer.status >= 200 && answer.status <= 599)) problems.push(`request ${n} answered with status ${answer.status}`);
      if ((answer.body?.length ?? 0) > keptBodyLimit) problems.push(`request ${n} kept a body of ${answer.body?.length} bytes`);
      const expected = fuzzCase.expected?.get(fuzzCase.streams[n] as number);
      if (expected !== undefined && (answer.status !== expected.status || !sameBody(answer.body, expected.body))) {
        problems.push(`request ${n} read ${answer.status} with ${answer.body?.length ?? 0} bytes of body where the server sent ${expected.status} with ${expected.body?.length ?? 0}`);
      }
    } else {
      if (answer.status !== 0) problems.push(`request ${n} failed with a status of ${answer.status}`);
      if (!failureReasons.includes(answer.failure.reason) || !answer.failure.retryable) problems.push(`request ${n} failed as ${JSON.stringify(answer.failure)}`);
      if (fuzzCase.expected !== undefined) problems.push(`request ${n} of valid answers failed as ${answer.failure.reason}`);
    }
  }
  const closing = await settlesWithin(pool.close(), 1000 + lateness);
  if (!closing) problems.push('the pool did not close');
  for (const connection of server.connections) {
    if (!(await settlesWithin(connection.closed, 1000 + lateness))) problems.push('a connection was left open');
    const goAways = connection.received.filter((frame) => frame.type === FrameType.goaway);
    if (goAways.length > 1) problems.push(`the client sent ${goAways.length} GOAWAY frames`);
    const code = goAways[0]?.payload.readUInt32BE(4);
    if (code !== undefined && !knownCodes.has(code)) problems.push(`the client's GOAWAY carried code ${code}`);
    const goAwayAt = connection.received.findIndex((frame) => frame.type === FrameType.goaway);
    if (goAwayAt !== -1 && connection.received.slice(goAwayAt).some((frame) => frame.type === FrameType.headers)) problems.push('the client started a stream after its GOAWAY');
    const streams = connection.received.filter((frame) => frame.type === FrameType.headers).map((frame) => frame.streamId);
    if (streams.some((id, n) => id !== 2 * n + 1)) problems.push(`the client opened streams ${streams.join(', ')}`);
  }
  return problems;
}

function sameBody(body: Buffer | undefined, expected: Buffer | undefined): boolean {
  return body === undefined ? expected === undefined : expected !== undefined && body.equals(expected);
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return settled;
}

/** Sockets the process holds open. */
function openSockets(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'TCPSocketWrap').length;
}

describe('Herald\'s HTTP/2 client under a frame fuzzer', () => {
  const servers: { server: FuzzServer; port: number }[] = [];
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => {
    uncaught.push(error);
  };

  beforeAll(async () => {
    for (let lane = 0; lane < lanes; lane += 1) {
      const server = new FuzzServer();
      servers.push({ server, port: await server.listen() });
    }
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
  });

  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    await Promise.all(servers.map(({ server }) => server.close()));
  });

  it(`ends every case with valid answers or failures to send again, in time, holding nothing after (seed ${seed})`, async () => {
    const indexes = only === undefined ? Array.from({ length: caseCount }, (_, index) => index) : [only];
    const failures: string[] = [];
    const socketsBefore = openSockets();
    const memoryBefore = memoryInUse();
    let next = 0;
    await Promise.all(
      servers.map(async ({ server, port }) => {
        while (next < indexes.length && failures.length < 10) {
          const fuzzCase = makeCase(seed, indexes[next++] as number);
          const problems = await play(fuzzCase, server, port);
          if (problems.length > 0) failures.push(`case ${fuzzCase.index} (${fuzzCase.story}; ${fuzzCase.end}): ${problems.join('; ')}`);
        }
      }),
    );
    const replay = `HERALD_FUZZ_SEED=${seed}`;
    expect(failures, `frame fuzzer seed ${seed}: replay with ${replay} (and HERALD_FUZZ_CASE=<case> for one case)`).toEqual([]);
    expect(uncaught, `frame fuzzer seed ${seed}: uncaught errors; replay with ${replay}`).toEqual([]);
    expect(openSockets(), `frame fuzzer seed ${seed}: sockets left open; replay with ${replay}`).toBe(socketsBefore);
    expect(memoryInUse() - memoryBefore, `frame fuzzer seed ${seed}: memory kept after the run; replay with ${replay}`).toBeLessThan(32 * 1024 * 1024);
  }, 240_000);
});
