import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../../../core/clock.ts';
import type { MakerContent } from '../../../payload/maker-content.ts';
import { noAnswerOutcome } from '../../delivery-reasons.ts';
import { parseRetryAfter } from '../../retry-after.ts';
import type { AccessTokenFetch } from '../maker-access-token.ts';
import type { MakerAnswer, MakerHttp } from '../maker-http.ts';
import { everyToken, type BatchVerdict, type MakerBatch, type MakerProtocol } from '../maker.ts';
import { classifyVivoAnswer, readVivoAnswer, vivoTaskGone, type VivoAnswer } from './classify-vivo-answer.ts';
import { vivoAccessToken } from './vivo-access-token.ts';
import type { VivoProfile } from './vivo-credentials.ts';
import { buildVivoMessage, vivoPushToListBody, vivoSaveListBody, vivoSendBody, type VivoMessage } from './vivo-message.ts';

const tooLarge = everyToken({ kind: 'failed', reason: 'PayloadTooLarge' });
const noAuthToken = everyToken({ kind: 'retry', reason: 'AccessTokenUnavailable' });

/** A push as this profile sends it: its message, the key of its requestIds, and its message saved for list sends. */
interface VivoPush {
  readonly message: VivoMessage;
  /** Random, one per push and profile: the start of every requestId of the push. */
  readonly key: string;
  saved: Promise<Saved> | undefined;
  saves: number;
}

/** A saved message's taskId, or what the save's answer said instead. */
type Saved = { taskId: string } | { verdict: BatchVerdict };

/**
 * vivo Push's protocol for one profile: a signed authToken, and per batch
 * either `POST <send>` (`/message/send`) for one regId or, for 2 to 1000,
 * `POST <sendList>` (`/message/pushToList`) naming the taskId of the push's
 * message, saved once per push and profile through `POST <saveList>`
 * (`/message/saveListPayload`) and shared by every batch of the push (the
 * saves count against a daily limit of their own). A taskId vivo no longer
 * knows (10152, 10155) is saved again once.
 *
 * Each request carries a `requestId` made of the push's key and a digest of
 * its regIds: a batch sent again as it was (after a timeout or a 5xx) keeps
 * its id, so vivo can tell it is the same request.
 */
export class VivoProtocol implements MakerProtocol {
  readonly maxTokens: number;
  readonly accessToken: AccessTokenFetch;
  readonly #profile: VivoProfile;
  readonly #http: MakerHttp;
  readonly #clock: Clock;
  readonly #pushes = new WeakMap<MakerContent, VivoPush>();

  constructor(profile: VivoProfile, context: { http: MakerHttp; clock: Clock }) {
    this.#profile = profile;
    this.#http = context.http;
    this.#clock = context.clock;
    this.maxTokens = profile.maxTokens;
    this.accessToken = vivoAccessToken(context.http, context.clock, profile);
  }

  async send(batch: MakerBatch): Promise<BatchVerdict> {
    const push = this.#pushOf(batch.content);
    // vivo refuses a clientCustomMap over its bounds (10067) whoever the message goes to: not sent at all.
    if (push.message.tooLarge) return tooLarge;
    const { authorization } = batch;
    if (authorization === undefined) return noAuthToken;
    const requestId = `${push.key}-${createHash('sha256').update(batch.tokens.join('\n')).digest('hex').slice(0, 24)}`;
    if (batch.tokens.length === 1) {
      const body = vivoSendBody(push.message, batch.tokens[0] as string, requestId, batch.ttlSeconds);
      return this.#verdict(batch, await this.#post(this.#profile.sendUrl, authorization, body));
    }
    for (let attempt = 0; ; attempt += 1) {
      const saving = this.#saved(push, batch, authorization);
      const saved = await saving;
      if ('verdict' in saved) return saved.verdict;
      const answer = await this.#post(this.#profile.sendListUrl, authorization, vivoPushToListBody(push.message, batch.tokens, saved.taskId, requestId));
      if (attempt === 0 && answer.failure === undefined) {
        const { result } = readVivoAnswer(answer.status, answer.body);
        if (result !== undefined && vivoTaskGone.has(result)) {
          if (push.saved === saving) push.saved = undefined;
          continue;
        }
      }
      return this.#verdict(batch, answer);
    }
  }

  /** The push's saved message: one save for every batch of the push, made again when it failed or vivo forgot it. */
  #saved(push: VivoPush, batch: MakerBatch, authorization: string): Promise<Saved> {
    if (push.saved !== undefined) return push.saved;
    push.saves += 1;
    const saving = this.#save(push, batch, authorization, `${push.key}-save${push.saves}`);
    push.saved = saving;
    void saving.then((saved) => {
      if ('verdict' in saved && push.saved === saving) push.saved = undefined;
    });
    return saving;
  }

  async #save(push: VivoPush, batch: MakerBatch, authorization: string, requestId: string): Promise<Saved> {
    const answer = await this.#post(this.#profile.saveListUrl, authorization, vivoSaveListBody(push.message, requestId, batch.ttlSeconds));
    if (answer.failure === undefined && answer.status === 200) {
      const read = readVivoAnswer(answer.status, answer.body);
      if (read.result === '0' && read.taskId !== undefined && read.taskId !== '') return { taskId: read.taskId };
      if (read.result === '0') {
        batch.unknownWord(answer.status, 'no taskId', answer.body);
        return { verdict: everyToken({ kind: 'failed', reason: 'Other' }) };
      }
    }
    return { verdict: this.#verdict(batch, answer) };
  }

  #post(url: URL, authorization: string, body: string): Promise<MakerAnswer> {
    return this.#http.post({ url, headers: { 'content-type': 'application/json;charset=utf-8', authtoken: authorization }, body });
  }

  #verdict(batch: MakerBatch, answer: MakerAnswer): BatchVerdict {
    if (answer.failure !== undefined) return everyToken(noAnswerOutcome(answer.failure));
    const read: VivoAnswer = readVivoAnswer(answer.status, answer.body, parseRetryAfter(answer.header('retry-after'), this.#clock.now()));
    const { verdict, unknownWord } = classifyVivoAnswer(read, batch.tokens, batch.proven);
    if (unknownWord !== undefined) batch.unknownWord(answer.status, unknownWord, answer.body);
    return verdict;
  }

  #pushOf(content: MakerContent): VivoPush {
    let push = this.#pushes.get(content);
    if (push === undefined) {
      push = { message: buildVivoMessage(content, this.#profile), key: randomBytes(8).toString('hex'), saved: undefined, saves: 0 };
      this.#pushes.set(content, push);
    }
    return push;
  }
}
