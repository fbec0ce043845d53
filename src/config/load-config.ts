import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { loadOrCreateDevKeys, type DevKeys } from './dev-keys.ts';
import { configSchema, defaultDataDir, envVariables, type EnvName, type HeraldConfig } from './schema.ts';

/** A configuration problem, with the name of the key or variable at fault. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface ConfigSources {
  env: Readonly<Record<string, string | undefined>>;
  /** Settings from the command line, e.g. the role; they win over everything. */
  overrides?: Record<string, unknown>;
}

type Json = Record<string, unknown>;

/**
 * Compiles the configuration once: the file named by `HERALD_CONFIG`, then
 * environment variables, then overrides, validated by the schema. Answers a
 * deep-frozen object; throws `ConfigError` naming the first bad key.
 */
export function loadConfig(sources: ConfigSources): LoadedConfig {
  const fileName = sources.env.HERALD_CONFIG;
  const fromFile = fileName ? readConfigFile(fileName) : {};
  const { top, app } = readEnvironment(sources.env);
  const raw: Json = { ...fromFile, ...top, ...(sources.overrides ?? {}) };
  const fileApps = Array.isArray(raw.apps) ? raw.apps : [];

  if (Object.keys(app).length > 0 && fileApps.length > 0) {
    const first = Object.keys(envVariables).find((name) => sources.env[name] && envVariables[name as EnvName].path[0] === 'app');
    throw new ConfigError(`${first}: the config file already declares apps; put per-app settings there`);
  }
  let devKeys: DevKeys | null = null;
  if (fileApps.length === 0) {
    if (app.id === undefined) {
      devKeys = loadOrCreateDevKeys(typeof raw.dataDir === 'string' ? raw.dataDir : defaultDataDir);
      Object.assign(app, devKeys.keys);
    }
    raw.apps = [app];
  }
  return { config: compileConfig(raw, fileName), devKeys };
}

export interface LoadedConfig {
  config: HeraldConfig;
  /** Set when no app was configured and development keys were used. */
  devKeys: DevKeys | null;
}

/** Validates a raw configuration object and fills in defaults. */
export function compileConfig(raw: unknown, origin = 'config'): HeraldConfig {
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(describeIssue(result.error.issues[0], origin));
  const config = result.data;
  const publicUrl = (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
  return deepFreeze({ ...config, publicUrl });
}

function readConfigFile(fileName: string): Json {
  let text: string;
  try {
    text = readFileSync(fileName, 'utf8');
  } catch (error) {
    throw new ConfigError(`HERALD_CONFIG: cannot read ${fileName}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = extname(fileName) === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`HERALD_CONFIG: ${fileName} is not valid ${extname(fileName) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`HERALD_CONFIG: ${fileName} must hold an object`);
  }
  return parsed as Json;
}

function readEnvironment(env: ConfigSources['env']): { top: Json; app: Json } {
  const top: Json = {};
  const app: Json = {};
  for (const [name, spec] of Object.entries(envVariables)) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    const value = convert(name, spec.type, text);
    const [head, ...rest] = spec.path;
    if (head === 'app') setPath(app, rest, value);
    else setPath(top, spec.path, value);
  }
  const keys = ['HERALD_APP_ID', 'HERALD_APP_KEY', 'HERALD_MASTER_KEY'] as const;
  const given = keys.filter((name) => env[name]);
  if (given.length > 0 && given.length < keys.length) {
    const missing = keys.filter((name) => !env[name]);
    throw new ConfigError(`${missing.join(', ')}: must be set together with ${given.join(', ')}`);
  }
  return { top, app };
}

function convert(name: string, type: string, text: string): unknown {
  switch (type) {
    case 'int': {
      if (!/^-?\d+$/.test(text)) throw new ConfigError(`${name}: expected an integer, got "${text}"`);
      return Number(text);
    }
    case 'bool': {
      if (/^(1|true|yes|on)$/i.test(text)) return true;
      if (/^(0|false|no|off)$/i.test(text)) return false;
      throw new ConfigError(`${name}: expected true or false, got "${text}"`);
    }
    case 'smtp-url':
      return parseSmtpUrl(name, text);
    case 'list':
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    case 'replication':
      return parseReplication(name, text);
    default:
      return text;
  }
}

function parseSmtpUrl(name: string, text: string): Json {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${name}: not a URL`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new ConfigError(`${name}: expected smtp:// or smtps://`);
  const secure = url.protocol === 'smtps:';
  const smtp: Json = { host: url.hostname, port: url.port ? Number(url.port) : secure ? 465 : 587, secure };
  if (url.username) smtp.user = decodeURIComponent(url.username);
  if (url.password) smtp.pass = decodeURIComponent(url.password);
  return smtp;
}

/** `3` for SimpleStrategy, or `dc1:3,dc2:2` for per-datacenter factors. */
function parseReplication(name: string, text: string): number | Record<string, number> {
  if (/^\d+$/.test(text)) return Number(text);
  const factors: Record<string, number> = {};
  for (const part of text.split(',')) {
    const match = /^\s*([^:\s]+)\s*:\s*(\d+)\s*$/.exec(part);
    if (!match?.[1] || !match[2]) throw new ConfigError(`${name}: expected a factor such as 3, or dc1:3,dc2:3`);
    factors[match[1]] = Number(match[2]);
  }
  return factors;
}

function setPath(target: Json, path: readonly string[], value: unknown): void {
  let node = target;
  path.slice(0, -1).forEach((key) => {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Json;
  });
  node[path[path.length - 1] as string] = value;
}

function describeIssue(issue: z.core.$ZodIssue | undefined, origin: string): string {
  if (!issue) return `${origin}: invalid configuration`;
  return `Invalid configuration: ${describeSetting(issue.path.map(String), origin)}: ${issue.message}`;
}

/**
 * A setting as a message names it: its environment variable and path
 * (`HERALD_KAFKA_TLS_CA_FILE (bus.tls.caFile)`), or its path in the config file.
 */
export function describeSetting(path: readonly string[], origin = 'the config file'): string {
  const envName = envNameFor(path);
  return envName ? `${envName} (${path.join('.')})` : `${path.join('.') || '(root)'} in ${origin}`;
}

/** The variable whose path is the longest prefix of `path`, so `store.contactPoints.0` names its list variable. */
function envNameFor(path: readonly string[]): string | undefined {
  let best: { name: string; length: number } | undefined;
  for (const [name, spec] of Object.entries(envVariables)) {
    const specPath = spec.path[0] === 'app' ? ['apps', '0', ...spec.path.slice(1)] : [...spec.path];
    const isPrefix = specPath.length <= path.length && specPath.every((part, index) => path[index] === part);
    if (isPrefix && specPath.length > (best?.length ?? 0)) best = { name, length: specPath.length };
  }
  return best?.name;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value as object).forEach((child: unknown) => deepFreeze(child));
    Object.freeze(value);
  }
  return value;
}
