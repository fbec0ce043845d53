import { readdir, readFile, readlink } from 'node:fs/promises';
import net from 'node:net';

/** Whether nothing listens on host:port: we can bind it ourselves. */
export async function isPortFree(host: string, port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise<boolean>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Names the process listening on a TCP port ("pid 4242: redis-server …"),
 * from /proc/net/tcp{,6} and the socket links under /proc/<pid>/fd. Best
 * effort: processes of other users stay anonymous. With `host` (an IPv4
 * address), a listener on another address with the same port is not it.
 */
export async function describePortHolder(port: number, host?: string): Promise<string> {
  const inodes = new Set<string>();
  const addresses = host === undefined ? undefined : procAddresses(host);
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      const address = local?.slice(0, local.indexOf(':'));
      if (addresses !== undefined && address !== undefined && address.length === 8 && !addresses.has(address)) continue;
      // State 0A is LISTEN; the port is the hex after the colon.
      if (fields[3] === '0A' && local && Number.parseInt(local.slice(local.indexOf(':') + 1), 16) === port && fields[9]) {
        inodes.add(`socket:[${fields[9]}]`);
      }
    }
  }
  if (inodes.size === 0) return 'another process';
  for (const entry of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(entry)) continue;
    const fds = await readdir(`/proc/${entry}/fd`).catch(() => []);
    for (const fd of fds) {
      const target = await readlink(`/proc/${entry}/fd/${fd}`).catch(() => '');
      if (inodes.has(target)) {
        const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' ').trim();
        return `pid ${entry}${cmdline ? `: ${cmdline.length > 80 ? `${cmdline.slice(0, 77)}...` : cmdline}` : ''}`;
      }
    }
  }
  return 'a process this user cannot inspect';
}

/** `host` and the any-address as /proc/net/tcp writes them (little-endian hex), or undefined for a host that is no IPv4 address. */
function procAddresses(host: string): Set<string> | undefined {
  const octets = host.split('.').map(Number);
  if (octets.length !== 4 || octets.some((octet) => !Number.isInteger(octet) || octet < 0 || octet > 255)) return undefined;
  const hex = octets
    .reverse()
    .map((octet) => octet.toString(16).padStart(2, '0').toUpperCase())
    .join('');
  return new Set([hex, '00000000']);
}
