/**
 * A connection's keep-alive: a PING every interval, each with its own
 * payload, and a connection whose last PING has gone a whole interval
 * without its ack is dead (a half-open socket never errors). Only the ack of
 * our own PING counts: a peer echoing acks it was never sent proves nothing.
 */
export class PingKeepAlive {
  readonly #intervalMs: number;
  readonly #send: (payload: Buffer) => void;
  readonly #dead: () => void;
  #timer: NodeJS.Timeout | undefined;
  /** The payload of our PING not yet acked. */
  #due: Buffer | undefined;
  #sent = 0;

  /** `send` writes a PING with the payload; `dead` drops the connection. */
  constructor(intervalMs: number, send: (payload: Buffer) => void, dead: () => void) {
    this.#intervalMs = intervalMs;
    this.#send = send;
    this.#dead = dead;
  }

  /** Starts pinging; the timer keeps no process alive. */
  start(): void {
    this.#timer ??= setInterval(() => this.#tick(), this.#intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** A PING ack with `buffer[start, end)` came: answers whether it acks the PING we wait for. */
  acked(buffer: Buffer, start: number, end: number): boolean {
    if (this.#due === undefined || this.#due.compare(buffer, start, end) !== 0) return false;
    this.#due = undefined;
    return true;
  }

  #tick(): void {
    if (this.#due !== undefined) {
      this.stop();
      this.#dead();
      return;
    }
    this.#sent += 1;
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(this.#sent, 4);
    this.#due = payload;
    this.#send(payload);
  }
}
