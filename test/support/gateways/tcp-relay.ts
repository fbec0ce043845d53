import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP relay to a local port that can go silent: `freeze()` stops moving
 * bytes both ways without closing anything, as a dead link or a crashed
 * middlebox does. The client's TLS and HTTP/2 run through it unchanged.
 */
export class TcpRelay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #frozen = false;

  static async start(targetPort: number): Promise<TcpRelay> {
    const relay = new TcpRelay(targetPort);
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', () => resolve()));
    return relay;
  }

  private constructor(targetPort: number) {
    this.#server = createServer((client) => {
      const upstream = createConnection(targetPort, '127.0.0.1');
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.#sockets.add(from);
        from.on('data', (chunk: Buffer) => {
          if (!this.#frozen) to.write(chunk);
        });
        from.on('error', () => to.destroy());
        from.on('close', () => {
          this.#sockets.delete(from);
          to.destroy();
        });
      }
    });
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

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
