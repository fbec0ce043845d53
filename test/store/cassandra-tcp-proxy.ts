import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';

/**
 * A TCP relay in front of a service that a test can cut and restore, to
 * see how a client behaves while the service is unreachable.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #port = 0;

  private constructor(targetHost: string, targetPort: number) {
    this.#server = createServer((downstream) => {
      const upstream = connect(targetPort, targetHost);
      for (const socket of [downstream, upstream]) {
        this.#sockets.add(socket);
        socket.on('error', () => socket.destroy());
        socket.on('close', () => {
          this.#sockets.delete(socket);
          downstream.destroy();
          upstream.destroy();
        });
      }
      downstream.pipe(upstream).pipe(downstream);
    });
  }

  static async start(target: string): Promise<TcpProxy> {
    const [host = '127.0.0.1', port = '9042'] = target.split(':');
    const proxy = new TcpProxy(host, Number(port));
    await proxy.resume();
    return proxy;
  }

  get address(): string {
    return `127.0.0.1:${this.#port}`;
  }

  /** Drops every connection and refuses new ones, as a stopped service would. */
  async cut(): Promise<void> {
    const closed = once(this.#server, 'close');
    this.#server.close();
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  /** Accepts connections again, on the same port. */
  async resume(): Promise<void> {
    this.#server.listen(this.#port, '127.0.0.1');
    await once(this.#server, 'listening');
    const address = this.#server.address();
    if (address !== null && typeof address === 'object') this.#port = address.port;
  }

  async stop(): Promise<void> {
    if (this.#server.listening) await this.cut();
  }
}
