import { pino, type Logger as PinoLogger, type LoggerOptions } from 'pino';

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

export function createLogger(settings: LoggerSettings, destination?: NodeJS.WritableStream): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    base: { service: 'herald' },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that drops everything; for tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
