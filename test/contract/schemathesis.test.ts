import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSchemathesis } from '../../scripts/tools/schemathesis.ts';
import { startHeraldProcess, type HeraldProcess } from '../support/herald-process.ts';
import { tallySchemathesisReport } from './schemathesis-report.ts';

const here = import.meta.dirname;
const configFile = resolve(here, 'schemathesis.toml');
const checksFile = resolve(here, 'herald_checks.py');

/** Runs `st` to its end; answers its exit code and output (the last 12,000 characters: the summary and the failures). */
function runSchemathesis(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  // Run where schemathesis and Hypothesis may leave their caches: the test's own folder, not the checkout.
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, SCHEMATHESIS_HOOKS: checksFile, NO_COLOR: '1', PYTHONUNBUFFERED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-12_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return new Promise((resolveRun, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolveRun({ code, output }));
  });
}

/**
 * schemathesis against Herald started as `npm start` starts it (no app
 * configured: the development app and its keys), with docs/openapi.json as
 * Herald serves it: every operation through the examples, coverage, fuzzing
 * and stateful phases (test/contract/schemathesis.toml: seeded, a bounded
 * number of examples), with the master key. Its checks: no 5xx, every status
 * and content type documented, every answer of its documented schema, and
 * (test/contract/herald_checks.py) every error `{code, error}`. Herald must
 * still be alive and healthy after, and have logged no error.
 */
describe('the REST contract, fuzzed by schemathesis against npm start', () => {
  let command: string;
  let dataDir: string;
  let herald: HeraldProcess;

  beforeAll(async () => {
    // Fails, never skips, when schemathesis cannot be installed: .ci/run installs it, and a first local run makes it.
    command = await ensureSchemathesis((line) => process.stdout.write(`schemathesis: ${line}\n`));
    dataDir = mkdtempSync(join(tmpdir(), 'herald-contract-'));
    herald = await startHeraldProcess({ HERALD_DATA_DIR: dataDir });
  }, 10 * 60_000);

  afterAll(async () => {
    await herald?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds no 5xx, no answer outside the document and no error outside {code, error}, and leaves Herald healthy', async () => {
    const keys = JSON.parse(readFileSync(join(dataDir, 'dev-app.json'), 'utf8')) as { id: string; masterKey: string };
    const base = `http://127.0.0.1:${herald.port}`;
    const reportDir = join(dataDir, 'schemathesis');
    const startedAt = Date.now();
    const { code, output } = await runSchemathesis(command, [
      '--config-file',
      configFile,
      'run',
      `${base}/1.1/openapi.json`,
      '--url',
      base,
      '--header',
      `X-SVC-Id: ${keys.id}`,
      '--header',
      `X-SVC-Key: ${keys.masterKey},master`,
      '--no-color',
      '--report',
      'ndjson',
      '--report-dir',
      reportDir,
    ], dataDir);
    const tally = tallySchemathesisReport(reportDir);
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    const statuses = Object.entries(tally.statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    process.stdout.write(`schemathesis: ${tally.requests} requests to ${Object.keys(tally.operations).length} operations in ${seconds} s (${statuses})\n`);

    expect(code, output).toBe(0);
    expect(tally.serverErrors).toEqual([]);
    expect(tally.requests).toBeGreaterThan(1000);
    expect(herald.child.exitCode, 'Herald is still running').toBeNull();
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    const errorLines = herald.stdout().split('\n').filter((line) => line.includes('"level":50'));
    expect(errorLines, 'Herald logged no error').toEqual([]);
  }, 15 * 60_000);
});
