import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config/load-config.ts';
import { renderChart, templateChart, ciValues, parseManifests } from '../deploy/support/helm-chart.ts';
import { startHeraldProcess, type HeraldProcess } from '../support/herald-process.ts';
import { codeBlocksOf, substituted, type CodeBlock } from './support/code-blocks.ts';
import { checkInvocation, type CheckContext, type CommandOutcome } from './support/command-checks.ts';
import { ExampleWorkspace, type BlockRun } from './support/example-workspace.ts';
import { manifestProblems } from './support/manifests.ts';

const repoRoot = join(import.meta.dirname, '../..');
/** Every document whose examples a reader copies. */
const documents = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`), 'charts/herald/README.md', 'scripts/services/README.md'];

const app = { id: 'shop', key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };
const deviceToken = randomBytes(32).toString('hex');

/** What became of each block, for the summary. */
const tally: { block: string; verdict: 'ran' | 'checked' | 'skipped'; reasons: string[] }[] = [];

let herald: HeraldProcess;
let workspace: ExampleWorkspace;
let global: [string, string][];
const dataDir = mkdtempSync(join(tmpdir(), 'herald-doc-herald-'));

/** What the chart makes with its values files and every optional object on: the objects kubectl examples may name. */
function chartObjectNames(): Set<string> {
  const objects = [
    ...renderChart({}),
    ...renderChart({ values: [ciValues.production], set: ['import.enabled=true', 'import.app=shop', 'import.claimName=hosted-export', 'networkPolicy.enabled=true'] }),
  ];
  return new Set(objects.map((object) => `${object.kind}/${object.metadata.name}`.toLowerCase()));
}

beforeAll(async () => {
  herald = await startHeraldProcess({ HERALD_APP_ID: app.id, HERALD_APP_KEY: app.key, HERALD_MASTER_KEY: app.masterKey, HERALD_DATA_DIR: dataDir });
  const push = await fetch(`http://127.0.0.1:${herald.port}/1.1/push`, {
    method: 'POST',
    headers: { 'X-SVC-Id': app.id, 'X-SVC-Key': `${app.masterKey},master`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ channels: ['news'], data: { alert: 'Hello' } }),
  });
  const pushId = ((await push.json()) as { objectId: string }).objectId;
  workspace = new ExampleWorkspace({
    APP_ID: app.id,
    APP_KEY: app.key,
    MASTER_KEY: app.masterKey,
    HERALD_APP_ID: app.id,
    HERALD_APP_KEY: app.key,
    HERALD_MASTER_KEY: app.masterKey,
    PUSH_ID: pushId,
    DEVICE_TOKEN: deviceToken,
  });
  global = [
    ['localhost:3000', `127.0.0.1:${herald.port}`],
    ['127.0.0.1:3000', `127.0.0.1:${herald.port}`],
    ['localhost:50051', `127.0.0.1:${herald.grpcPort}`],
  ];
}, 60_000);

afterAll(async () => {
  await herald?.stop();
  workspace?.remove();
  rmSync(dataDir, { recursive: true, force: true });
  const count = (verdict: string) => tally.filter((entry) => entry.verdict === verdict).length;
  const lines = [`examples of the documents: ${count('ran')} run, ${count('checked')} checked without running, ${count('skipped')} not runnable`];
  for (const entry of tally.filter((item) => item.verdict !== 'ran')) lines.push(`  ${entry.verdict} ${entry.block}: ${[...new Set(entry.reasons)].join('; ')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}, 60_000);

function describeRun(run: BlockRun): string {
  return `exit ${run.status}\n--- stdout\n${run.stdout.slice(-3000)}\n--- stderr\n${run.stderr.slice(-3000)}`;
}

async function runShellBlock(block: CodeBlock, context: CheckContext): Promise<CommandOutcome[]> {
  const run = await workspace.runShell(substituted(block, global, workspace.environment()), `block-${block.file.replace(/\W/g, '-')}-${block.line}`);
  expect(run.stderr, describeRun(run)).toBe('');
  expect(run.status, describeRun(run)).toBe(0);
  expect(run.invocations.length, 'a shell example runs at least one command').toBeGreaterThan(0);
  for (const text of block.expect) expect(run.stdout).toContain(text);
  const outcomes: CommandOutcome[] = [];
  for (const call of run.invocations) outcomes.push(await checkInvocation({ ...call, env: { ...call.env } }, context));
  return outcomes;
}

async function runNodeBlock(block: CodeBlock): Promise<void> {
  const extension = block.language === 'ts' ? 'mts' : 'mjs';
  const run = await workspace.runNode(substituted(block, global, workspace.environment()), `example-${block.file.replace(/\W/g, '-')}-${block.line}`, extension);
  expect(run.stderr, describeRun(run)).toBe('');
  expect(run.status, describeRun(run)).toBe(0);
  for (const text of block.expect) expect(run.stdout).toContain(text);
}

function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node: Record<string, unknown> = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ?? (node[part] = {})) as Record<string, unknown>;
  node[parts.at(-1) as string] = value;
}

/** A config block through Herald's loader: whole, or a fragment placed at `at` in a config of the test's app. */
function checkConfigBlock(block: CodeBlock): void {
  let config = (parseYaml(block.text) ?? {}) as Record<string, unknown>;
  if (block.at !== undefined) {
    const theApp = { id: app.id, key: app.key, masterKey: app.masterKey };
    if (block.at === 'apps.0') config = { apps: [{ ...theApp, ...config }] };
    else {
      const base: Record<string, unknown> = { apps: [theApp] };
      setAt(base, block.at.replace(/^apps\.0\./, 'apps.0.'), config);
      config = base;
    }
  }
  if (block.keys) {
    for (const entry of (config.apps ?? []) as Record<string, unknown>[]) {
      entry.key ??= app.key;
      entry.masterKey ??= app.masterKey;
    }
  }
  const file = join(workspace.dir, `config-${block.file.replace(/\W/g, '-')}-${block.line}.json`);
  writeFileSync(file, JSON.stringify(config));
  loadConfig({ env: { HERALD_CONFIG: file, HERALD_DATA_DIR: join(workspace.dir, 'data') } });
}

function checkHelmValuesBlock(block: CodeBlock): void {
  const file = join(workspace.dir, `values-${block.file.replace(/\W/g, '-')}-${block.line}.yaml`);
  writeFileSync(file, block.text);
  const result = templateChart({ values: [...(block.over === undefined ? [] : [join(repoRoot, block.over)]), file], testImage: false });
  expect(result.status, result.stderr).toBe(0);
  expect(parseManifests(result.stdout).flatMap(manifestProblems)).toEqual([]);
}

async function sendPushData(block: CodeBlock): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${herald.port}/1.1/push`, {
    method: 'POST',
    headers: { 'X-SVC-Id': app.id, 'X-SVC-Key': `${app.masterKey},master`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ where: {}, data: JSON.parse(block.text) as unknown }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(body)).toBeLessThan(300);
  expect(body.objectId).toEqual(expect.any(String));
}

for (const document of documents) {
  const blocks = codeBlocksOf(repoRoot, document);
  if (blocks.length === 0) continue;
  describe(`the examples of ${document}`, () => {
    const context: CheckContext = { workspace: '', grpcAddress: '', builtImages: new Set(), kubeObjects: new Set() };

    beforeAll(() => {
      Object.assign(context, { workspace: workspace.dir, grpcAddress: `127.0.0.1:${herald.grpcPort}`, kubeObjects: chartObjectNames() });
    });

    for (const block of blocks) {
      const name = `${block.file}:${block.line} (${block.skip === undefined ? (block.kind ?? block.language) : 'skip'})`;
      it(`${name} runs as written`, async () => {
        if (block.skip !== undefined) {
          tally.push({ block: name, verdict: 'skipped', reasons: [block.skip] });
          return;
        }
        if (block.kind === undefined) throw new Error(`${name}: a ${block.language || 'plain'} block needs a marker: <!-- example: <kind> --> or <!-- example: skip: <reason> --> (test/docs/support/code-blocks.ts)`);
        if (block.kind === 'shell') {
          const outcomes = await runShellBlock(block, context);
          const checked = outcomes.filter((outcome): outcome is { checked: string; reason: string } => 'checked' in outcome);
          tally.push({ block: name, verdict: checked.length === 0 ? 'ran' : 'checked', reasons: checked.map((outcome) => `${outcome.checked}: ${outcome.reason}`) });
          return;
        }
        if (block.kind === 'node') await runNodeBlock(block);
        else if (block.kind === 'config') checkConfigBlock(block);
        else if (block.kind === 'helm-values') checkHelmValuesBlock(block);
        else await sendPushData(block);
        tally.push({ block: name, verdict: 'ran', reasons: [] });
      }, 120_000);
    }
  });
}
