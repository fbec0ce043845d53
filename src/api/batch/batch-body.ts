import { ErrorCode, HeraldError, fail } from '../../core/errors.ts';
import { batchTarget, type BatchTarget } from './batch-target.ts';

/**
 * Most requests one batch may hold. SPEC.md does not mention batches; the
 * hosted service allowed 50 per batch, and so does Herald.
 */
export const maxBatchRequests = 50;

/** The methods a batched request may use: those of the object endpoints. */
const methods = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type BatchMethod = (typeof methods)[number];

/** One request of `{"requests": [...]}`, checked for shape only. */
export interface BatchRequest {
  method: BatchMethod;
  /** As sent, e.g. `/1.1/classes/_User/<id>`; `batchTarget` decides what it reaches. */
  path: string;
  /** The body; `{}` when the request sent none (as for a direct request with an empty body). */
  body: unknown;
  /** Query parameters, as the hosted SDKs send them for long queries and `fetchWhenSave`. */
  params: Readonly<Record<string, unknown>>;
}

/** A batched request with where it goes, or why it goes nowhere (an error entry of its own). */
export interface PlannedRequest {
  request: BatchRequest;
  target: BatchTarget | HeraldError;
}

/**
 * Reads `{"requests": [{method, path, body?, params?}, ...]}`. A body of any
 * other shape, or a request that is not of that shape, refuses the whole
 * batch with 107 before anything runs; so do more than `maxBatchRequests`
 * operations (each id of a DELETE of several ids counts), with 1. Whether a
 * path may be batched is decided per request: one that may not is an error
 * entry of its own, not a failure of the batch.
 */
export function readBatchBody(body: unknown): PlannedRequest[] {
  if (!isObject(body) || !Array.isArray(body.requests)) {
    fail(ErrorCode.invalidJson, 'A batch body is {"requests": [{"method": ..., "path": ..., "body": {...}}, ...]}.');
  }
  const requests: unknown[] = body.requests;
  if (requests.length > maxBatchRequests) tooMany(requests.length);
  const planned = requests.map((request, index) => {
    const read = readRequest(request, `requests[${index}]`);
    return { request: read, target: batchTarget(read) };
  });
  const operations = planned.reduce((sum, { target }) => sum + (target instanceof HeraldError ? 1 : target.urls.length), 0);
  if (operations > maxBatchRequests) tooMany(operations);
  return planned;
}

function tooMany(count: number): never {
  fail(
    ErrorCode.internal,
    `A batch holds at most ${maxBatchRequests} operations (each id of a DELETE of several ids counts); this one holds ${count}. Send the rest in another batch.`,
  );
}

function readRequest(request: unknown, at: string): BatchRequest {
  if (!isObject(request)) fail(ErrorCode.invalidJson, `${at} must be an object {"method": ..., "path": ..., "body": {...}}.`);
  const method = typeof request.method === 'string' ? request.method.toUpperCase() : undefined;
  if (!isMethod(method)) fail(ErrorCode.invalidJson, `${at}.method must be one of ${methods.join(', ')}.`);
  if (typeof request.path !== 'string' || request.path === '') fail(ErrorCode.invalidJson, `${at}.path must be a path such as /1.1/classes/_User/<objectId>.`);
  const body = request.body ?? {};
  if (!isObject(body)) fail(ErrorCode.invalidJson, `${at}.body must be a JSON object.`);
  const params = request.params ?? {};
  if (!isObject(params)) fail(ErrorCode.invalidJson, `${at}.params must be a JSON object.`);
  return { method, path: request.path, body, params };
}

function isMethod(method: string | undefined): method is BatchMethod {
  return (methods as readonly (string | undefined)[]).includes(method);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
