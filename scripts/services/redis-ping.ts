import net from 'node:net';

/**
 * Sends PING and INFO server over one plain RESP connection and resolves with
 * the server's version once PING answered PONG. A raw socket rather than a
 * client library: a probe that fails must leave no reconnect or timeout timer
 * behind, since it runs every half second while Redis starts.
 */
export function redisPing(host: string, port: number, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect({ host, port });
    let received = '';
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no answer from ${host}:${port} within ${timeoutMs} ms`)));
    socket.once('error', fail);
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n'));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (!received.includes('\r\n')) return;
      if (!received.startsWith('+PONG\r\n')) {
        // -LOADING, -NOAUTH and the like: the first line says why.
        fail(new Error(`PING answered ${received.slice(0, received.indexOf('\r\n'))}`));
        return;
      }
      // INFO's answer is one bulk string: $<length>\r\n<payload>\r\n.
      const info = /^\$(\d+)\r\n/.exec(received.slice('+PONG\r\n'.length));
      if (!info?.[1]) return;
      const start = '+PONG\r\n'.length + info[0].length;
      if (received.length < start + Number(info[1])) return;
      socket.end();
      resolve(/^redis_version:(.+)$/m.exec(received.slice(start, start + Number(info[1])))?.[1]?.trim() ?? 'unknown');
    });
    socket.once('close', () => reject(new Error(`${host}:${port} closed the connection`)));
  });
}
