import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { execForm, instructionsOf, keyValues, onlyInstruction, parseDockerfile, type DockerStage } from './support/dockerfile.ts';

interface ComposeService {
  build?: string;
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
}

const root = join(import.meta.dirname, '../..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const runtime = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8')).at(-1) as DockerStage;
const imageEnv = Object.assign({}, ...instructionsOf(runtime, 'ENV').map(({ args }) => keyValues(args))) as Record<string, string>;
const heraldServices = Object.entries(compose.services).filter(([, service]) => service.build === '.');
const longRunning = heraldServices.filter(([name]) => name !== 'migrate');

describe('docker-compose.yml with the image', () => {
  it('builds the image for the migration, the api and the worker', () => {
    expect(heraldServices.map(([name]) => name).sort()).toEqual(['api', 'migrate', 'worker']);
  });

  it('passes Herald its arguments, since the entrypoint is Herald', () => {
    expect(execForm(onlyInstruction(runtime, 'ENTRYPOINT').args)).toContain('src/main.ts');
    expect(compose.services.migrate?.command).toEqual(['migrate']);
    for (const [name, service] of longRunning) expect(service.command, `${name} runs the entrypoint as it is`).toBeUndefined();
  });

  it('keeps the long-running nodes data in a volume at the data directory of the image, and gives them time to drain', () => {
    for (const [name, service] of longRunning) {
      expect(service.volumes, name).toContain(`herald-data:${imageEnv.HERALD_DATA_DIR}`);
      expect(service.stop_grace_period, name).toBe('30s');
    }
  });

  it('checks readiness through node on the port each node serves health on', () => {
    for (const [name, service] of longRunning) {
      const port = service.environment?.HERALD_INTERNAL_PORT ?? service.environment?.PORT ?? imageEnv.PORT;
      expect(service.healthcheck?.test.slice(0, 3), name).toEqual(['CMD', 'node', '-e']);
      expect(service.healthcheck?.test[3], name).toContain(`http://127.0.0.1:${port}/readyz`);
    }
  });
});
