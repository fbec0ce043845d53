import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../../src/config/load-config.ts';
import { roleNames } from '../../../src/config/schema.ts';
import { importUsage } from '../../../src/import/import-command.ts';
import { emulateDockerRun, parseDockerRun } from '../../image/support/docker-run.ts';
import { instructionsOf, keyValues, parseDockerfile } from '../../image/support/dockerfile.ts';
import { parseManifests, type KubeObject } from '../../deploy/support/helm-chart.ts';
import { manifestProblems } from './manifests.ts';
import { helmTemplateOf } from './helm-commands.ts';
import { grpcurl } from './grpcurl.ts';
import type { Invocation } from './example-workspace.ts';

/** What became of one command of a block: run for real, or checked (and why it could not run). */
export type CommandOutcome = { ran: string } | { checked: string; reason: string };

/** What the checks share within one document: images built, objects the cluster would hold. */
export interface CheckContext {
  workspace: string;
  grpcAddress: string;
  builtImages: Set<string>;
  /** `kind/name` of what the chart renders and `kubectl apply` made, lower case. */
  kubeObjects: Set<string>;
}

const repoRoot = join(import.meta.dirname, '../../..');
const packageJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string>; version: string };

/** Checks one recorded command; throws saying what is wrong with it. */
export async function checkInvocation(call: Invocation, context: CheckContext): Promise<CommandOutcome> {
  switch (call.name) {
    case 'curl':
    case 'openssl':
    case 'git':
    case 'jq':
      if (call.status !== 0) throw new Error(`${call.name} ${call.args.join(' ')} exited with ${call.status}`);
      return { ran: call.name };
    case 'npm':
      return checkNpm(call, context);
    case 'npx':
      return checkNpx(call);
    case 'docker':
      return checkDocker(call, context);
    case 'kind':
    case 'minikube':
      return checkImageLoad(call, context);
    case 'helm':
      return checkHelm(call.args, call.cwd, context);
    case 'kubectl':
      return checkKubectl(call, context);
    case 'grpcurl':
      await grpcurl(call.args, context.grpcAddress);
      return { ran: 'grpcurl (its calls made with @grpc/grpc-js)' };
    default:
      throw new Error(`no check for the command ${call.name}`);
  }
}

/** Herald's command line (`herald …`, `npm start -- …`, `docker run … herald …`), as src/main.ts and the import command read it. */
export function checkHeraldArgs(args: readonly string[]): void {
  if (args[0] === 'import') {
    const options = Object.fromEntries(
      [...importUsage.matchAll(/^\s+--([\w-]+)( <\w+>)?/gm)].map(([, name, value]) => [name as string, { type: value === undefined ? ('boolean' as const) : ('string' as const) }]),
    );
    const { values, positionals } = parseArgs({ args: args.slice(1), options, allowPositionals: true, strict: true });
    if (values.help === true) return;
    if (typeof values.app !== 'string') throw new Error(`herald import ${args.slice(1).join(' ')}: --app is required`);
    if (positionals.length === 0) throw new Error('herald import: no export file or folder');
    return;
  }
  const { values, positionals } = parseArgs({ args: [...args], options: { role: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  if (positionals.length > 1 || (positionals[0] !== undefined && !['serve', 'migrate'].includes(positionals[0]))) throw new Error(`herald ${args.join(' ')}: not a command of Herald`);
  for (const role of values.role?.split(',') ?? []) if (!(roleNames as readonly string[]).includes(role)) throw new Error(`herald --role ${values.role}: ${role} is not a role`);
}

/** The configuration Herald would compile from these variables; throws Herald's own message. */
function checkConfig(env: Record<string, string>, workspace: string): void {
  loadConfig({ env: { HERALD_DATA_DIR: join(workspace, 'data'), ...env } });
}

/** Runs Herald's entrypoint (node src/main.ts) with these arguments to its end. */
function runHerald(argv: readonly string[], options: { cwd: string; env: Record<string, string> }): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, argv, { cwd: options.cwd, env: { PATH: process.env.PATH, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('close', (code) => resolvePromise({ code, output }));
  });
}

async function checkNpm(call: Invocation, context: CheckContext): Promise<CommandOutcome> {
  const [command = '', ...rest] = call.args;
  const dashes = rest.indexOf('--');
  const own = dashes < 0 ? rest : rest.slice(0, dashes);
  const passed = dashes < 0 ? [] : rest.slice(dashes + 1);
  if (['install', 'ci', 'i'].includes(command)) return { checked: 'npm install', reason: 'installs from the registry; the test runs in the installed checkout' };
  if (command === 'test') return { checked: 'npm test', reason: 'the whole suite, which this test is part of' };
  if (command === 'start') {
    checkHeraldArgs(passed);
    checkConfig(call.env, context.workspace);
    return { checked: 'npm start', reason: 'serves until stopped, on the backends the example names: its arguments and variables are loaded as Herald loads them' };
  }
  if (command !== 'run') throw new Error(`npm ${command}: not an npm command the documents should use`);
  const script = own[0];
  if (script === undefined || packageJson.scripts[script] === undefined) throw new Error(`npm run ${script}: package.json has no such script`);
  if (script === 'import') {
    checkHeraldArgs(['import', ...passed]);
    const run = await runHerald([join(repoRoot, 'src/main.ts'), 'import', ...passed], { cwd: call.cwd, env: call.env });
    if (run.code !== 0) throw new Error(`npm run import -- ${passed.join(' ')} exited with ${run.code}:\n${run.output}`);
    return { ran: 'npm run import' };
  }
  if (script === 'migrate') {
    checkConfig(call.env, context.workspace);
    return { checked: 'npm run migrate', reason: 'changes the backends the example names' };
  }
  if (script === 'helm') return checkHelm(passed, call.cwd, context);
  if (script === 'services') {
    if (!['up', 'down', 'status', 'logs', 'cluster'].includes(passed[0] ?? '')) throw new Error(`npm run services -- ${passed.join(' ')}: not a command of scripts/services/cli.ts`);
    return { checked: 'npm run services', reason: 'starts and stops the services every test shares' };
  }
  return { checked: `npm run ${script}`, reason: 'a tool of the checkout (tests, benchmarks, generators) that takes minutes' };
}

function checkNpx(call: Invocation): CommandOutcome {
  const [tool, command, ...rest] = call.args;
  if (tool !== 'vitest' || command !== 'run') throw new Error(`npx ${call.args.join(' ')}: only npx vitest run is expected`);
  const { values, positionals } = parseArgs({ args: rest, options: { project: { type: 'string' }, config: { type: 'string' } }, allowPositionals: true, strict: true });
  if (values.project !== undefined && !['embedded', 'distributed'].includes(values.project)) throw new Error(`npx vitest: no project ${values.project}`);
  for (const path of positionals) if (!existsSync(resolve(call.cwd, path))) throw new Error(`npx vitest run ${path}: no such test file or folder`);
  return { checked: 'npx vitest run', reason: 'a test run of its own' };
}

async function checkDocker(call: Invocation, context: CheckContext): Promise<CommandOutcome> {
  const [command = '', ...rest] = call.args;
  if (command === 'build') {
    const { values, positionals } = parseArgs({ args: rest, options: { tag: { type: 'string', short: 't', multiple: true }, 'build-arg': { type: 'string', multiple: true }, file: { type: 'string', short: 'f' } }, allowPositionals: true, strict: true });
    const dockerfile = resolve(call.cwd, positionals[0] ?? '.', values.file ?? 'Dockerfile');
    if (positionals.length !== 1 || !existsSync(dockerfile)) throw new Error(`docker build ${rest.join(' ')}: no Dockerfile at ${dockerfile}`);
    const args = parseDockerfile(readFileSync(dockerfile, 'utf8')).flatMap((stage) => instructionsOf(stage, 'ARG').flatMap(({ args: text }) => Object.keys(keyValues(text))));
    for (const pair of values['build-arg'] ?? []) if (!args.includes(pair.split('=')[0] as string)) throw new Error(`docker build --build-arg ${pair}: the Dockerfile has no such ARG`);
    for (const tag of values.tag ?? []) context.builtImages.add(tag);
    return { checked: 'docker build', reason: 'no Docker engine here: test/image checks the Dockerfile' };
  }
  if (command === 'push') {
    if (!context.builtImages.has(rest[0] ?? '')) throw new Error(`docker push ${rest[0]}: the document built no such image`);
    return { checked: 'docker push', reason: 'no Docker engine or registry here' };
  }
  if (command === 'run') {
    const run = parseDockerRun(rest, call.env);
    const repository = run.image.replace(/:[^/:]+$/, '');
    if (repository !== 'herald' && !context.builtImages.has(run.image)) throw new Error(`docker run ${run.image}: not the image the documents build (herald)`);
    checkHeraldArgs(run.args);
    const emulated = emulateDockerRun(run, { cwd: call.cwd, volumesDir: join(context.workspace, 'docker-volumes') });
    if (!run.detached && (run.args[0] === 'import' || run.args.includes('--help'))) {
      const done = await runHerald(emulated.argv.slice(1), { cwd: emulated.cwd, env: emulated.env });
      if (done.code !== 0) throw new Error(`docker run … ${run.image} ${run.args.join(' ')} exited with ${done.code}:\n${done.output}`);
      return { ran: `docker run herald ${run.args[0]} (the image's entrypoint, ENV and mounts played out here)` };
    }
    checkConfig(emulated.env, context.workspace);
    return { checked: 'docker run', reason: 'serves until stopped: the image\'s entrypoint takes its arguments and Herald loads its variables' };
  }
  if (command === 'compose') {
    if (!['up', 'down', 'ps', 'logs', 'stop', 'build'].includes(rest[0] ?? '')) throw new Error(`docker compose ${rest.join(' ')}: not a compose command`);
    if (!existsSync(join(call.cwd, 'docker-compose.yml'))) throw new Error('docker compose: no docker-compose.yml here');
    return { checked: 'docker compose', reason: 'no Docker engine here: test/image/compose*.test.ts runs each service\'s command' };
  }
  if (['stop', 'logs', 'ps'].includes(command)) return { checked: `docker ${command}`, reason: 'no Docker engine here' };
  throw new Error(`docker ${command}: no check for it`);
}

function checkImageLoad(call: Invocation, context: CheckContext): CommandOutcome {
  const image = call.name === 'kind' ? (call.args[0] === 'load' && call.args[1] === 'docker-image' ? call.args[2] : undefined) : call.args[0] === 'image' && call.args[1] === 'load' ? call.args[2] : undefined;
  if (image === undefined) throw new Error(`${call.name} ${call.args.join(' ')}: not an image load`);
  if (!context.builtImages.has(image)) throw new Error(`${call.name} loads ${image}, which the document did not build`);
  if (!image.endsWith(`:${packageJson.version}`)) throw new Error(`${call.name} loads ${image}: the chart runs the tag of its appVersion, ${packageJson.version}`);
  return { checked: `${call.name} image load`, reason: 'no cluster here' };
}

function checkHelm(args: readonly string[], cwd: string, context: CheckContext): CommandOutcome {
  const objects = helmTemplateOf(args, cwd);
  const problems = objects.flatMap(manifestProblems);
  if (problems.length > 0) throw new Error(`helm ${args.join(' ')}: ${problems.join('; ')}`);
  for (const object of objects) context.kubeObjects.add(`${object.kind}/${object.metadata.name}`.toLowerCase());
  return { checked: `helm ${args[0]}`, reason: 'no cluster here: rendered with helm template, every object checked against its schema' };
}

const kindAliases: Record<string, string> = { deployment: 'deployment', deploy: 'deployment', svc: 'service', service: 'service', job: 'job', pod: 'pod', secret: 'secret', configmap: 'configmap', cm: 'configmap', pvc: 'persistentvolumeclaim' };

function checkKubectl(call: Invocation, context: CheckContext): CommandOutcome {
  const args = call.args.filter((_arg, index) => !['-n', '--namespace'].includes(call.args[index - 1] ?? '') && !['-n', '--namespace'].includes(call.args[index] ?? ''));
  const [verb = '', ...rest] = args;
  const known = (reference: string): void => {
    const [kind = '', name = ''] = reference.split('/');
    const canonical = kindAliases[kind.toLowerCase()];
    if (canonical === undefined) throw new Error(`kubectl ${verb} ${reference}: a kind this check does not know`);
    if (!context.kubeObjects.has(`${canonical}/${name}`)) throw new Error(`kubectl ${verb} ${reference}: the chart (or the document) makes no ${canonical} ${name}`);
  };
  if (verb === 'create' && rest[0] === 'namespace') return { checked: 'kubectl create namespace', reason: 'no cluster here' };
  if (verb === 'create' && rest[0] === 'secret' && rest[1] === 'generic') {
    for (const entry of rest.slice(3)) {
      const match = /^--from-(literal|file)=([^=]+)=(.*)$/s.exec(entry);
      if (match === null) throw new Error(`kubectl create secret: cannot read ${entry}`);
      if (!/^[-._a-zA-Z0-9]+$/.test(match[2] as string)) throw new Error(`kubectl create secret: ${match[2]} is not a Secret key`);
      if (match[1] === 'file' && !existsSync(resolve(call.cwd, match[3] as string))) throw new Error(`kubectl create secret: no file ${match[3]}`);
    }
    context.kubeObjects.add(`secret/${rest[2]}`);
    return { checked: 'kubectl create secret', reason: 'no cluster here: the entries are read' };
  }
  if (verb === 'apply') {
    const file = rest[rest.indexOf('-f') + 1];
    if (!rest.includes('-f') || file === undefined) throw new Error('kubectl apply: only -f <file> is expected');
    const objects = readManifests(resolve(call.cwd, file));
    const problems = objects.flatMap(manifestProblems);
    if (problems.length > 0) throw new Error(`kubectl apply -f ${file}: ${problems.join('; ')}`);
    for (const object of objects) context.kubeObjects.add(`${object.kind}/${object.metadata.name}`.toLowerCase());
    return { checked: 'kubectl apply', reason: 'no cluster here: every object checked against its schema' };
  }
  if (verb === 'cp') {
    for (const side of rest.slice(0, 2)) if (side.includes(':')) known(`pod/${side.split(':')[0]}`);
    return { checked: 'kubectl cp', reason: 'no cluster here' };
  }
  if (['logs', 'port-forward', 'delete', 'get', 'describe', 'rollout'].includes(verb)) {
    const references = rest.filter((word) => !word.startsWith('-') && !/^\d+(:\d+)?$/.test(word));
    const typed = verb === 'delete' || verb === 'get' ? (references.length === 2 ? [`${references[0]}/${references[1]}`] : references) : references.filter((word) => word.includes('/'));
    for (const reference of typed.filter((word) => word.includes('/'))) known(reference);
    return { checked: `kubectl ${verb}`, reason: 'no cluster here: the objects it names are ones the chart makes' };
  }
  throw new Error(`kubectl ${verb}: no check for it`);
}

function readManifests(file: string): KubeObject[] {
  if (!existsSync(file)) throw new Error(`kubectl apply -f ${file}: no such file`);
  return parseManifests(readFileSync(file, 'utf8'));
}
