import type { Clock } from '../../../../core/clock.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';
import { noAnswerOutcome } from '../../delivery-reasons.ts';
import { parseRetryAfter } from '../../retry-after.ts';
import type { AccessTokenFetch } from '../maker-access-token.ts';
import type { MakerHttp } from '../maker-http.ts';
import { everyToken, type BatchVerdict, type MakerBatch, type MakerProtocol } from '../maker.ts';
import { classifyOppoAnswer, readOppoAnswer } from './classify-oppo-answer.ts';
import { oppoAccessToken } from './oppo-access-token.ts';
import type { OppoProfile } from './oppo-credentials.ts';
import { buildOppoMessage, oppoSendForm, type OppoMessage } from './oppo-message.ts';

const tooLarge = everyToken({ kind: 'failed', reason: 'PayloadTooLarge' });

/**
 * Most bytes of a send's answer kept: it lists every message of the batch
 * (`{"messageId":…,"registrationId":…}`, about 120 bytes each, more with an
 * error), so 1000 of them are well over the 64 KiB kept of other answers.
 */
export const maxOppoAnswerBytes = 512 * 1024;
const noAuthToken = everyToken({ kind: 'retry', reason: 'AccessTokenUnavailable' });

/**
 * OPPO Push's protocol for one profile: a signed auth token, and one
 * `POST <send URL>` (`unicast_batch`) per batch of up to 1000 messages, one
 * per registration id, its answer read message by message by
 * `classifyOppoAnswer`.
 */
export class OppoProtocol implements MakerProtocol {
  readonly maxTokens: number;
  readonly accessToken: AccessTokenFetch;
  readonly #profile: OppoProfile;
  readonly #http: MakerHttp;
  readonly #clock: Clock;
  /** Each push's notification, built once per profile. */
  readonly #messages = new WeakMap<MakerContent, OppoMessage>();

  constructor(profile: OppoProfile, context: { http: MakerHttp; clock: Clock }) {
    this.#profile = profile;
    this.#http = context.http;
    this.#clock = context.clock;
    this.maxTokens = profile.maxTokens;
    this.accessToken = oppoAccessToken(context.http, context.clock, profile);
  }

  async send(batch: MakerBatch): Promise<BatchVerdict> {
    const message = this.#messageOf(batch.content);
    // OPPO refuses action_parameters over 4000 characters (41) whoever the message goes to: not sent at all.
    if (message.tooLarge) return tooLarge;
    if (batch.authorization === undefined) return noAuthToken;
    const answer = await this.#http.post({
      url: this.#profile.sendUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: oppoSendForm(message, batch.tokens, batch.ttlSeconds, batch.authorization),
      maxAnswerBytes: maxOppoAnswerBytes,
    });
    if (answer.failure !== undefined) return everyToken(noAnswerOutcome(answer.failure));
    const read = readOppoAnswer(answer.status, answer.body, parseRetryAfter(answer.header('retry-after'), this.#clock.now()));
    const { verdict, unknownWord } = classifyOppoAnswer(read, batch.tokens, batch.proven);
    if (unknownWord !== undefined) batch.unknownWord(answer.status, unknownWord, answer.body);
    return verdict;
  }

  #messageOf(content: MakerContent): OppoMessage {
    let message = this.#messages.get(content);
    if (message === undefined) this.#messages.set(content, (message = buildOppoMessage(content, this.#profile)));
    return message;
  }
}
