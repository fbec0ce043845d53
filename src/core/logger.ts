import { pino, symbols, type Bindings, type ChildLoggerOptions, type Logger as PinoLogger, type LoggerOptions } from 'pino';

/** Structured logger; child loggers carry `role`, `app` and similar bindings. */
export type Logger = PinoLogger;

export interface LoggerSettings {
  level: string;
  pretty?: boolean;
}

/** Keys whose values never reach a log line, wherever they appear. */
const redactPaths = [
  'password',
  '*.password',
  'new_password',
  'old_password',
  '*.new_password',
  '*.old_password',
  'sessionToken',
  '*.sessionToken',
  'req.headers["x-svc-key"]',
  'req.headers["x-svc-session"]',
  'req.headers["x-svc-sign"]',
  'req.headers["x-lc-key"]',
  'req.headers["x-lc-session"]',
  'req.headers["x-lc-sign"]',
];

/**
 * Herald's logger: JSON lines at `settings.level`, with secrets redacted, and
 * never a key twice on one line (see `withoutRepeatedKeys`).
 */
export function createLogger(settings: LoggerSettings, destination?: NodeJS.WritableStream): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    base: { service: 'herald' },
    hooks: { logMethod: logWithoutRepeatedKeys },
  };
  return withoutRepeatedKeys(destination ? pino(options, destination) : pino(options));
}

/**
 * pino writes a child's bindings after its parent's, and a call's fields
 * after both, without looking for keys already written: `child({app})` under
 * a logger bound to `app`, or `log.debug({groupId})` on a logger bound to
 * `groupId`, made lines with the key twice, which JSON readers resolve
 * silently and differently (most keep the last). Here a child that rebinds a
 * key replaces its parent's value, and a call's field replaces a binding's,
 * so every line holds each key once, with the innermost value. The check
 * costs a set lookup per field; only a repeat builds anything.
 */
function withoutRepeatedKeys(root: PinoLogger): PinoLogger {
  const withChild = root as unknown as { child: ChildMethod };
  const pinoChild = withChild.child;
  // Children inherit this from the root through their prototype chain.
  withChild.child = function child(this: PinoLogger, bindings: Bindings, options?: ChildLoggerOptions<never>): PinoLogger {
    const bound = keysBoundTo(this);
    if (!Object.keys(bindings).some((key) => bound.has(key))) return pinoChild.call(this, bindings, options);
    // Keep everything the parent set up (level, serializers, redaction) and write the bindings afresh, merged.
    const merged = { ...this.bindings(), ...bindings };
    const fresh = pinoChild.call(this, {}, options);
    (fresh as unknown as Record<symbol, string>)[symbols.chindingsSym] = '';
    fresh.setBindings(merged);
    return fresh;
  };
  return root;
}

type ChildMethod = (this: PinoLogger, bindings: Bindings, options?: ChildLoggerOptions<never>) => PinoLogger;

/** The keys a logger writes on every line: its bindings and its parents', read once per logger. */
const boundKeys = new WeakMap<PinoLogger, ReadonlySet<string>>();

function keysBoundTo(logger: PinoLogger): ReadonlySet<string> {
  let keys = boundKeys.get(logger);
  if (keys === undefined) {
    keys = new Set(Object.keys(logger.bindings()));
    boundKeys.set(logger, keys);
  }
  return keys;
}

/** pino's logMethod hook: a call whose fields repeat a binding logs through a child that holds the call's values instead. */
function logWithoutRepeatedKeys(this: PinoLogger, args: Parameters<PinoLogger['info']>, method: PinoLogger['info']): void {
  const [fields, ...rest] = args as unknown[];
  if (typeof fields !== 'object' || fields === null || fields instanceof Error) {
    method.apply(this, args);
    return;
  }
  const bound = keysBoundTo(this);
  const own = fields as Record<string, unknown>;
  let repeats = false;
  for (const key in own) {
    if (bound.has(key)) {
      repeats = true;
      break;
    }
  }
  if (!repeats) {
    method.apply(this, args);
    return;
  }
  const rebound: Bindings = {};
  const remaining: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(own)) {
    if (bound.has(key)) rebound[key] = value;
    else remaining[key] = value;
  }
  method.apply(this.child(rebound), [remaining, ...rest] as Parameters<PinoLogger['info']>);
}

/** A logger that drops everything; for tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
