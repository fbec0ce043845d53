import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook endpoint that takes every request and never answers: the worst
 * an app's endpoint can do to Herald (its queue fills and stays full), for
 * `bench:push --webhook stalled`.
 */
export async function startStalledEndpoint(): Promise<{ url: string; held(): number; close(): Promise<void> }> {
  const held = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    request.resume();
    held.add(response);
    response.on('close', () => held.delete(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    held: () => held.size,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
