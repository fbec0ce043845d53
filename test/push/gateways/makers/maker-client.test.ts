import { afterEach, describe, expect, it } from 'vitest';
import { AuthorizationError } from '../../../../src/push/gateways/authorization-source.ts';
import { delivered, type DeliveryOutcome } from '../../../../src/push/gateways/delivery.ts';
import { noopGatewayMetrics } from '../../../../src/push/gateways/gateway-metrics.ts';
import { MakerClient, type MakerDelivery } from '../../../../src/push/gateways/makers/maker-client.ts';
import { MakerHttp } from '../../../../src/push/gateways/makers/maker-http.ts';
import { everyToken, type BatchVerdict, type MakerBatch, type MakerProtocol } from '../../../../src/push/gateways/makers/maker.ts';
import { buildMakerContent, type MakerContent } from '../../../../src/push/payload/maker-content.ts';
import type { Logger } from '../../../../src/core/logger.ts';
import { ManualClock } from '../../../support/manual-clock.ts';
import { memoryLogger } from '../../../support/memory-logger.ts';

/** A protocol that records each batch and answers from a script (else every token delivered). */
class ScriptedProtocol implements MakerProtocol {
  readonly batches: MakerBatch[] = [];
  readonly answers: ((batch: MakerBatch) => BatchVerdict | Promise<BatchVerdict>)[] = [];
  accessToken: MakerProtocol['accessToken'];
  readonly maxTokens: number;

  constructor(maxTokens = 1000) {
    this.maxTokens = maxTokens;
  }

  send(batch: MakerBatch): Promise<BatchVerdict> {
    this.batches.push(batch);
    return Promise.resolve((this.answers.shift() ?? (() => everyToken(delivered)))(batch));
  }
}

const clients: MakerClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function clientOf(protocol: MakerProtocol, clock = new ManualClock(), logger?: Logger): MakerClient {
  const http = new MakerHttp({ gateway: 'hms', ca: undefined, connections: 1, requestTimeoutMs: 1000, metrics: noopGatewayMetrics });
  const client = new MakerClient({ gateway: 'hms', profile: '_default', protocol, http, clock, ...(logger === undefined ? {} : { logger }) });
  clients.push(client);
  return client;
}

function contentOf(data: Record<string, unknown> = { alert: 'A' }, expiresAt: number | null = null): MakerContent {
  return buildMakerContent({ data, androidChannel: null, expiresAt }, 'hms', new Set());
}

const content = contentOf();
const to = (token: string, of = content, variant = ''): MakerDelivery => ({ token, content: of, variant });

describe('MakerClient', () => {
  it('sends the deliveries handed to it in one turn as one request, and those of the next turn as another', async () => {
    const protocol = new ScriptedProtocol();
    const client = clientOf(protocol);
    const first = await Promise.all(['a', 'b', 'c'].map((token) => client.send(to(token))));
    const second = await Promise.all(['d', 'e'].map((token) => client.send(to(token))));
    expect(protocol.batches.map((batch) => batch.tokens)).toEqual([['a', 'b', 'c'], ['d', 'e']]);
    expect([...first, ...second]).toEqual(Array(5).fill(delivered));
  });

  it('sends a full batch at once and the rest on the next turn', async () => {
    const protocol = new ScriptedProtocol(2);
    const client = clientOf(protocol);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((token) => client.send(to(token))));
    expect(protocol.batches.map((batch) => batch.tokens)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('keeps pushes and variants apart', async () => {
    const protocol = new ScriptedProtocol();
    const client = clientOf(protocol);
    const other = contentOf({ alert: 'B' });
    await Promise.all([client.send(to('a')), client.send(to('b', other)), client.send(to('c')), client.send(to('d', content, 'global'))]);
    expect(protocol.batches.map((batch) => [batch.content.alert, batch.variant, batch.tokens])).toEqual([
      ['A', '', ['a', 'c']],
      ['A', 'global', ['d']],
      ['B', '', ['b']],
    ]);
  });

  it('sends a token twice in one push once, and answers both deliveries with its outcome', async () => {
    const protocol = new ScriptedProtocol();
    const client = clientOf(protocol);
    expect(await Promise.all([client.send(to('same')), client.send(to('same'))])).toEqual([delivered, delivered]);
    expect(protocol.batches.map((batch) => batch.tokens)).toEqual([['same']]);
  });

  it('splits an answer into each token\'s outcome', async () => {
    const protocol = new ScriptedProtocol();
    const invalid: DeliveryOutcome = { kind: 'invalid-token', reason: 'HmsIllegalToken', unregistered: true };
    protocol.answers.push(() => ({ kind: 'tokens', others: delivered, outcomes: new Map([['b', invalid]]) }));
    const client = clientOf(protocol);
    expect(await Promise.all(['a', 'b', 'c'].map((token) => client.send(to(token))))).toEqual([delivered, invalid, delivered]);
  });

  it('tells the protocol the credentials work once a token was accepted', async () => {
    const protocol = new ScriptedProtocol();
    protocol.answers.push(() => everyToken({ kind: 'failed', reason: 'Hms80100003' }));
    const client = clientOf(protocol);
    await client.send(to('a'));
    await client.send(to('b'));
    await client.send(to('c'));
    expect(protocol.batches.map((batch) => batch.proven)).toEqual([false, false, true]);
  });

  it('asks a batch answered "retry" as a whole to wait 1 s, so its devices come back together', async () => {
    const protocol = new ScriptedProtocol();
    protocol.answers.push(() => everyToken({ kind: 'retry', reason: 'HmsFlowControl' }), () => everyToken({ kind: 'retry', reason: 'HmsFlowControl', retryAfterMs: 5000 }));
    const client = clientOf(protocol);
    expect(await client.send(to('a'))).toEqual({ kind: 'retry', reason: 'HmsFlowControl', retryAfterMs: 1000 });
    expect(await client.send(to('a'))).toEqual({ kind: 'retry', reason: 'HmsFlowControl', retryAfterMs: 5000 });
  });

  it('sends a full batch of one variant at once and keeps the other variants of its content for the turn’s end', async () => {
    const protocol = new ScriptedProtocol(2);
    const client = clientOf(protocol);
    const outcomes = await Promise.all([client.send(to('a', content, 'x')), client.send(to('b', content, 'y')), client.send(to('c', content, 'x'))]);
    expect(outcomes).toEqual(Array(3).fill(delivered));
    expect(protocol.batches.map((batch) => [batch.variant, batch.tokens])).toEqual([
      ['x', ['a', 'c']],
      ['y', ['b']],
    ]);
  });

  it('logs a word of the maker outside the documented set, with the gateway', async () => {
    const { logger, lines } = memoryLogger();
    const protocol = new ScriptedProtocol();
    protocol.answers.push((batch) => {
      batch.unknownWord(400, 'NewWord', undefined);
      return everyToken({ kind: 'failed', reason: 'Other' });
    });
    const client = clientOf(protocol, new ManualClock(), logger);
    expect(await client.send(to('a'))).toEqual({ kind: 'failed', reason: 'Other' });
    expect(lines.filter((line) => line.word === 'NewWord')).toEqual([expect.objectContaining({ gateway: 'hms', status: 400, msg: expect.stringContaining('outside the documented set') })]);
  });

  it('computes the TTL when the batch leaves', async () => {
    const clock = new ManualClock(1_000_000);
    const protocol = new ScriptedProtocol();
    const client = clientOf(protocol, clock);
    const expiring = contentOf({ alert: 'A' }, 1_000_000 + 90_500);
    await client.send(to('a', expiring));
    clock.advance(60_000);
    await client.send(to('a', expiring));
    expect(protocol.batches.map((batch) => batch.ttlSeconds)).toEqual([91, 31]);
    // A push without an expiry names no TTL: the maker's own default applies.
    await client.send(to('b'));
    expect(protocol.batches[2]?.ttlSeconds).toBeNull();
  });

  it('counts every token failed when the protocol throws', async () => {
    const protocol = new ScriptedProtocol();
    protocol.answers.push(() => {
      throw new Error('bug');
    });
    const client = clientOf(protocol);
    expect(await client.send(to('a'))).toEqual({ kind: 'failed', reason: 'Other', cause: "the maker's protocol threw: bug" });
  });

  describe('with an access token', () => {
    it('fetches it once for concurrent batches, and again with one more try when the maker refuses it', async () => {
      const protocol = new ScriptedProtocol();
      let fetches = 0;
      protocol.accessToken = () => Promise.resolve({ value: `Bearer t${++fetches}`, expiresInMs: 3_600_000 });
      protocol.answers.push(
        () => everyToken(delivered),
        () => everyToken(delivered),
        () => ({ kind: 'auth-rejected', outcome: { kind: 'failed', reason: 'Hms80200003' } }),
      );
      const client = clientOf(protocol, new ManualClock());
      await Promise.all([client.send(to('a')), client.send(to('b', contentOf({ alert: 'B' })))]);
      expect(await client.send(to('c'))).toEqual(delivered);
      expect(protocol.batches.map((batch) => batch.authorization)).toEqual(['Bearer t1', 'Bearer t1', 'Bearer t1', 'Bearer t2']);
      expect(client.tokenRequests).toBe(2);
    });

    it('warms up by fetching it, once, without sending; a failed fetch neither rejects nor sends', async () => {
      const protocol = new ScriptedProtocol();
      let fetches = 0;
      protocol.accessToken = () => Promise.resolve({ value: `Bearer w${++fetches}`, expiresInMs: 3_600_000 });
      const client = clientOf(protocol);
      await client.warm();
      await client.warm();
      expect(client.tokenRequests).toBe(1);
      expect(protocol.batches).toHaveLength(0);
      expect(await client.send(to('a'))).toEqual(delivered);
      expect(protocol.batches.map((batch) => batch.authorization)).toEqual(['Bearer w1']);

      const failing = new ScriptedProtocol();
      failing.accessToken = () => Promise.reject(new AuthorizationError('AccessTokenUnavailable', 'no token today', { retryable: true }));
      const refused = clientOf(failing);
      await expect(refused.warm()).resolves.toBeUndefined();
      expect(refused.tokenRequests).toBe(1);
      expect(failing.batches).toHaveLength(0);
    });

    it('warms up with nothing to do when the maker takes no access token', async () => {
      const protocol = new ScriptedProtocol();
      const client = clientOf(protocol);
      await client.warm();
      expect(client.tokenRequests).toBe(0);
      expect(protocol.batches).toHaveLength(0);
    });

    it('answers a refused token\'s outcome when a new token is refused too', async () => {
      const protocol = new ScriptedProtocol();
      protocol.accessToken = () => Promise.resolve({ value: 'Bearer same', expiresInMs: 3_600_000 });
      const refused = (): BatchVerdict => ({ kind: 'auth-rejected', outcome: { kind: 'failed', reason: 'Hms80200001' } });
      protocol.answers.push(refused, refused, refused);
      const client = clientOf(protocol);
      expect(await client.send(to('a'))).toEqual({ kind: 'failed', reason: 'Hms80200001' });
      // The token just fetched after a refusal is not fetched again for a minute: one request, no refresh loop.
      expect(await client.send(to('b'))).toEqual({ kind: 'failed', reason: 'Hms80200001' });
      expect(protocol.batches).toHaveLength(3);
    });

    it('answers the fetch\'s failure without sending, and holds it before asking again', async () => {
      const clock = new ManualClock();
      const protocol = new ScriptedProtocol();
      let fetches = 0;
      protocol.accessToken = () => {
        fetches += 1;
        return Promise.reject(new AuthorizationError('AccessTokenRefused', 'auth endpoint answered 400: invalid client', { retryable: false }));
      };
      const client = clientOf(protocol, clock);
      const refused = { kind: 'failed', reason: 'AccessTokenRefused', cause: 'auth endpoint answered 400: invalid client' };
      expect(await client.send(to('a'))).toEqual(refused);
      expect(await client.send(to('b'))).toEqual(refused);
      expect(fetches).toBe(1);
      clock.advance(1001);
      await client.send(to('c'));
      expect(fetches).toBe(2);
      expect(protocol.batches).toHaveLength(0);
    });
  });

  it('fails the profile\'s deliveries without a request once its daily quota is spent, until midnight in China', async () => {
    // 2026-03-01 15:30 UTC is 23:30 in Shanghai: the quota comes back at 16:00 UTC.
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 15, 30));
    const protocol = new ScriptedProtocol();
    protocol.answers.push(() => ({ kind: 'quota-exhausted', word: 'Mi10034' }));
    const client = clientOf(protocol, clock);
    expect(await client.send(to('a'))).toEqual({ kind: 'failed', reason: 'DailyQuotaExceeded' });
    clock.advance(29 * 60_000);
    expect(await client.send(to('b'))).toEqual({ kind: 'failed', reason: 'DailyQuotaExceeded' });
    expect(protocol.batches).toHaveLength(1);
    clock.advance(60_000);
    expect(await client.send(to('c'))).toEqual(delivered);
    expect(protocol.batches).toHaveLength(2);
  });

  it('counts a spent quota until the next midnight in China also when that is tomorrow in UTC', async () => {
    // 2026-03-01 20:00 UTC is 04:00 on 2 March in Shanghai: the quota comes back at 16:00 UTC on 2 March.
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 20, 0));
    const protocol = new ScriptedProtocol();
    protocol.answers.push(() => ({ kind: 'quota-exhausted', word: 'Mi10034' }));
    const client = clientOf(protocol, clock);
    expect(await client.send(to('a'))).toEqual({ kind: 'failed', reason: 'DailyQuotaExceeded' });
    clock.advance(19 * 3_600_000 + 59 * 60_000);
    expect(await client.send(to('b'))).toEqual({ kind: 'failed', reason: 'DailyQuotaExceeded' });
    expect(protocol.batches).toHaveLength(1);
    clock.advance(60_000);
    expect(await client.send(to('c'))).toEqual(delivered);
  });

  it('warns once when two batches in flight both find the quota spent', async () => {
    const { logger, lines } = memoryLogger();
    const protocol = new ScriptedProtocol();
    const spent = (): BatchVerdict => ({ kind: 'quota-exhausted', word: 'Mi10034' });
    protocol.answers.push(spent, spent);
    const client = clientOf(protocol, new ManualClock(Date.UTC(2026, 2, 1, 10, 0)), logger);
    const outcomes = await Promise.all([client.send(to('a')), client.send(to('b', contentOf({ alert: 'B' })))]);
    expect(outcomes).toEqual(Array(2).fill({ kind: 'failed', reason: 'DailyQuotaExceeded' }));
    expect(protocol.batches).toHaveLength(2);
    expect(lines.filter((line) => String(line.msg).includes('daily quota is spent'))).toHaveLength(1);
  });

  it('sends what it holds as it is closed, and closes only once the answers are in', async () => {
    const protocol = new ScriptedProtocol();
    const { promise: answerNow, resolve: answer } = Promise.withResolvers<void>();
    protocol.answers.push(async () => {
      await answerNow;
      return everyToken(delivered);
    });
    const client = clientOf(protocol);
    const pending = client.send(to('a'));
    let closed = false;
    const closing = client.close().then(() => (closed = true));
    // Sent by close itself, not by the turn's flush to come.
    expect(protocol.batches.map((batch) => batch.tokens)).toEqual([['a']]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    answer();
    await closing;
    expect(await pending).toEqual(delivered);
  });

  it('sends what it holds when closed, and answers later deliveries ClientClosed', async () => {
    const protocol = new ScriptedProtocol();
    const client = clientOf(protocol);
    const pending = client.send(to('a'));
    await client.close();
    expect(await pending).toEqual(delivered);
    expect(await client.send(to('b'))).toEqual({ kind: 'retry', reason: 'ClientClosed' });
  });
});
