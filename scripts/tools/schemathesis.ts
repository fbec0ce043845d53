import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * schemathesis for the contract test (test/contract/schemathesis.test.ts), in
 * a Python virtual environment of its own under .tools/schemathesis (not
 * committed), with the exact versions of test/contract/requirements.txt.
 *
 * `npm run contract:install` makes it (CI runs it from .ci/run); the test
 * calls `ensureSchemathesis()` too, so a developer's first `npm test` makes
 * it. Nothing is done when the environment already holds those versions.
 */

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const requirementsFile = path.join(repoRoot, 'test/contract/requirements.txt');
export const schemathesisEnv = path.join(repoRoot, '.tools/schemathesis');
/** What the environment was last made from: when it differs from requirements.txt, it is made again. */
const installedRequirements = path.join(schemathesisEnv, 'herald-requirements.txt');
/** The `st` command of the environment. */
export const schemathesisCommand = path.join(schemathesisEnv, 'bin/st');

/** Makes the environment unless it holds the pinned versions; answers the `st` command. Throws with pip's or venv's own words when it cannot. */
export async function ensureSchemathesis(report: (line: string) => void = () => {}): Promise<string> {
  const wanted = readFileSync(requirementsFile, 'utf8');
  if (existsSync(schemathesisCommand) && existsSync(installedRequirements) && readFileSync(installedRequirements, 'utf8') === wanted) return schemathesisCommand;
  report(`making ${path.relative(repoRoot, schemathesisEnv)} from ${path.relative(repoRoot, requirementsFile)}`);
  try {
    await run('python3', ['-m', 'venv', '--clear', schemathesisEnv]);
  } catch (error) {
    throw new Error(`python3 -m venv failed (on Debian: apt-get install python3-venv): ${outputOf(error)}`, { cause: error });
  }
  try {
    await run(path.join(schemathesisEnv, 'bin/pip'), ['install', '--disable-pip-version-check', '--no-input', '--quiet', '-r', requirementsFile], {
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    throw new Error(`pip could not install test/contract/requirements.txt: ${outputOf(error)}`, { cause: error });
  }
  const { stdout } = await run(schemathesisCommand, ['--version']);
  writeFileSync(installedRequirements, wanted);
  report(stdout.trim());
  return schemathesisCommand;
}

function outputOf(error: unknown): string {
  const failed = error as { stderr?: string; stdout?: string; message?: string };
  return (failed.stderr || failed.stdout || failed.message || String(error)).trim().slice(-2000);
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  ensureSchemathesis((line) => process.stdout.write(`schemathesis: ${line}\n`)).then(
    (command) => process.stdout.write(`schemathesis: ${path.relative(repoRoot, command)} ready\n`),
    (error: unknown) => {
      process.stderr.write(`schemathesis: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
