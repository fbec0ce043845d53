/**
 * The child of `measureNodeHttp2Floor`: a bare `node:http2` client and nothing
 * else. Settings come as JSON in argv[2]; the figures go to stdout as JSON.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import type { FloorChildSettings, FloorChildResult } from './node-http2-floor.ts';

const settings = JSON.parse(process.argv[2] ?? '{}') as FloorChildSettings;
const body = readFileSync(settings.payloadFile);
const ca = readFileSync(settings.caFile);

async function open(): Promise<ClientHttp2Session> {
  const session = connect(settings.origin, { ca });
  await new Promise<void>((resolve, reject) => {
    session.once('remoteSettings', () => resolve());
    session.once('error', reject);
  });
  return session;
}

/** Sends `count` requests to distinct tokens, at most `inFlight` at once over the sessions in turn; answers how many were answered 200. */
function send(sessions: readonly ClientHttp2Session[], count: number): Promise<number> {
  // The tokens are made before the clock starts: only the sending is measured.
  const tokens = randomBytes(32 * count).toString('hex');
  let sent = 0;
  let settled = 0;
  let ok = 0;
  let inFlight = 0;
  return new Promise((resolve, reject) => {
    const pump = (): void => {
      while (inFlight < settings.inFlight && sent < count) {
        const session = sessions[sent % sessions.length] as ClientHttp2Session;
        const path = `/3/device/${tokens.slice(sent * 64, sent * 64 + 64)}`;
        sent += 1;
        inFlight += 1;
        // The headers Herald sends, in its raw array form.
        const stream = session.request([':method', 'POST', ':path', path, ...settings.headers]);
        stream.on('response', (headers) => {
          if (headers[':status'] === 200) ok += 1;
          stream.resume();
        });
        stream.on('error', reject);
        stream.on('close', () => {
          inFlight -= 1;
          settled += 1;
          if (settled === count) resolve(ok);
          else pump();
        });
        stream.end(body);
      }
    };
    pump();
  });
}

const sessions = await Promise.all(Array.from({ length: settings.sessions }, () => open()));
// Warm-up: the JIT, the sessions' windows and the fake's one check of the provider token.
await send(sessions, Math.min(settings.warmUp, settings.requests));
const cpuBefore = process.cpuUsage();
const started = performance.now();
const ok = await send(sessions, settings.requests);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
await Promise.all(sessions.map((session) => new Promise<void>((resolve) => session.close(resolve))));
const result: FloorChildResult = { requests: settings.requests, ok, seconds, cpuSeconds };
process.stdout.write(`${JSON.stringify(result)}\n`);
