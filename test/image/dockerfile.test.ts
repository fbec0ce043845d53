import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withDeadline } from '../support/with-deadline.ts';
import { copiesOf, execForm, instructionsOf, keyValues, onlyInstruction, parseDockerfile, type DockerStage } from './support/dockerfile.ts';

const root = join(import.meta.dirname, '../..');
const stages = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const runtime = stages.at(-1) as DockerStage;
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  engines: { node: string };
  config: { nodeFlags: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const nodeMajor = /(\d+)/.exec(packageJson.engines.node)?.[1];

/** The runtime stage's `key=value` settings of one kind (ENV, LABEL, ARG), merged. */
function settings(keyword: string): Record<string, string> {
  return Object.assign({}, ...instructionsOf(runtime, keyword).map(({ args }) => keyValues(args))) as Record<string, string>;
}

describe('the container image (Dockerfile)', () => {
  it('installs the production dependencies from the lockfile in a stage of its own', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const deps = stages.find((stage) => stage.name === 'deps');
    expect(deps, 'a stage named deps').toBeDefined();
    expect(copiesOf(deps as DockerStage)).toEqual([{ from: undefined, sources: ['package.json', 'package-lock.json'], destination: './' }]);
    expect(instructionsOf(deps as DockerStage, 'RUN').map(({ args }) => args)).toEqual([expect.stringMatching(/^npm ci --omit=dev\b/)]);
    // No stage may install anything else from npm: that would bring development tooling in.
    const installs = stages.flatMap((stage) => instructionsOf(stage, 'RUN')).filter(({ args }) => /\bnpm (ci|install|i)\b/.test(args));
    expect(installs.map(({ args }) => args)).toEqual([expect.stringMatching(/^npm ci --omit=dev\b/)]);
  });

  it('runs on the base image of the Node.js major package.json asks for, not on the node package', () => {
    expect(nodeMajor).toBe('24');
    for (const stage of stages) expect(stage.image).toMatch(new RegExp(`^node:${nodeMajor}(-|$)`));
    // The node package gives a checkout Node 24 on an older machine; the image has its own.
    expect(packageJson.dependencies).not.toHaveProperty('node');
    expect(packageJson.devDependencies).toHaveProperty('node');
  });

  it('carries into the runtime stage only the production node_modules, package.json, src and proto', () => {
    expect(copiesOf(runtime)).toEqual([
      { from: 'deps', sources: ['/app/node_modules'], destination: './node_modules' },
      { from: undefined, sources: ['package.json'], destination: './' },
      { from: undefined, sources: ['src'], destination: './src' },
      { from: undefined, sources: ['proto'], destination: './proto' },
    ]);
    expect(instructionsOf(runtime, 'WORKDIR').map(({ args }) => args)).toEqual(['/app', '/data']);
    expect(instructionsOf(runtime, 'ADD')).toEqual([]);
  });

  it('keeps the build context to what the Dockerfile copies from it', () => {
    const patterns = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    const copied = new Set(stages.flatMap((stage) => copiesOf(stage).filter((copy) => copy.from === undefined)).flatMap((copy) => copy.sources));
    expect(patterns[0], 'everything is left out first').toBe('*');
    expect(patterns.slice(1).sort()).toEqual([...copied].map((source) => `!${source}`).sort());
  });

  it('runs as a numeric non-root user that owns /data and nothing else', () => {
    const user = onlyInstruction(runtime, 'USER').args;
    const [uid, gid] = user.split(':');
    expect(user, 'a uid (and gid) by number, so that Kubernetes runAsNonRoot can check it').toMatch(/^\d+(:\d+)?$/);
    expect(Number(uid)).toBeGreaterThan(0);
    const runs = instructionsOf(runtime, 'RUN').map(({ args }) => args);
    expect(runs.filter((args) => args.includes('chown'))).toEqual([`mkdir -p /data && chown ${uid}:${gid ?? uid} /data`]);
    expect(runtime.instructions.findIndex(({ keyword }) => keyword === 'USER')).toBeGreaterThan(runtime.instructions.findIndex(({ args }) => args.includes('chown')));
    expect(execForm(onlyInstruction(runtime, 'VOLUME').args)).toEqual(['/data']);
    expect(settings('ENV')).toMatchObject({ HERALD_DATA_DIR: '/data', NODE_ENV: 'production' });
  });

  it('runs its commands in the data volume, so that herald import writes its reject and checkpoint files where it may', () => {
    const workdirs = instructionsOf(runtime, 'WORKDIR');
    expect(workdirs.at(-1)?.args).toBe(settings('ENV').HERALD_DATA_DIR);
    expect(execForm(onlyInstruction(runtime, 'VOLUME').args)).toEqual([workdirs.at(-1)?.args]);
    // The entrypoint names the code by its absolute path, which the working folder does not change.
    expect(execForm(onlyInstruction(runtime, 'ENTRYPOINT').args).at(-1)).toBe(`${workdirs[0]?.args}/src/main.ts`);
  });

  it('starts Herald under tini, with the node flags npm start uses, and takes arguments for Herald', () => {
    const nodeFlags = packageJson.config.nodeFlags.split(' ').filter((flag) => flag !== '');
    expect(execForm(onlyInstruction(runtime, 'ENTRYPOINT').args)).toEqual(['tini', '--', 'node', ...nodeFlags, '/app/src/main.ts']);
    expect(execForm(onlyInstruction(runtime, 'CMD').args)).toEqual([]);
    expect(instructionsOf(runtime, 'RUN').some(({ args }) => /apt-get install -y --no-install-recommends tini\b/.test(args))).toBe(true);
    expect(onlyInstruction(runtime, 'STOPSIGNAL').args).toBe('SIGTERM');
  });

  it('exposes the port it listens on and the gRPC port', () => {
    const exposed = onlyInstruction(runtime, 'EXPOSE').args.split(/\s+/);
    expect(exposed).toEqual([settings('ENV').PORT, '50051']);
  });

  it('is labelled with OCI annotations that follow package.json', () => {
    const args = settings('ARG');
    expect(args.VERSION, 'the VERSION build argument defaults to package.json version').toBe(packageJson.version);
    expect(settings('LABEL')).toEqual({
      'org.opencontainers.image.title': 'Herald',
      'org.opencontainers.image.description': expect.stringContaining('push-notification service'),
      'org.opencontainers.image.version': '${VERSION}',
      'org.opencontainers.image.revision': '${REVISION}',
      'org.opencontainers.image.source': '${SOURCE_URL}',
      'org.opencontainers.image.licenses': packageJson.license,
    });
    expect(Object.keys(args).sort()).toEqual(['REVISION', 'SOURCE_URL', 'VERSION']);
  });
});

describe('the image HEALTHCHECK', () => {
  const healthcheck = onlyInstruction(runtime, 'HEALTHCHECK').args;
  const command = execForm(healthcheck.slice(healthcheck.indexOf('CMD ') + 'CMD '.length));
  const servers: Server[] = [];

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** An HTTP server answering every request with `status`; records the paths asked for. */
  async function healthServer(status: number): Promise<{ port: number; paths: string[] }> {
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(status).end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, paths };
  }

  /** Runs the HEALTHCHECK command as the image would (node is the image's node: this one), with only `env`. */
  async function runHealthcheck(env: Record<string, string>): Promise<number | null> {
    expect(command[0]).toBe('node');
    const child = spawn(process.execPath, command.slice(1), { env, stdio: 'ignore' });
    return withDeadline(new Promise<number | null>((resolve) => child.once('exit', resolve)), 'the healthcheck command to exit');
  }

  it('runs through node, since the slim image has no curl, with a timeout and a start period', () => {
    expect(healthcheck).toMatch(/--timeout=\d+s/);
    expect(healthcheck).toMatch(/--start-period=\d+s/);
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
  });

  it('passes when /healthz on PORT answers 200', async () => {
    const server = await healthServer(200);
    expect(await runHealthcheck({ PORT: String(server.port) })).toBe(0);
    expect(server.paths).toEqual(['/healthz']);
  });

  it('fails when /healthz answers 503, once a role has failed for good', async () => {
    const server = await healthServer(503);
    expect(await runHealthcheck({ PORT: String(server.port) })).toBe(1);
    expect(server.paths).toEqual(['/healthz']);
  });

  it('fails when nothing listens', async () => {
    const server = await healthServer(200);
    await new Promise((resolve) => servers.pop()?.close(resolve));
    expect(await runHealthcheck({ PORT: String(server.port) })).toBe(1);
  });

  it('asks the internal port when HERALD_INTERNAL_PORT moves health off PORT', async () => {
    const publicPort = await healthServer(503);
    const internal = await healthServer(200);
    expect(await runHealthcheck({ PORT: String(publicPort.port), HERALD_INTERNAL_PORT: String(internal.port) })).toBe(0);
    expect(internal.paths).toEqual(['/healthz']);
    expect(publicPort.paths).toEqual([]);
  });
});
