import { Metadata, credentials, loadPackageDefinition, status, type Client, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { readErrorDetail, statusDetailsKey } from '../../../src/grpc/grpc-errors.ts';
import { loadHeraldProtos, protoLoaderOptions } from '../../../src/grpc/proto-files.ts';
import type { TestApp } from '../../support/test-herald.ts';

// Messages are untyped on the wire; tests read the fields they expect.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type UnaryMethod = (request: Json, metadata: Metadata, callback: (error: ServiceError | null, response: Json) => void) => unknown;
type StreamMethod = (request: Json, metadata: Metadata) => ClientReadableStream<Json>;
type ClientConstructor = new (address: string, creds: ReturnType<typeof credentials.createInsecure>) => Client;

const packages = loadPackageDefinition(loadHeraldProtos()) as unknown as { herald: { v1: { PushService: ClientConstructor } } };
const healthPackage = loadPackageDefinition(loadSync(healthProtoPath, protoLoaderOptions)) as unknown as { grpc: { health: { v1: { Health: ClientConstructor } } } };

/** A failed call as the tests check it: the gRPC status, and the Herald error from both places it travels. */
export interface CallFailure {
  code: status;
  message: string;
  /** The `herald-code` trailer. */
  heraldCode: number | undefined;
  /** The herald.v1.ErrorDetail in `grpc-status-details-bin`. */
  detail: { code: number; error: string; retryable: boolean } | null;
}

/** The metadata of a call with the app's master key (`x-svc-key: <master>,master`), or with the given entries instead. */
export function masterMetadata(app: TestApp, entries?: Record<string, string>): Metadata {
  const metadata = new Metadata();
  const values = entries ?? { 'x-svc-id': app.id, 'x-svc-key': `${app.masterKey},master` };
  for (const [key, value] of Object.entries(values)) metadata.set(key, value);
  return metadata;
}

/** A herald.v1.PushService client whose unary calls answer promises. */
export class PushClient {
  readonly raw: Client;
  readonly #app: TestApp;

  constructor(port: number, app: TestApp) {
    this.raw = new packages.herald.v1.PushService(`127.0.0.1:${port}`, credentials.createInsecure());
    this.#app = app;
  }

  /** Calls `method` with the master key unless other metadata is given; rejects with the ServiceError. */
  call(method: string, request: Json, metadata: Metadata = masterMetadata(this.#app)): Promise<Json> {
    const fn = (this.raw as unknown as Record<string, UnaryMethod>)[method];
    if (fn === undefined) throw new Error(`no method ${method}`);
    return new Promise((resolve, reject) => {
      fn.call(this.raw, request, metadata, (error, response) => (error ? reject(error) : resolve(response)));
    });
  }

  /** Calls `method` expecting it to fail, and answers how. */
  async failure(method: string, request: Json, metadata?: Metadata): Promise<CallFailure> {
    try {
      const response = await this.call(method, request, metadata);
      throw new Error(`${method} answered ${JSON.stringify(response)} where a failure was expected`);
    } catch (error) {
      if (!isServiceError(error)) throw error;
      return describeFailure(error);
    }
  }

  /** Opens WatchPush (with the request's other fields, `failures` say); the stream's messages and end are read by `readStream`. */
  watch(objectId: string, metadata: Metadata = masterMetadata(this.#app), fields: Json = {}): ClientReadableStream<Json> {
    return (this.raw as unknown as Record<string, StreamMethod>).WatchPush!.call(this.raw, { ...fields, object_id: objectId }, metadata);
  }

  close(): void {
    this.raw.close();
  }
}

/** A grpc.health.v1.Health client. */
export class HealthClient {
  readonly raw: Client;

  constructor(port: number) {
    this.raw = new healthPackage.grpc.health.v1.Health(`127.0.0.1:${port}`, credentials.createInsecure());
  }

  /** The status Check answers for `service`, or the failure's gRPC code. */
  check(service: string): Promise<string> {
    const check = (this.raw as unknown as Record<string, UnaryMethod>).Check!;
    return new Promise((resolve, reject) => {
      check.call(this.raw, { service }, new Metadata(), (error, response) => (error ? reject(error) : resolve(String(response.status))));
    });
  }

  /** Opens Watch for `service`. */
  watch(service: string): ClientReadableStream<Json> {
    return (this.raw as unknown as Record<string, StreamMethod>).Watch!.call(this.raw, { service }, new Metadata());
  }

  close(): void {
    this.raw.close();
  }
}

/** What a server stream sent, and how it ended: OK (failure null) or with a failure. */
export interface StreamResult {
  messages: Json[];
  failure: CallFailure | null;
}

/** Reads a server stream to its end; fails after `timeoutMs`, naming what arrived. */
export function readStream(stream: ClientReadableStream<Json>, options: { timeoutMs?: number; what: string }): Promise<StreamResult> {
  const messages: Json[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stream.cancel();
      reject(new Error(`waited ${options.timeoutMs ?? 15_000} ms for ${options.what} to end; got ${JSON.stringify(messages)}`));
    }, options.timeoutMs ?? 15_000);
    stream.on('data', (message: Json) => messages.push(message));
    stream.on('error', (error: unknown) => {
      clearTimeout(timer);
      if (isServiceError(error)) resolve({ messages, failure: describeFailure(error) });
      else reject(error instanceof Error ? error : new Error(String(error)));
    });
    stream.on('status', (end: { code: status }) => {
      if (end.code !== status.OK) return;
      clearTimeout(timer);
      resolve({ messages, failure: null });
    });
  });
}

/** Waits for the first message of a stream that satisfies `done`; fails after `timeoutMs`, naming what arrived. */
export function nextMessage(stream: NodeJS.EventEmitter, done: (message: Json) => boolean, options: { timeoutMs?: number; what: string }): Promise<Json> {
  const seen: Json[] = [];
  return new Promise((resolve, reject) => {
    const onData = (message: Json) => {
      seen.push(message);
      if (!done(message)) return;
      clearTimeout(timer);
      stream.off('data', onData);
      resolve(message);
    };
    const timer = setTimeout(() => {
      stream.off('data', onData);
      reject(new Error(`waited ${options.timeoutMs ?? 15_000} ms for ${options.what}; got ${JSON.stringify(seen)}`));
    }, options.timeoutMs ?? 15_000);
    stream.on('data', onData);
  });
}

/** Cancels a stream from the client's side; the CANCELLED it then reports is expected. */
export function cancelStream(stream: ClientReadableStream<Json>): void {
  stream.on('error', (error: unknown) => {
    if (!isServiceError(error) || error.code !== status.CANCELLED) throw error;
  });
  stream.cancel();
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === 'number' && (error as Partial<ServiceError>).metadata instanceof Metadata;
}

function describeFailure(error: ServiceError): CallFailure {
  const code = error.metadata.get('herald-code')[0];
  const details = error.metadata.get(statusDetailsKey)[0];
  return {
    code: error.code,
    message: error.details,
    heraldCode: typeof code === 'string' ? Number(code) : undefined,
    detail: Buffer.isBuffer(details) ? readErrorDetail(details) : null,
  };
}
