/**
 * The Herald chart's init container: writes the config file HERALD_CONFIG
 * names from the chart's ConfigMap (HERALD_CONFIG_SOURCE, JSON) and the
 * mounted Secret (HERALD_SECRET_DIR), so that app keys stay in the Secret
 * while the rest of the config is in values.
 *
 * - Each app gets `key` and `masterKey` from the Secret entries
 *   `app.<id>.key` and `app.<id>.masterKey`, and when present the SMTP
 *   password (`app.<id>.smtpPass`) and the SMS webhook token
 *   (`app.<id>.smsWebhookToken`).
 * - `push.apns.token.keyFile` defaults to `apns.<id>.p8`,
 *   `push.fcm.serviceAccountFile` to `fcm.<id>.json`, and a phone maker's
 *   secret file of each profile to `<maker>.<id>.<profile>.secret`
 *   (`push.hms.profiles.<profile>.clientSecretFile`,
 *   `push.honor.profiles.<profile>.clientSecretFile`,
 *   `push.xiaomi.profiles.<profile>.appSecretFile`, …; `makerSecretFiles`).
 * - Every relative `…File` setting names an entry of the Secret and becomes
 *   its path under HERALD_SECRET_DIR.
 *
 * - Each console account of `console.accounts` gets its `passwordHash`
 *   from the Secret entry `console.<username>.passwordHash`; the entry
 *   `console.accountsKey` names, when set, holds more accounts as a JSON
 *   list with their hashes (an accounts file). A hash in values, a username
 *   twice or an accounts file that is not such a list is refused.
 *
 * A missing entry stops the pod here, with every missing key named, rather
 * than later in Herald. Secret values are never printed. Runs with Node's own
 * modules only, on the image's Node (type stripping).
 */
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

type Json = Record<string, unknown>;

export interface AssembleOptions {
  /** The ConfigMap's herald.json: the config with apps but without their keys. */
  source: string;
  /** Where the Secret is mounted. */
  secretDir: string;
  /** The Secret's name, for messages. */
  secretName: string;
  /** The config file to write. */
  target: string;
}

/** Thrown with every problem found, one per line. */
export class AssembleError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'AssembleError';
    this.problems = problems;
  }
}

/** Each phone maker's secret file setting in a profile, defaulted to the Secret entry `<maker>.<id>.<profile>.secret`. */
export const makerSecretFiles: Readonly<Record<string, string>> = {
  hms: 'clientSecretFile',
  oppo: 'masterSecretFile',
  vivo: 'appSecretFile',
  honor: 'clientSecretFile',
  xiaomi: 'appSecretFile',
  meizu: 'appSecretFile',
};

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a Secret entry without its trailing newline (files made with `echo` or `kubectl create --from-file`). */
function readEntry(secretDir: string, key: string): string | undefined {
  const file = path.join(secretDir, key);
  return existsSync(file) ? readFileSync(file, 'utf8').replace(/\r?\n$/, '') : undefined;
}

/** Fills the `…File` settings under `node`: relative ones name Secret entries, which must exist. */
function resolveFiles(node: unknown, where: string, options: AssembleOptions, problems: string[]): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => resolveFiles(item, `${where}[${index}]`, options, problems));
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    const at = where === '' ? key : `${where}.${key}`;
    if (key.endsWith('File') && typeof value === 'string') {
      if (path.isAbsolute(value)) continue;
      const file = path.join(options.secretDir, value);
      if (!existsSync(file)) problems.push(`the Secret ${options.secretName} has no entry ${value} (${at})`);
      node[key] = file;
    } else {
      resolveFiles(value, at, options, problems);
    }
  }
}

function assembleApp(app: Json, index: number, options: AssembleOptions, problems: string[]): void {
  const id = typeof app.id === 'string' ? app.id : `#${index}`;
  const { secretDir, secretName } = options;
  for (const [field, entry, what] of [
    ['key', `app.${id}.key`, 'app key'],
    ['masterKey', `app.${id}.masterKey`, 'master key'],
  ] as const) {
    if (app[field] !== undefined) {
      problems.push(`apps[${index}].${field}: keys come from the Secret (${entry}), not from values`);
      continue;
    }
    const value = readEntry(secretDir, entry);
    if (value === undefined) problems.push(`the Secret ${secretName} has no entry ${entry} (the ${what} of app ${id})`);
    else app[field] = value;
  }
  const smtpPass = readEntry(secretDir, `app.${id}.smtpPass`);
  const smtp = isObject(app.mail) && isObject(app.mail.smtp) ? app.mail.smtp : undefined;
  if (smtpPass !== undefined && smtp !== undefined) smtp.pass = smtpPass;
  const webhookToken = readEntry(secretDir, `app.${id}.smsWebhookToken`);
  if (webhookToken !== undefined && isObject(app.sms)) app.sms.webhookToken = webhookToken;
  const push = isObject(app.push) ? app.push : undefined;
  if (push !== undefined && isObject(push.apns) && isObject(push.apns.token) && push.apns.token.keyFile === undefined) {
    push.apns.token.keyFile = `apns.${id}.p8`;
  }
  if (push !== undefined && isObject(push.fcm) && push.fcm.serviceAccountFile === undefined) {
    push.fcm.serviceAccountFile = `fcm.${id}.json`;
  }
  for (const [maker, field] of Object.entries(makerSecretFiles)) {
    const block = push?.[maker];
    if (!isObject(block) || !isObject(block.profiles)) continue;
    for (const [profile, settings] of Object.entries(block.profiles)) {
      if (isObject(settings) && settings[field] === undefined) settings[field] = `${maker}.${id}.${profile}.secret`;
    }
  }
}

/** Fills the console accounts' hashes from the Secret and adds the accounts file of `console.accountsKey`. */
function assembleConsole(block: Json, options: AssembleOptions, problems: string[]): void {
  const { secretDir, secretName } = options;
  const accounts: unknown[] = Array.isArray(block.accounts) ? block.accounts : [];
  accounts.forEach((account, index) => {
    if (!isObject(account)) return void problems.push(`console.accounts[${index}] must be an object`);
    const entry = `console.${String(account.username)}.passwordHash`;
    if (account.passwordHash !== undefined) return void problems.push(`console.accounts[${index}].passwordHash: hashes come from the Secret (${entry}), not from values`);
    const hash = readEntry(secretDir, entry);
    if (hash === undefined) problems.push(`the Secret ${secretName} has no entry ${entry} (the password hash of console account ${String(account.username)}; make it with herald console-user)`);
    else account.passwordHash = hash;
  });
  const key = block.accountsKey;
  delete block.accountsKey;
  if (typeof key === 'string' && key !== '') {
    const text = readEntry(secretDir, key);
    if (text === undefined) {
      problems.push(`the Secret ${secretName} has no entry ${key} (console.accountsKey: the console accounts file)`);
    } else {
      let listed: unknown;
      try {
        listed = JSON.parse(text);
      } catch {
        listed = undefined;
      }
      if (!Array.isArray(listed) || !listed.every((account) => isObject(account) && typeof account.username === 'string' && typeof account.passwordHash === 'string')) {
        problems.push(`the Secret entry ${key} (console.accountsKey) must hold a JSON list of accounts, each with username, passwordHash, role and apps`);
      } else {
        accounts.push(...(listed as unknown[]));
      }
    }
  }
  const seen = new Set<string>();
  for (const account of accounts) {
    const name = isObject(account) ? String(account.username) : '';
    if (seen.has(name)) problems.push(`console account ${name} is given twice`);
    seen.add(name);
  }
  block.accounts = accounts;
}

/** Answers the assembled config; throws AssembleError naming every missing or misplaced secret. */
export function assembleConfig(options: AssembleOptions): Json {
  const config: unknown = JSON.parse(readFileSync(options.source, 'utf8'));
  if (!isObject(config)) throw new AssembleError([`${options.source} must hold a JSON object`]);
  const problems: string[] = [];
  const apps = Array.isArray(config.apps) ? config.apps : [];
  apps.forEach((app, index) => {
    if (isObject(app)) assembleApp(app, index, options, problems);
    else problems.push(`apps[${index}] must be an object`);
  });
  if (isObject(config.console)) assembleConsole(config.console, options, problems);
  resolveFiles(config, '', options, problems);
  if (problems.length > 0) throw new AssembleError(problems);
  return config;
}

function main(): void {
  const env = process.env;
  const options: AssembleOptions = {
    source: env.HERALD_CONFIG_SOURCE ?? '/etc/herald/config/herald.json',
    secretDir: env.HERALD_SECRET_DIR ?? '/etc/herald/secret',
    secretName: env.HERALD_SECRET_NAME ?? 'herald',
    target: env.HERALD_CONFIG ?? '/run/herald/herald.json',
  };
  try {
    const config = assembleConfig(options);
    writeFileSync(options.target, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    const apps = Array.isArray(config.apps) ? config.apps.map((app: Json) => String(app.id)) : [];
    const accounts = isObject(config.console) && Array.isArray(config.console.accounts) ? config.console.accounts.length : 0;
    process.stdout.write(`herald config written to ${options.target} (apps: ${apps.join(', ') || 'none'}; console accounts: ${accounts})\n`);
  } catch (error) {
    const lines = error instanceof AssembleError ? error.problems : [error instanceof Error ? error.message : String(error)];
    process.stderr.write(`herald config: cannot assemble ${options.target}:\n${lines.map((line) => `  - ${line}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}

// Run as a program (a ConfigMap mounts it through a symlink, so compare real paths), not when a test imports it.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) main();
