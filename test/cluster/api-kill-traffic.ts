import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { NoAnswerError, type ApiAnswer, type ApiClient } from './api-client.ts';
import { audienceOf, installationBody, type Audience, type FleetDevice } from './device-fleet.ts';

/** Requests in flight at once, over both nodes. */
const inFlight = 20;
/** One push (to the last few devices saved) every this many saves. */
const pushEvery = 25;
const pushSize = 5;
/** Between resends of a request refused with 503: pacing, as a client backs off. */
const resendPauseMs = 500;
/** The channel the traffic's devices are saved on. */
export const lateChannel = 'late';

interface Sent {
  /** `save` of one device, or `push` to a few saved ones. */
  kind: 'save' | 'push';
  device?: FleetDevice;
  push?: { marker: string; reqId: string; devices: FleetDevice[] };
}

/**
 * Installation saves sent round robin to the API nodes, `inFlight` at a
 * time, and now and then a push to the last devices saved, while one node is
 * killed. Each answer is sorted: accepted, refused with 503, unanswered (a
 * connection refused or dropped), or unexpected (anything else, a finding).
 * Unanswered and refused requests can then be sent again to the live node,
 * as an SDK or a backend would.
 *
 * Pushes go round robin to the nodes too, each with a req_id: one cut off on
 * the killed node, anywhere between its record write, its claim and its
 * publish, is sent again to the live node and must then go out exactly once
 * (docs/push-engine.md, `req_id`).
 */
export class ApiKillTraffic {
  /** Devices whose save was accepted at the first try. */
  saved = 0;
  /** Markers (notification ids) of pushes accepted, at the first try or when sent again. */
  readonly acceptedPushes: string[] = [];
  readonly unanswered: Sent[] = [];
  readonly refused: Sent[] = [];
  readonly unexpected: string[] = [];
  readonly #devices: readonly FleetDevice[];
  readonly #pushes = new Map<string, FleetDevice[]>();
  readonly #savedIos: FleetDevice[] = [];
  #next = 0;

  constructor(devices: readonly FleetDevice[]) {
    this.#devices = devices;
  }

  /** Saves every device once through `saveClients`, and pushes now and then through `pushClients`, each in turn; resolves when all were sent. */
  async run(saveClients: readonly ApiClient[], pushClients: readonly ApiClient[]): Promise<void> {
    let pushes = 0;
    const worker = async (): Promise<void> => {
      while (this.#next < this.#devices.length) {
        const index = this.#next++;
        const client = saveClients[index % saveClients.length] as ApiClient;
        await this.#send(client, { kind: 'save', device: this.#devices[index] });
        if (index % pushEvery === pushEvery - 1 && this.#savedIos.length >= pushSize) {
          const marker = `late${index}${randomBytes(2).toString('hex')}`;
          const pushClient = pushClients[pushes++ % pushClients.length] as ApiClient;
          await this.#send(pushClient, { kind: 'push', push: { marker, reqId: marker, devices: this.#savedIos.slice(-pushSize) } });
        }
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
  }

  /**
   * Sends what got no answer or a 503 again to `client`, `inFlight` at a
   * time, each until it is accepted: a 503 or no answer is retried for up to
   * `patienceMs` (a device whose save the killed node left half-way is held
   * for the store's claim grace, 30 s, and answers 503 meanwhile); any other
   * answer fails.
   */
  async resend(client: ApiClient, patienceMs = 60_000): Promise<void> {
    const queue = [...this.unanswered, ...this.refused];
    const deadline = performance.now() + patienceMs;
    const worker = async (): Promise<void> => {
      for (let sent = queue.shift(); sent !== undefined; sent = queue.shift()) {
        for (;;) {
          const answer = await this.#request(client, sent).catch((error: unknown) => {
            if (error instanceof NoAnswerError) return null;
            throw error;
          });
          if (answer !== null && (answer.status === 200 || answer.status === 201)) break;
          if (answer !== null && answer.status !== 503) throw new Error(`${describeSent(sent)} sent again answered ${answer.status}: ${JSON.stringify(answer.body)}`);
          if (performance.now() > deadline) {
            const last = answer === null ? 'no answer' : `503 ${JSON.stringify(answer.body)}`;
            throw new Error(`${describeSent(sent)} was still refused after ${patienceMs} ms of resending: ${last}`);
          }
          await delay(resendPauseMs);
        }
        if (sent.push !== undefined) this.acceptedPushes.push(sent.push.marker);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
  }

  audienceOfPush(marker: string): Audience {
    return audienceOf(this.#pushes.get(marker) ?? []);
  }

  describe(): string {
    return `${this.saved} saves accepted, ${this.acceptedPushes.length} pushes accepted, ${this.refused.length} refused with 503, ${this.unanswered.length} unanswered, unexpected: ${this.unexpected.join('; ') || 'none'}`;
  }

  async #send(client: ApiClient, sent: Sent): Promise<void> {
    let answer: ApiAnswer;
    try {
      answer = await this.#request(client, sent);
    } catch (error) {
      if (!(error instanceof NoAnswerError)) throw error;
      this.unanswered.push(sent);
      return;
    }
    if (answer.status === 503) this.refused.push(sent);
    else if (sent.kind === 'save' && answer.status === 201) this.#saved(sent.device as FleetDevice);
    else if (sent.kind === 'push' && answer.status === 201) this.acceptedPushes.push(sent.push?.marker as string);
    else this.unexpected.push(`${describeSent(sent)} answered ${answer.status} ${JSON.stringify(answer.body)}`);
  }

  #request(client: ApiClient, sent: Sent): Promise<ApiAnswer> {
    if (sent.kind === 'save') {
      const device = sent.device as FleetDevice;
      return client.request('POST', '/1.1/installations', { body: installationBody(device, [lateChannel]) });
    }
    const push = sent.push as NonNullable<Sent['push']>;
    this.#pushes.set(push.marker, push.devices);
    // The same req_id when sent again: a push that was accepted before its answer was lost is not sent twice.
    return client.pushToDevices({
      device_type: 'ios',
      device_ids: push.devices.map((device) => device.address),
      data: { alert: 'Late', marker: push.marker },
      notification_id: push.marker,
      req_id: push.reqId,
    });
  }

  #saved(device: FleetDevice): void {
    this.saved++;
    if (device.platform === 'ios') this.#savedIos.push(device);
  }
}

function describeSent(sent: Sent): string {
  return sent.kind === 'save' ? `saving device ${sent.device?.n}` : `push ${sent.push?.marker}`;
}
