import { logTailLines, readLogTail } from './log-tail.ts';

/** A local service that could not be provisioned, started or stopped; the message carries its log tail. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly service: string;

  constructor(service: string, message: string, options?: { cause?: unknown }) {
    super(`${service}: ${message}`, options);
    this.service = service;
  }

  /** An error whose message ends with the last lines of `logFile`. */
  static async withLogTail(service: string, message: string, logFile: string, options?: { cause?: unknown }): Promise<ServiceError> {
    const tail = await readLogTail(logFile);
    return new ServiceError(service, `${message}\n--- last ${logTailLines} lines of ${logFile} ---\n${tail}\n---`, options);
  }
}

/** Several services failed; each failure keeps its own message and log tail. */
export class ServicesError extends AggregateError {
  override readonly name = 'ServicesError';

  constructor(errors: readonly Error[]) {
    super(errors, errors.map((error) => error.message).join('\n\n'));
  }
}
