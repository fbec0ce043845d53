/** The free one of a pool's connections with the fewest open streams, spreading load over them. */
export function freeWithFewestStreams<C extends { readonly streams: number; readonly free: boolean }>(connections: readonly C[]): C | undefined {
  let best: C | undefined;
  let bestStreams = Infinity;
  for (const connection of connections) {
    const streams = connection.streams;
    if (streams < bestStreams && connection.free) {
      best = connection;
      bestStreams = streams;
    }
  }
  return best;
}
