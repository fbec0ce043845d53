import type { Clock } from '../../../../core/clock.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';
import { noAnswerOutcome } from '../../delivery-reasons.ts';
import { parseRetryAfter } from '../../retry-after.ts';
import type { AccessTokenFetch } from '../maker-access-token.ts';
import type { MakerHttp } from '../maker-http.ts';
import { everyToken, type BatchVerdict, type MakerBatch, type MakerProtocol } from '../maker.ts';
import { clientCredentialsToken } from '../shared/client-credentials-token.ts';
import { saysOther } from '../shared/says-other.ts';
import { classifyHonorAnswer, readHonorAnswer } from './classify-honor-answer.ts';
import type { HonorProfile } from './honor-credentials.ts';
import { buildHonorMessage, honorSendBody, maxHonorMessageBytes, type HonorMessage } from './honor-message.ts';

const tooLarge = everyToken({ kind: 'failed', reason: 'PayloadTooLarge' });

/**
 * Honor Push's protocol for one profile: an OAuth access token (client
 * credentials, as HMS), and one `POST <send URL>`
 * (`/api/v1/<appId>/sendMessage`) per batch of up to 1000 tokens, with the
 * `timestamp` header Honor asks for (milliseconds), its answer read by
 * `classifyHonorAnswer`.
 */
export class HonorProtocol implements MakerProtocol {
  readonly maxTokens: number;
  readonly accessToken: AccessTokenFetch;
  readonly #profile: HonorProfile;
  readonly #http: MakerHttp;
  readonly #clock: Clock;
  /** Each push's message, built once per profile. */
  readonly #messages = new WeakMap<MakerContent, HonorMessage>();

  constructor(profile: HonorProfile, context: { http: MakerHttp; clock: Clock }) {
    this.#profile = profile;
    this.#http = context.http;
    this.#clock = context.clock;
    this.maxTokens = profile.maxTokens;
    this.accessToken = clientCredentialsToken(context.http, profile);
  }

  async send(batch: MakerBatch): Promise<BatchVerdict> {
    const message = this.#messageOf(batch.content);
    if (message.bytes > maxHonorMessageBytes) return tooLarge;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8', timestamp: String(this.#clock.now()) };
    if (batch.authorization !== undefined) headers.authorization = batch.authorization;
    const answer = await this.#http.post({ url: this.#profile.sendUrl, headers, body: honorSendBody(message, batch.tokens, batch.ttlSeconds) });
    if (answer.failure !== undefined) return everyToken(noAnswerOutcome(answer.failure));
    const read = readHonorAnswer(answer.status, answer.body, parseRetryAfter(answer.header('retry-after'), this.#clock.now()));
    const verdict = classifyHonorAnswer(read, batch.tokens, batch.proven);
    if (saysOther(verdict)) batch.unknownWord(answer.status, read.code, answer.body);
    return verdict;
  }

  #messageOf(content: MakerContent): HonorMessage {
    let message = this.#messages.get(content);
    if (message === undefined) this.#messages.set(content, (message = buildHonorMessage(content, this.#profile)));
    return message;
  }
}
