import type { Clock } from '../../../../core/clock.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';
import { noAnswerOutcome } from '../../delivery-reasons.ts';
import { parseRetryAfter } from '../../retry-after.ts';
import type { AccessTokenFetch } from '../maker-access-token.ts';
import type { MakerHttp } from '../maker-http.ts';
import { everyToken, type BatchVerdict, type MakerBatch, type MakerProtocol } from '../maker.ts';
import { clientCredentialsToken } from '../shared/client-credentials-token.ts';
import { saysOther } from '../shared/says-other.ts';
import { classifyHmsAnswer, readHmsAnswer } from './classify-hms-answer.ts';
import type { HmsProfile } from './hms-credentials.ts';
import { buildHmsMessage, hmsSendBody, maxHmsMessageBytes, type HmsMessage } from './hms-message.ts';

const tooLarge = everyToken({ kind: 'failed', reason: 'PayloadTooLarge' });

/**
 * Huawei Push Kit's protocol for one profile: an OAuth access token, and one
 * `POST <send URL>` (`/v1/<appId>/messages:send`) per batch of up to 1000
 * tokens, its answer read by `classifyHmsAnswer`.
 */
export class HmsProtocol implements MakerProtocol {
  readonly maxTokens: number;
  readonly accessToken: AccessTokenFetch;
  readonly #profile: HmsProfile;
  readonly #http: MakerHttp;
  readonly #clock: Clock;
  /** Each push's message, built once per profile. */
  readonly #messages = new WeakMap<MakerContent, HmsMessage>();

  constructor(profile: HmsProfile, context: { http: MakerHttp; clock: Clock }) {
    this.#profile = profile;
    this.#http = context.http;
    this.#clock = context.clock;
    this.maxTokens = profile.maxTokens;
    this.accessToken = clientCredentialsToken(context.http, profile);
  }

  async send(batch: MakerBatch): Promise<BatchVerdict> {
    const message = this.#messageOf(batch.content);
    // Refused by HMS (80300008) whoever it goes to: not sent at all.
    if (message.bytes > maxHmsMessageBytes) return tooLarge;
    const headers: Record<string, string> = { 'content-type': 'application/json;charset=utf-8' };
    if (batch.authorization !== undefined) headers.authorization = batch.authorization;
    const answer = await this.#http.post({ url: this.#profile.sendUrl, headers, body: hmsSendBody(message, batch.tokens, batch.ttlSeconds) });
    if (answer.failure !== undefined) return everyToken(noAnswerOutcome(answer.failure));
    const read = readHmsAnswer(answer.status, answer.body, parseRetryAfter(answer.header('retry-after'), this.#clock.now()));
    const verdict = classifyHmsAnswer(read, batch.tokens, batch.proven);
    if (saysOther(verdict)) batch.unknownWord(answer.status, read.code, answer.body);
    return verdict;
  }

  #messageOf(content: MakerContent): HmsMessage {
    let message = this.#messages.get(content);
    if (message === undefined) this.#messages.set(content, (message = buildHmsMessage(content, this.#profile)));
    return message;
  }
}
