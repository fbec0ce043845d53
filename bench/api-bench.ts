/**
 * `npm run bench:api [-- --store sqlite] [--duration 10] [--connections 32]`
 *
 * Starts the service as its own process (as `npm start` does) on a fresh data
 * directory, drives it from this process with autocannon over loopback, and
 * reports requests/second and p50/p99 latency for GET /1.1/users/me, login and
 * registration. Results are printed and written to bench/results/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

interface ScenarioResult {
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  connections: number;
  durationSeconds: number;
}

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
  },
});
const store = values.store;
if (store !== 'sqlite') {
  process.stderr.write(`bench: unknown store "${store}"; this build supports: sqlite\n`);
  process.exit(2);
}
const duration = Number(values.duration);
const connections = Number(values.connections);
const root = resolve(import.meta.dirname, '..');
const app = { id: 'bench', key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };

function startServer(dataDir: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [join(root, 'src/main.ts')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', HERALD_DATA_DIR: dataDir, HERALD_LOG_LEVEL: 'info', HERALD_APP_ID: app.id, HERALD_APP_KEY: app.key, HERALD_MASTER_KEY: app.masterKey },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"port":(\d+)[^\n]*"msg":"api listening"/.exec(out);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolvePromise({ child, port: Number(match[1]) });
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

const headers = { 'X-SVC-Id': app.id, 'X-SVC-Key': app.key, 'Content-Type': 'application/json' };

async function run(scenario: string, options: autocannon.Options): Promise<ScenarioResult> {
  const result = await autocannon({ duration, connections, ...options });
  return {
    scenario,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    connections: options.connections ?? connections,
    durationSeconds: duration,
  };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-'));
  const { child, port } = await startServer(dataDir);
  const base = `http://127.0.0.1:${port}`;
  try {
    const reg = await fetch(`${base}/1.1/users`, { method: 'POST', headers, body: JSON.stringify({ username: 'bench-user', password: 'bench-pass' }) });
    const { sessionToken } = (await reg.json()) as { sessionToken: string };
    const results: ScenarioResult[] = [];

    results.push(await run('GET /1.1/users/me', { url: `${base}/1.1/users/me`, headers: { ...headers, 'X-SVC-Session': sessionToken } }));
    results.push(
      await run('POST /1.1/login', {
        url: `${base}/1.1/login`,
        method: 'POST',
        headers,
        body: JSON.stringify({ username: 'bench-user', password: 'bench-pass' }),
      }),
    );
    let next = 0;
    const prefix = randomBytes(4).toString('hex');
    results.push(
      await run('POST /1.1/users (register)', {
        url: `${base}/1.1/users`,
        method: 'POST',
        headers,
        requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify({ username: `u${prefix}${next++}`, password: 'bench-pass' }) }) }],
      }),
    );

    const report = {
      store,
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      date: new Date().toISOString(),
      note: 'server and load generator share this machine; argon2id (m=19456 KiB, t=2, p=1) bounds login and registration',
      results,
    };
    const outDir = join(root, 'bench/results');
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, `api-${store}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    const lines = [
      `store=${store} node=${process.version} cpus=${report.cpus} duration=${duration}s connections=${connections}`,
      'scenario                       req/s     p50 ms   p99 ms   requests  non-2xx  errors',
      ...results.map(
        (r) =>
          `${r.scenario.padEnd(30)} ${String(r.requestsPerSecond).padStart(6)} ${String(r.p50Ms).padStart(10)} ${String(r.p99Ms).padStart(8)} ${String(r.requests).padStart(10)} ${String(r.non2xx).padStart(8)} ${String(r.errors).padStart(7)}`,
      ),
      `written to ${file}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${String(error)}\n`);
  process.exit(1);
});
