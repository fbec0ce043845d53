import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildApnsTemplate } from '../../src/push/payload/apns-template.ts';
import type { BenchGateways } from './bench-gateways.ts';

const run = promisify(execFile);

export interface CeilingSettings {
  /** Connections (`-c`). */
  connections: number;
  /** Streams per connection (`-m`). */
  streams: number;
  /** Measured seconds (`-D`), after one second of warm-up. */
  seconds: number;
}

export interface Ceiling extends CeilingSettings {
  requestsPerSecond: number;
  requests: number;
  succeeded: number;
  failed: number;
  /** The fake's CPU seconds over the h2load run, to see what limited it. */
  fakeCpuSeconds: number;
}

/** Device tokens h2load cycles through: as many distinct paths as the HPACK table cannot keep, as Herald sends. */
const ceilingTokens = 10_000;

/**
 * The fake APNs's own ceiling: `h2load` (nghttp2, written in C, so the client
 * costs little) sends what Herald sends — the same TLS, `POST
 * /3/device/<64 hex>` to distinct tokens, a provider token the fake verifies
 * once and remembers, the same headers and the same body — over several
 * connections and streams, for a fixed time. Herald's rate is judged against
 * this figure measured beside it, on the same busy machine.
 */
export async function measureCeiling(gateways: BenchGateways, data: Record<string, unknown>, settings: CeilingSettings): Promise<Ceiling> {
  const template = buildApnsTemplate({ data, expiresAt: null });
  const payloadFile = join(gateways.pki.dir, 'h2load-payload.json');
  writeFileSync(payloadFile, template.body);
  const jwt = await gateways.providerToken();
  // One path per device, as Herald's requests: a single repeated path would be a one-byte HPACK index for the fake to decode.
  const urisFile = join(gateways.pki.dir, 'h2load-uris.txt');
  const tokens = randomBytes(32 * ceilingTokens).toString('hex');
  let uris = '';
  for (let n = 0; n < ceilingTokens; n += 1) uris += `${gateways.apns.origin}/3/device/${tokens.slice(n * 64, n * 64 + 64)}\n`;
  writeFileSync(urisFile, uris);
  const before = await gateways.apns.counts();
  const args = [
    ...['-c', String(settings.connections), '-m', String(settings.streams), '-D', String(settings.seconds), '--warm-up-time', '1'],
    ...['-H', `authorization: bearer ${jwt}`, '-H', `apns-topic: ${gateways.pki.apns.topic}`],
    ...['-H', `apns-push-type: ${template.pushType}`, '-H', `apns-priority: ${template.priority}`],
    ...['-d', payloadFile, '-i', urisFile],
  ];
  let stdout: string;
  try {
    ({ stdout } = await run('h2load', args, { maxBuffer: 16 * 1024 * 1024 }));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error('h2load is not installed (Debian: apt-get install nghttp2-client)', { cause: error });
    throw error;
  }
  const after = await gateways.apns.counts();
  await gateways.reset();
  const rate = /finished in [\d.]+\w*, ([\d.]+) req\/s/.exec(stdout);
  const requests = /requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed/.exec(stdout);
  const twoHundreds = /status codes: (\d+) 2xx/.exec(stdout);
  if (rate === null || requests === null) throw new Error(`could not read h2load's output:\n${stdout}`);
  const succeeded = Number(requests[2]);
  if (twoHundreds === null || Number(twoHundreds[1]) !== succeeded || succeeded === 0) {
    throw new Error(`the fake APNs refused h2load's requests; h2load said:\n${stdout}`);
  }
  return {
    ...settings,
    requestsPerSecond: Math.round(Number(rate[1])),
    requests: Number(requests[1]),
    succeeded,
    failed: Number(requests[3]),
    fakeCpuSeconds: (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1e6,
  };
}
