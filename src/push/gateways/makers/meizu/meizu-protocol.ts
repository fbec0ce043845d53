import type { Clock } from '../../../../core/clock.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';
import { noAnswerOutcome } from '../../delivery-reasons.ts';
import type { DeliveryOutcome } from '../../delivery.ts';
import { parseRetryAfter } from '../../retry-after.ts';
import type { MakerHttp } from '../maker-http.ts';
import { everyToken, type BatchVerdict, type MakerBatch, type MakerProtocol } from '../maker.ts';
import { saysOther } from '../shared/says-other.ts';
import { classifyMeizuAnswer, readMeizuAnswer, unknownMapCodes } from './classify-meizu-answer.ts';
import type { MeizuProfile } from './meizu-credentials.ts';
import { buildMeizuMessage, meizuMessageJson, type MeizuMessage } from './meizu-message.ts';
import { meizuSign } from './meizu-sign.ts';

const badPushId: DeliveryOutcome = Object.freeze({ kind: 'failed', reason: 'MeizuBadPushId' });

/**
 * Meizu Flyme Push's protocol for one profile: no access token; one signed
 * form `POST <send URL>` (`varnished/pushByPushId`: `appId`, `pushIds` comma
 * separated, `messageJson`, `sign`) per batch of up to 100 pushIds, its
 * answer read by `classifyMeizuAnswer`.
 *
 * Not Meizu's task API (`getTaskId`, then `task/varnished/pushByPushId`):
 * its pushId lists are held to 100 too, so it would only add a request per
 * push and per profile, and a task id to keep across retries.
 */
export class MeizuProtocol implements MakerProtocol {
  readonly maxTokens: number;
  readonly #profile: MeizuProfile;
  readonly #http: MakerHttp;
  readonly #clock: Clock;
  /** Each push's message, built once per profile. */
  readonly #messages = new WeakMap<MakerContent, MeizuMessage>();

  constructor(profile: MeizuProfile, context: { http: MakerHttp; clock: Clock }) {
    this.#profile = profile;
    this.#http = context.http;
    this.#clock = context.clock;
    this.maxTokens = profile.maxTokens;
  }

  async send(batch: MakerBatch): Promise<BatchVerdict> {
    // A comma would split one registrationId into several pushIds: such an id is never sent.
    const pushIds = batch.tokens.filter((token) => token !== '' && !token.includes(','));
    const refused = batch.tokens.filter((token) => !pushIds.includes(token));
    const verdict = pushIds.length === 0 ? everyToken(badPushId) : await this.#send(batch, pushIds);
    if (refused.length === 0 || verdict.kind !== 'tokens') return verdict;
    const outcomes = new Map(verdict.outcomes);
    for (const token of refused) outcomes.set(token, badPushId);
    return { ...verdict, outcomes };
  }

  async #send(batch: MakerBatch, pushIds: readonly string[]): Promise<BatchVerdict> {
    const params: Record<string, string> = {
      appId: this.#profile.appId,
      pushIds: pushIds.join(','),
      messageJson: meizuMessageJson(this.#messageOf(batch.content), batch.ttlSeconds),
    };
    params.sign = meizuSign(params, this.#profile.appSecret);
    const answer = await this.#http.post({
      url: this.#profile.sendUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: new URLSearchParams(params).toString(),
    });
    if (answer.failure !== undefined) return everyToken(noAnswerOutcome(answer.failure));
    const read = readMeizuAnswer(answer.status, answer.body, parseRetryAfter(answer.header('retry-after'), this.#clock.now()));
    const verdict = classifyMeizuAnswer(read, pushIds, batch.proven);
    if (saysOther(verdict)) batch.unknownWord(answer.status, read.code, answer.body);
    for (const mapCode of unknownMapCodes(read)) batch.unknownWord(answer.status, `value.${mapCode}`, answer.body);
    return verdict;
  }

  #messageOf(content: MakerContent): MeizuMessage {
    let message = this.#messages.get(content);
    if (message === undefined) this.#messages.set(content, (message = buildMeizuMessage(content, this.#profile)));
    return message;
  }
}
