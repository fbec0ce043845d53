import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { instructionsOf, keyValues, parseDockerfile, type DockerStage } from './dockerfile.ts';

/** One service of a compose file, as far as Herald's tests read it. */
export interface ComposeService {
  build?: string;
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** A volume of a service: a bind mount of a folder of the host (relative to the compose file) or a named volume. */
export interface ComposeMount {
  kind: 'bind' | 'volume';
  /** The host folder (absolute) of a bind mount, or the volume's name. */
  source: string;
  target: string;
  readOnly: boolean;
}

export const repoRoot = join(import.meta.dirname, '../../..');

/**
 * Compose's interpolation of `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
 * `$VAR` and `$$` in every string of the file, from `env` (the shell or a
 * .env file). Enough for the forms docker-compose.yml uses.
 */
export function interpolate<T>(value: T, env: Readonly<Record<string, string | undefined>>): T {
  if (typeof value === 'string') {
    return value.replace(/\$\$|\$\{(\w+)(?:(:?-)([^}]*))?\}|\$(\w+)/g, (whole, braced?: string, operator?: string, fallback?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare) as string;
      const set = env[name];
      if (operator === ':-') return set === undefined || set === '' ? (fallback ?? '') : set;
      if (operator === '-') return set === undefined ? (fallback ?? '') : set;
      return set ?? '';
    }) as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => interpolate(item, env)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item as unknown, env)])) as T;
  }
  return value;
}

/** docker-compose.yml with YAML merge keys applied and variables interpolated from `env` (none set: the defaults). */
export function readCompose(env: Readonly<Record<string, string | undefined>> = {}, file = join(repoRoot, 'docker-compose.yml')): ComposeFile {
  return interpolate(parse(readFileSync(file, 'utf8'), { merge: true }) as ComposeFile, env);
}

/** The volumes of a service in compose's short syntax, `source:target[:ro]`. */
export function mountsOf(service: ComposeService, baseDir = repoRoot): ComposeMount[] {
  return (service.volumes ?? []).map((entry) => {
    const [source = '', target = '', mode] = entry.split(':');
    const bind = source.startsWith('.') || source.startsWith('/') || source.startsWith('~');
    return { kind: bind ? 'bind' : 'volume', source: bind && !isAbsolute(source) ? join(baseDir, source) : source, target, readOnly: mode === 'ro' };
  });
}

/** The runtime stage of the Dockerfile, which every Herald service runs. */
export function imageRuntime(): DockerStage {
  return parseDockerfile(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8')).at(-1) as DockerStage;
}

/** The image's ENV, which a container starts with before the service's environment. */
export function imageEnvironment(): Record<string, string> {
  return Object.assign({}, ...instructionsOf(imageRuntime(), 'ENV').map(({ args }) => keyValues(args))) as Record<string, string>;
}

/** A published port in compose's short syntax, `[host_ip:]host_port:container_port`. */
export function publishedPort(entry: string): { hostIp: string | undefined; hostPort: string; containerPort: string } {
  const parts = entry.split(':');
  const containerPort = parts.at(-1) as string;
  const hostPort = parts.at(-2) ?? containerPort;
  return { hostIp: parts.length === 3 ? parts[0] : undefined, hostPort, containerPort };
}
