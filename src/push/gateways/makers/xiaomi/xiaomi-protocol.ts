import type { Clock } from '../../../../core/clock.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';
import { withAnswerCause } from '../../answer-cause.ts';
import { noAnswerOutcome } from '../../delivery-reasons.ts';
import type { DeliveryOutcome } from '../../delivery.ts';
import { parseRetryAfter } from '../../retry-after.ts';
import type { MakerHttp } from '../maker-http.ts';
import { everyToken, type BatchVerdict, type MakerBatch, type MakerProtocol } from '../maker.ts';
import { saysOther } from '../shared/says-other.ts';
import { classifyXiaomiAnswer, readXiaomiAnswer } from './classify-xiaomi-answer.ts';
import type { XiaomiProfile } from './xiaomi-credentials.ts';
import { buildXiaomiMessage, maxXiaomiPayloadBytes, xiaomiSendBody, type XiaomiMessage } from './xiaomi-message.ts';

/** The variant of `mi-intl` installations: sent through the global service. */
export const globalVariant = 'global';

const tooLarge = everyToken({ kind: 'failed', reason: 'PayloadTooLarge' });

/**
 * A regId with a comma would be read by Xiaomi as several: it is never
 * sent (an installation's registrationId is the device's to write, and
 * must not add other devices to a push).
 */
const notARegId: DeliveryOutcome = Object.freeze({ kind: 'invalid-token', reason: 'MiBadRegId', unregistered: false, cause: 'a registrationId holding a comma is never sent' });

/**
 * Xiaomi Mi Push's protocol for one profile: no access token (every request
 * carries `Authorization: key=<AppSecret>`), and one form `POST` to
 * `/v3/message/regid` per batch of up to 1000 regIds, comma-separated,
 * through the China endpoint or, for `mi-intl` devices, the global one; its
 * answer read by `classifyXiaomiAnswer`.
 */
export class XiaomiProtocol implements MakerProtocol {
  readonly maxTokens: number;
  readonly #profile: XiaomiProfile;
  readonly #http: MakerHttp;
  readonly #clock: Clock;
  readonly #authorization: string;
  /** Each push's message, built once per profile. */
  readonly #messages = new WeakMap<MakerContent, XiaomiMessage>();
  /** The variants (endpoints) through which a regId of this profile was accepted: the credentials work there. */
  readonly #provenVariants = new Set<string>();

  constructor(profile: XiaomiProfile, context: { http: MakerHttp; clock: Clock }) {
    this.#profile = profile;
    this.#http = context.http;
    this.#clock = context.clock;
    this.maxTokens = profile.maxTokens;
    this.#authorization = `key=${profile.appSecret}`;
  }

  async send(batch: MakerBatch): Promise<BatchVerdict> {
    const message = this.#messageOf(batch.content);
    // Refused by Xiaomi (65009) whoever it goes to: not sent at all.
    if (message.payloadBytes > maxXiaomiPayloadBytes) return tooLarge;
    const regIds = batch.tokens.filter((token) => !token.includes(','));
    const refused = batch.tokens.filter((token) => token.includes(','));
    if (regIds.length === 0) return everyToken(notARegId);
    const url = batch.variant === globalVariant ? this.#profile.globalSendUrl : this.#profile.sendUrl;
    const answer = await this.#http.post({
      url,
      headers: { authorization: this.#authorization, 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: xiaomiSendBody(message, regIds, batch.ttlSeconds),
    });
    if (answer.failure !== undefined) return withRefused(everyToken(noAnswerOutcome(answer.failure)), refused);
    const read = readXiaomiAnswer(answer.status, answer.body, parseRetryAfter(answer.header('retry-after'), this.#clock.now()));
    const verdict = classifyXiaomiAnswer(read, regIds, batch.proven && this.#provenVariants.has(batch.variant));
    if (acceptedSome(verdict, regIds)) this.#provenVariants.add(batch.variant);
    if (saysOther(verdict)) batch.unknownWord(answer.status, read.code, answer.body);
    return withRefused(withCause(verdict, answer.status, answer.body), refused);
  }

  #messageOf(content: MakerContent): XiaomiMessage {
    let message = this.#messages.get(content);
    if (message === undefined) this.#messages.set(content, (message = buildXiaomiMessage(content, this.#profile)));
    return message;
  }
}

/** The verdict with Xiaomi's answer as the cause of each outcome an operator may have to act on (a failure, a retry, an invalid regId that is kept). */
function withCause(verdict: BatchVerdict, status: number, body: Buffer): BatchVerdict {
  if (verdict.kind !== 'tokens') return verdict;
  const others = withAnswerCause(verdict.others, status, body);
  if (verdict.outcomes === undefined) return { kind: 'tokens', others };
  const outcomes = new Map([...verdict.outcomes].map(([regId, outcome]) => [regId, withAnswerCause(outcome, status, body)]));
  return { kind: 'tokens', others, outcomes };
}

/** The verdict, with the regIds that were not sent counted as not regIds. */
function withRefused(verdict: BatchVerdict, refused: readonly string[]): BatchVerdict {
  if (refused.length === 0 || verdict.kind !== 'tokens') return verdict;
  const outcomes = new Map(verdict.outcomes);
  for (const token of refused) outcomes.set(token, notARegId);
  return { kind: 'tokens', others: verdict.others, outcomes };
}

/** Whether the answer accepted a regId of the request. */
function acceptedSome(verdict: BatchVerdict, regIds: readonly string[]): boolean {
  if (verdict.kind !== 'tokens') return false;
  return regIds.some((regId) => (verdict.outcomes?.get(regId) ?? verdict.others).kind === 'delivered');
}
