import { EventEmitter } from 'node:events';

/**
 * What one batched request answered: status and JSON body.
 */
export interface CapturedAnswer {
  status: number;
  body: unknown;
}

/**
 * Stands in for the express response of one batched request. It carries the
 * outer request's `locals` (the resolved caller) and takes the answer the
 * route handlers and the error handler write, instead of sending it; it
 * emits `finish` as a sent response does, so request metrics time it too.
 * It implements what Herald's routes and middleware use of a response
 * (`locals`, `status`, `json`, `location`, `set`, `statusCode`, `finish`)
 * and nothing that could reach the outer response's socket or headers.
 */
export class CapturedResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  readonly locals: Record<string, unknown>;
  readonly answer: Promise<CapturedAnswer>;
  #resolve: (answer: CapturedAnswer) => void = () => {};

  constructor(locals: Record<string, unknown>) {
    super();
    this.locals = locals;
    this.answer = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  status(code: number): this {
    this.statusCode = code;
    return this;
  }

  /** Headers (`Location`, `Retry-After`) have no place in a batch answer. */
  set(_name: string, _value?: string): this {
    return this;
  }

  location(_url: string): this {
    return this;
  }

  json(body: unknown): this {
    if (this.headersSent) return this;
    this.headersSent = true;
    this.#resolve({ status: this.statusCode, body });
    this.emit('finish');
    return this;
  }
}
