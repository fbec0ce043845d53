import type { Clock } from '../../../core/clock.ts';
import type { Logger } from '../../../core/logger.ts';
import { errorCause } from '../../../http2/h2-failure.ts';
import type { MakerContent } from '../../payload/maker-content.ts';
import { authorizationOutcome } from '../authorization-source.ts';
import type { DeliveryOutcome, GatewayClient, MakerName } from '../delivery.ts';
import { UnknownReasonLog } from '../unknown-reason-log.ts';
import { MakerAccessToken } from './maker-access-token.ts';
import type { MakerHttp } from './maker-http.ts';
import { everyToken, type BatchVerdict, type MakerBatch, type MakerProtocol } from './maker.ts';

/** One device's delivery through a maker: its token, the push as the maker's devices get it, and the vendor's variant. */
export interface MakerDelivery {
  token: string;
  content: MakerContent;
  variant: string;
}

export interface MakerClientOptions {
  gateway: MakerName;
  profile: string;
  protocol: MakerProtocol;
  /** The client's own connections; closed with it. */
  http: MakerHttp;
  clock: Clock;
  logger?: Logger;
  /** Pause asked of a whole batch answered "retry" without a Retry-After, so its devices come back together in one batch; default 1 s. */
  batchRetryAfterMs?: number;
}

interface OpenBatch {
  content: MakerContent;
  variant: string;
  /** The callers of each token: the same token twice in one push (two installations) is sent once and both get its outcome. */
  waiters: Map<string, ((outcome: DeliveryOutcome) => void)[]>;
}

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
/** The makers' days start at midnight in China (UTC+8, no daylight saving). */
const quotaDayOffsetMs = 8 * hourMs;

const closed: DeliveryOutcome = Object.freeze({ kind: 'retry', reason: 'ClientClosed' });
const quotaSpent: DeliveryOutcome = Object.freeze({ kind: 'failed', reason: 'DailyQuotaExceeded' });

/**
 * The client of one app's maker profile. It keeps the sender's contract, one
 * delivery in and one outcome out, but sends in batches: the deliveries it is
 * handed in one turn of the event loop (a slice hands its deliveries out in a
 * tight loop) for the same push and variant are collected and sent as one
 * request of up to `maxTokens` tokens, when the batch is full or on the next
 * turn (`setImmediate`), and the maker's answer is split into an outcome per
 * device. A delivery answered `retry` is sent again by `deliverWithRetry` and
 * joins a later batch with the others sent again then.
 *
 * The client also keeps the profile's access token (one fetch at a time,
 * refreshed before it expires and when the maker refuses it) and its daily
 * quota: once the maker answers that the day's quota is spent, every
 * delivery fails `DailyQuotaExceeded` without a request until midnight in
 * China, rather than asking again and again.
 */
export class MakerClient implements GatewayClient<MakerDelivery> {
  readonly gateway: MakerName;
  readonly profile: string;
  readonly #options: MakerClientOptions;
  readonly #protocol: MakerProtocol;
  readonly #token: MakerAccessToken | undefined;
  readonly #unknownReasons: UnknownReasonLog;
  readonly #open = new Map<MakerContent, Map<string, OpenBatch>>();
  readonly #flushing = new Set<Promise<void>>();
  #scheduled = false;
  #proven = false;
  #quotaSpentUntil = 0;
  #closing: Promise<void> | undefined;

  constructor(options: MakerClientOptions) {
    this.#options = options;
    this.gateway = options.gateway;
    this.profile = options.profile;
    this.#protocol = options.protocol;
    const fetch = options.protocol.accessToken;
    this.#token =
      fetch === undefined ? undefined : new MakerAccessToken({ gateway: options.gateway, profile: options.profile, fetch, clock: options.clock, logger: options.logger });
    this.#unknownReasons = new UnknownReasonLog({ gateway: options.gateway, logger: options.logger, clock: options.clock });
  }

  /** Requests to the maker in flight. */
  get inFlight(): number {
    return this.#options.http.inFlight;
  }

  /** Fetches of the access token so far (0 without one). */
  get tokenRequests(): number {
    return this.#token?.requests ?? 0;
  }

  /** Fetches the access token, when the maker has one and there is none yet; never rejects. */
  async warm(): Promise<void> {
    try {
      // The token in hand while it is good; a fetch only without one.
      await this.#token?.refresh();
    } catch {
      // The batches meet the failure.
    }
  }

  send(delivery: MakerDelivery): Promise<DeliveryOutcome> {
    if (this.#closing !== undefined) return Promise.resolve(closed);
    if (this.#options.clock.now() < this.#quotaSpentUntil) return Promise.resolve(quotaSpent);
    const { promise, resolve } = Promise.withResolvers<DeliveryOutcome>();
    const batch = this.#batchFor(delivery);
    const waiters = batch.waiters.get(delivery.token);
    if (waiters !== undefined) {
      waiters.push(resolve);
      return promise;
    }
    batch.waiters.set(delivery.token, [resolve]);
    if (batch.waiters.size >= this.#protocol.maxTokens) {
      this.#detach(batch);
      this.#start(batch);
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#flushAll());
    }
    return promise;
  }

  /** Sends what is collected, waits for the requests in flight, then closes the connections; later sends answer `ClientClosed`. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#flushAll();
      while (this.#flushing.size > 0) await Promise.all(this.#flushing);
      await this.#options.http.close();
    })();
    return this.#closing;
  }

  #batchFor(delivery: MakerDelivery): OpenBatch {
    let byVariant = this.#open.get(delivery.content);
    if (byVariant === undefined) this.#open.set(delivery.content, (byVariant = new Map<string, OpenBatch>()));
    let batch = byVariant.get(delivery.variant);
    if (batch === undefined) byVariant.set(delivery.variant, (batch = { content: delivery.content, variant: delivery.variant, waiters: new Map() }));
    return batch;
  }

  #detach(batch: OpenBatch): void {
    const byVariant = this.#open.get(batch.content);
    byVariant?.delete(batch.variant);
    if (byVariant?.size === 0) this.#open.delete(batch.content);
  }

  #flushAll(): void {
    this.#scheduled = false;
    const batches = [...this.#open.values()].flatMap((byVariant) => [...byVariant.values()]);
    this.#open.clear();
    for (const batch of batches) this.#start(batch);
  }

  #start(batch: OpenBatch): void {
    const flushing = this.#flush(batch).finally(() => this.#flushing.delete(flushing));
    this.#flushing.add(flushing);
  }

  async #flush(batch: OpenBatch): Promise<void> {
    let verdict: BatchVerdict;
    try {
      verdict = await this.#verdict(batch);
    } catch (error) {
      this.#options.logger?.error({ err: error, gateway: this.gateway, profile: this.profile }, 'maker protocol failed: the batch counts as failed');
      verdict = everyToken({ kind: 'failed', reason: 'Other', cause: `the maker's protocol threw: ${errorCause(error)}` });
    }
    this.#settle(batch, verdict);
  }

  async #verdict(open: OpenBatch): Promise<BatchVerdict> {
    const token = this.#token;
    let authorization: string | undefined;
    if (token !== undefined) {
      authorization = token.authorization();
      try {
        authorization ??= await token.refresh();
      } catch (error) {
        return everyToken(authorizationOutcome(error, 'AccessTokenUnavailable'));
      }
    }
    const expiresAt = open.content.expiresAt;
    const batch: MakerBatch = {
      tokens: [...open.waiters.keys()],
      content: open.content,
      variant: open.variant,
      ttlSeconds: expiresAt === null ? null : Math.max(0, Math.ceil((expiresAt - this.#options.clock.now()) / 1000)),
      authorization,
      proven: this.#proven,
      unknownWord: (status, word, body) => this.#unknownReasons.answer(status, word, body),
    };
    let verdict = await this.#protocol.send(batch);
    if (verdict.kind === 'auth-rejected' && token !== undefined && authorization !== undefined && token.reject(authorization)) {
      try {
        authorization = await token.refresh();
      } catch (error) {
        return everyToken(authorizationOutcome(error, 'AccessTokenUnavailable'));
      }
      verdict = await this.#protocol.send({ ...batch, authorization });
    }
    return verdict;
  }

  #settle(batch: OpenBatch, verdict: BatchVerdict): void {
    let others: DeliveryOutcome;
    let outcomes: ReadonlyMap<string, DeliveryOutcome> | undefined;
    switch (verdict.kind) {
      case 'tokens':
        others = this.#paced(verdict.others);
        outcomes = verdict.outcomes;
        break;
      case 'auth-rejected':
        others = verdict.outcome;
        break;
      case 'quota-exhausted':
        others = quotaSpent;
        this.#quotaSpent(verdict.word);
        break;
    }
    for (const [token, waiters] of batch.waiters) {
      const outcome = outcomes?.get(token) ?? others;
      if (outcome.kind === 'delivered') this.#proven = true;
      for (const resolve of waiters) resolve(outcome);
    }
  }

  /** A batch answered `retry` as a whole comes back together after the same pause, unless the maker named one. */
  #paced(outcome: DeliveryOutcome): DeliveryOutcome {
    if (outcome.kind !== 'retry' || outcome.retryAfterMs !== undefined) return outcome;
    return { ...outcome, retryAfterMs: this.#options.batchRetryAfterMs ?? 1000 };
  }

  #quotaSpent(word: string): void {
    const now = this.#options.clock.now();
    const until = (Math.floor((now + quotaDayOffsetMs) / dayMs) + 1) * dayMs - quotaDayOffsetMs;
    if (this.#quotaSpentUntil >= until) return;
    this.#quotaSpentUntil = until;
    this.#options.logger?.warn(
      { gateway: this.gateway, profile: this.profile, word, until: new Date(until).toISOString() },
      'the maker answered that the daily quota is spent: deliveries of this profile fail DailyQuotaExceeded until midnight in China',
    );
  }
}
