import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { execForm, instructionsOf, onlyInstruction } from './dockerfile.ts';
import { imageEnvironment, imageRuntime, repoRoot } from './compose-file.ts';

/** `docker run [options] image [args]`, as far as Herald's documents use it. */
export interface DockerRun {
  image: string;
  args: string[];
  detached: boolean;
  remove: boolean;
  name: string | undefined;
  /** `-e NAME=value`, and `-e NAME` (the value from the caller's environment). */
  env: Record<string, string | undefined>;
  envFiles: string[];
  /** `-v source:target[:ro]`: a host path (absolute or relative) or a volume name. */
  volumes: { source: string; target: string; readOnly: boolean }[];
  ports: string[];
  readOnly: boolean;
  workdir: string | undefined;
}

const valueOptions = new Map([
  ['-e', 'env'],
  ['--env', 'env'],
  ['--env-file', 'envFile'],
  ['-v', 'volume'],
  ['--volume', 'volume'],
  ['-p', 'port'],
  ['--publish', 'port'],
  ['--name', 'name'],
  ['-w', 'workdir'],
  ['--workdir', 'workdir'],
  ['--user', 'ignored'],
  ['-u', 'ignored'],
  ['--network', 'ignored'],
  ['--stop-timeout', 'ignored'],
]);
const flagOptions = new Set(['-d', '--detach', '--rm', '-i', '-t', '-it', '--interactive', '--tty', '--read-only', '--init']);

/**
 * Reads the arguments after `docker run`; throws naming an option it does not
 * know, so that a documented command with a typo fails rather than passing.
 */
export function parseDockerRun(argv: readonly string[], callerEnv: Readonly<Record<string, string | undefined>> = {}): DockerRun {
  const run: DockerRun = { image: '', args: [], detached: false, remove: false, name: undefined, env: {}, envFiles: [], volumes: [], ports: [], readOnly: false, workdir: undefined };
  let index = 0;
  for (; index < argv.length; index += 1) {
    const word = argv[index] as string;
    if (!word.startsWith('-')) break;
    const [option, inline] = word.includes('=') && word.startsWith('--') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined];
    if (flagOptions.has(option)) {
      if (option === '-d' || option === '--detach') run.detached = true;
      if (option === '--rm') run.remove = true;
      if (option === '--read-only') run.readOnly = true;
      continue;
    }
    const kind = valueOptions.get(option);
    if (kind === undefined) throw new Error(`docker run: an option this check does not know: ${word}`);
    const value = inline ?? argv[(index += 1)];
    if (value === undefined) throw new Error(`docker run: ${option} needs a value`);
    if (kind === 'env') {
      const at = value.indexOf('=');
      if (at < 0) run.env[value] = callerEnv[value];
      else run.env[value.slice(0, at)] = value.slice(at + 1);
    } else if (kind === 'envFile') run.envFiles.push(value);
    else if (kind === 'volume') {
      const [source = '', target = '', mode] = value.split(':');
      if (!target.startsWith('/')) throw new Error(`docker run: -v ${value} needs an absolute target in the container`);
      run.volumes.push({ source, target, readOnly: mode === 'ro' });
    } else if (kind === 'port') run.ports.push(value);
    else if (kind === 'name') run.name = value;
    else if (kind === 'workdir') run.workdir = value;
  }
  const image = argv[index];
  if (image === undefined) throw new Error('docker run: no image named');
  run.image = image;
  run.args = argv.slice(index + 1);
  return run;
}

/** The process a `docker run` of Herald's image starts, on this machine. */
export interface EmulatedRun {
  /** node, then its arguments: the entrypoint after tini, paths mapped. */
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * What the image would run for `run`, played out here without an engine:
 * the image's code (`/app`) is this checkout, a bind mount its host folder
 * (relative to `cwd`), a named volume (or the anonymous one the image's
 * VOLUME gets when nothing is mounted there) a folder under `volumesDir`; the
 * environment is the image's ENV under `-e` and `--env-file`; the working
 * folder is the image's WORKDIR (or `-w`). Every argument and value naming a
 * path inside the container is mapped to its folder here.
 */
export function emulateDockerRun(run: DockerRun, options: { cwd: string; volumesDir: string }): EmulatedRun {
  const runtime = imageRuntime();
  const appDir = instructionsOf(runtime, 'WORKDIR')[0]?.args ?? '/app';
  const mounts: [string, string][] = [[appDir, repoRoot]];
  for (const volume of run.volumes) {
    const bind = volume.source.startsWith('.') || volume.source.startsWith('/') || volume.source.startsWith('~');
    const local = bind ? (isAbsolute(volume.source) ? volume.source : resolve(options.cwd, volume.source)) : join(options.volumesDir, volume.source);
    if (bind && !existsSync(local)) throw new Error(`docker run: the bind mount source ${volume.source} does not exist`);
    mkdirSync(local, { recursive: true });
    mounts.push([volume.target, local]);
  }
  // The image's VOLUMEs that nothing is mounted on get an anonymous volume each, as the engine gives them.
  for (const target of execForm(onlyInstruction(runtime, 'VOLUME').args)) {
    if (mounts.some(([mounted]) => mounted === target)) continue;
    const local = join(options.volumesDir, 'anonymous', target);
    mkdirSync(local, { recursive: true });
    mounts.push([target, local]);
  }
  mounts.sort(([a], [b]) => b.length - a.length);
  const map = (value: string): string => {
    for (const [target, local] of mounts) {
      if (value === target || value.startsWith(`${target}/`)) return local + value.slice(target.length);
    }
    return value;
  };
  const fileEnv: Record<string, string> = {};
  for (const file of run.envFiles) {
    for (const line of readFileSync(resolve(options.cwd, file), 'utf8').split('\n')) {
      const match = /^\s*([A-Za-z_][\w]*)=(.*)$/.exec(line);
      if (match !== null) fileEnv[match[1] as string] = match[2] as string;
    }
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...imageEnvironment(), ...fileEnv, ...run.env })) {
    if (value !== undefined) env[name] = map(value);
  }
  const workdir = run.workdir ?? instructionsOf(runtime, 'WORKDIR').at(-1)?.args ?? '/';
  const cwd = map(workdir);
  const entrypoint = execForm(onlyInstruction(runtime, 'ENTRYPOINT').args);
  const afterTini = entrypoint[0] === 'tini' ? entrypoint.slice(entrypoint.indexOf('--') + 1) : entrypoint;
  return { argv: [...afterTini, ...run.args].map(map), env, cwd };
}
