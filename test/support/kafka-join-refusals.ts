import net from 'node:net';
import type { ISocketFactory } from 'kafkajs';

const joinGroupApiKey = 11;
/** GROUP_COORDINATOR_NOT_AVAILABLE: what a broker answers while a group's coordinator is loading or moving. */
const coordinatorNotAvailable = 15;

/**
 * A kafkajs socket factory that, while `refusing`, answers every JoinGroup
 * request itself with GROUP_COORDINATOR_NOT_AVAILABLE, the answer a broker
 * gives while the group's coordinator is loading or moving. A refused request
 * never reaches the broker, so the broker holds no half-joined member; every
 * other request and answer passes through unchanged.
 *
 * Kafka frames both ways as a 4-byte size and a payload; a request payload
 * starts with its API key, version and correlation id, an answer's with the
 * correlation id. Answers are handed to kafkajs a whole frame at a time so
 * that a made-up answer never lands inside a real one.
 */
export class JoinGroupRefusals {
  refusing = true;
  /** JoinGroup requests refused so far. */
  refused = 0;

  readonly socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = net.connect({ host, port }, onConnect);
    socket.setKeepAlive(true, 60_000);
    const emit = socket.emit.bind(socket);
    const write = socket.write.bind(socket);
    const requests = new Frames();
    const answers = new Frames();
    const madeUp: Buffer[] = [];
    const deliver = (frame: Buffer): void => void emit('data', frame);
    const flushMadeUp = (): void => {
      if (answers.pending) return;
      for (const frame of madeUp.splice(0)) deliver(frame);
    };

    socket.write = ((chunk: Buffer | string) => {
      for (const frame of requests.push(typeof chunk === 'string' ? Buffer.from(chunk, 'binary') : chunk)) {
        if (this.refusing && frame.readInt16BE(4) === joinGroupApiKey) {
          this.refused += 1;
          madeUp.push(refusal(frame));
          setImmediate(flushMadeUp);
        } else {
          write(frame);
        }
      }
      return true;
    });

    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event !== 'data') return emit(event, ...args);
      for (const frame of answers.push(args[0] as Buffer)) deliver(frame);
      flushMadeUp();
      return true;
    }) as typeof socket.emit;
    return socket;
  };
}

/** The JoinGroup answer with the coordinator unavailable, for `request`'s correlation id. */
function refusal(request: Buffer): Buffer {
  const version = request.readInt16BE(6);
  // v2 to v5 (kafkajs' range from v2) share this layout; v0 and v1 have no throttle time.
  if (version < 2 || version > 5) throw new Error(`JoinGroupRefusals: JoinGroup v${version} is not handled`);
  const answer = Buffer.alloc(4 + 24);
  answer.writeInt32BE(24, 0);
  answer.writeInt32BE(request.readInt32BE(8), 4); // correlation id
  answer.writeInt32BE(0, 8); // throttle_time_ms
  answer.writeInt16BE(coordinatorNotAvailable, 12); // error_code
  answer.writeInt32BE(-1, 14); // generation_id
  // group_protocol, leader_id and member_id empty (int16 length 0 each), no members (int32 0).
  return answer;
}

/** Splits a byte stream into whole size-prefixed frames. */
class Frames {
  #buffer: Buffer = Buffer.alloc(0);

  /** Whether a frame has begun and not yet ended. */
  get pending(): boolean {
    return this.#buffer.length > 0;
  }

  push(chunk: Buffer): Buffer[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const frames: Buffer[] = [];
    while (this.#buffer.length >= 4) {
      const end = 4 + this.#buffer.readInt32BE(0);
      if (this.#buffer.length < end) break;
      frames.push(this.#buffer.subarray(0, end));
      this.#buffer = this.#buffer.subarray(end);
    }
    return frames;
  }
}
