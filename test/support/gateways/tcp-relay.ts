import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP relay to a local port that can go silent: `freeze()` stops moving
 * bytes both ways without closing anything, as a dead link or a crashed
 * middlebox does; `hold()` keeps new connections waiting, as a slow
 * connect does. The client's TLS and HTTP/2 run through it unchanged.
 */
export class TcpRelay {
  readonly #server: Server;
  readonly #target: () => number;
  readonly #sockets = new Set<Socket>();
  #frozen = false;
  #held = false;
  /** Connections accepted while held, not yet relayed. */
  #waiting: Socket[] = [];
  #accepted = 0;

  /** A relay to `targetPort`, or to the port a function answers when a connection comes (a target started later). */
  static async start(targetPort: number | (() => number)): Promise<TcpRelay> {
    const relay = new TcpRelay(typeof targetPort === 'number' ? () => targetPort : targetPort);
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', () => resolve()));
    return relay;
  }

  private constructor(targetPort: () => number) {
    this.#server = createServer((client) => {
      this.#accepted += 1;
      this.#sockets.add(client);
      client.on('close', () => this.#sockets.delete(client));
      client.on('error', () => client.destroy());
      if (this.#held) {
        client.pause();
        this.#waiting.push(client);
      } else {
        this.#relay(client, targetPort());
      }
    });
    this.#target = targetPort;
  }

  #relay(client: Socket, port: number): void {
    const upstream = createConnection(port, '127.0.0.1');
    this.#sockets.add(upstream);
    upstream.on('close', () => {
      this.#sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      from.on('data', (chunk: Buffer) => {
        if (!this.#frozen) to.write(chunk);
      });
    }
    client.resume();
  }

  get origin(): string {
    return `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Drops every byte from now on, in both directions, on every connection (new ones too). */
  freeze(): void {
    this.#frozen = true;
  }

  /** Moves bytes again; what was dropped stays lost. */
  thaw(): void {
    this.#frozen = false;
  }

  /** Accepts new connections from now on but relays nothing of them until `release()`: a connect that takes its time. */
  hold(): void {
    this.#held = true;
  }

  /** Relays the connections held, and new ones at once. */
  release(): void {
    this.#held = false;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const client of waiting) if (!client.destroyed) this.#relay(client, this.#target());
  }

  /** Connections accepted so far, and those of them held now. */
  get connections(): { accepted: number; held: number } {
    return { accepted: this.#accepted, held: this.#waiting.length };
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
