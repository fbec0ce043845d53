/**
 * The child of `measureFloors`: one APNs client sending and nothing
 * else — bare `node:http2`, or Herald's `ApnsClient` without the engine
 * around it. Settings come as JSON in argv[2]; the figures go to stdout as JSON.
 */
import { createPrivateKey, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import { ApnsClient } from '../../src/push/gateways/apns-client.ts';
import type { FloorChildResult, FloorChildSettings } from './client-floor.ts';

const settings = JSON.parse(process.argv[2] ?? '{}') as FloorChildSettings;
const body = readFileSync(settings.payloadFile);
const ca = readFileSync(settings.caFile);

/** Sends one request to `token`; calls back once with whether it was answered 200. */
type Send = (token: string, done: (ok: boolean) => void) => void;

interface Client {
  send: Send;
  close(): Promise<void>;
}

async function bareClient(): Promise<Client> {
  const open = async (): Promise<ClientHttp2Session> => {
    const session = connect(settings.origin, { ca });
    await new Promise<void>((resolve, reject) => {
      session.once('remoteSettings', () => resolve());
      session.once('error', reject);
    });
    return session;
  };
  const sessions = await Promise.all(Array.from({ length: settings.sessions }, open));
  let turn = 0;
  const headers = ['apns-topic', settings.topic, 'apns-push-type', settings.pushType, 'authorization', `bearer ${settings.jwt}`, 'apns-priority', String(settings.priority)];
  return {
    send(token, done) {
      turn += 1;
      const session = sessions[turn % sessions.length] as ClientHttp2Session;
      // The headers Herald sends, in its raw array form.
      const stream = session.request([':method', 'POST', ':path', `/3/device/${token}`, ...headers]);
      let ok = false;
      stream.on('response', (answer) => {
        ok = answer[':status'] === 200;
        stream.resume();
      });
      stream.on('error', () => undefined);
      stream.on('close', () => done(ok));
      stream.end(body);
    },
    async close() {
      await Promise.all(sessions.map((session) => new Promise<void>((resolve) => session.close(resolve))));
    },
  };
}

function heraldClient(): Client {
  const client = new ApnsClient({
    endpoint: settings.origin,
    ca,
    auth: { kind: 'token', key: createPrivateKey(readFileSync(settings.keyFile)), keyId: settings.keyId, teamId: settings.teamId },
    sessions: settings.sessions,
    transport: settings.transport,
  });
  return {
    send(token, done) {
      void client.send({ token, topic: settings.topic, pushType: settings.pushType, priority: settings.priority, payload: body }).then((outcome) => done(outcome.kind === 'delivered'));
    },
    close: () => client.close(),
  };
}

/** Sends `count` requests to distinct tokens, at most `inFlight` at once; answers how many were answered 200. */
function sendAll(client: Client, count: number): Promise<number> {
  // The tokens are made before the clock starts: only the sending is measured.
  const tokens = randomBytes(32 * count).toString('hex');
  let sent = 0;
  let settled = 0;
  let ok = 0;
  let inFlight = 0;
  return new Promise((resolve) => {
    const done = (delivered: boolean): void => {
      if (delivered) ok += 1;
      inFlight -= 1;
      settled += 1;
      if (settled === count) resolve(ok);
      else pump();
    };
    const pump = (): void => {
      while (inFlight < settings.inFlight && sent < count) {
        const token = tokens.slice(sent * 64, sent * 64 + 64);
        sent += 1;
        inFlight += 1;
        client.send(token, done);
      }
    };
    pump();
  });
}

const client = settings.client === 'node:http2' ? await bareClient() : heraldClient();
// Warm-up: the JIT, the sessions and their windows, the fake's one check of the provider token.
await sendAll(client, settings.warmUp);
const cpuBefore = process.cpuUsage();
const started = performance.now();
const ok = await sendAll(client, settings.requests);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const result: FloorChildResult = { requests: settings.requests, ok, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
process.stdout.write(`${JSON.stringify(result)}\n`);
// http2-wrapper unrefs an idle session, and this process has nothing else
// holding its event loop: keep it up until the GOAWAY exchange is done.
const hold = setInterval(() => undefined, 1000);
await client.close();
clearInterval(hold);
