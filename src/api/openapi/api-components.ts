import { ErrorCode } from '../../core/errors.ts';
import { defaultLimit, maxLimit, maxSkip } from '../../query/query.ts';
import { jsonAnswer, ref, type JsonSchema } from './json-schema.ts';

/**
 * The reusable parts of Herald's OpenAPI document: security schemes, the
 * error body, the encoded values, the query parameters and the error
 * answers every `/1.1` operation may give.
 */

/** `X-SVC-Id` with `X-SVC-Key` (app key or `<master key>,master`) or `X-SVC-Sign`, and `X-SVC-Session` (SPEC.md, Authentication). */
export const securitySchemes: Readonly<Record<string, JsonSchema>> = {
  appId: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVC-Id',
    description: 'The app id, on every /1.1 request. Every X-SVC- header is also read with the X-LC- prefix the hosted service\'s SDKs send (HERALD_AUTH_HEADER_PREFIXES).',
  },
  appKey: { type: 'apiKey', in: 'header', name: 'X-SVC-Key', description: 'The app key: what a client app holds. Object ACLs and class permissions apply.' },
  masterKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVC-Key',
    description: 'The master key followed by `,master` (`<master key>,master`): for trusted servers only; ACLs and class permissions do not apply.',
  },
  signature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SVC-Sign',
    description:
      'Instead of X-SVC-Key: `md5(timestamp + key)` in hex, a comma and the timestamp in ms, then `,master` when signed with the master key; within 15 minutes of the server\'s clock (HERALD_SIGNATURE_WINDOW_SECONDS).',
  },
  session: { type: 'apiKey', in: 'header', name: 'X-SVC-Session', description: 'A user\'s session token, from registration or login: the user\'s own requests.' },
};

/** Any of the app's keys: the app key, the master key, or a signature made with either. */
export const anyKey = [
  { appId: [], appKey: [] },
  { appId: [], masterKey: [] },
  { appId: [], signature: [] },
] as const;

/** Any key, and the user's session where the operation acts for a user. */
export const keyWithSession = [
  { appId: [], appKey: [], session: [] },
  { appId: [], masterKey: [] },
  { appId: [], appKey: [] },
  { appId: [], signature: [] },
] as const;

/** Operations for trusted servers: the master key, or a signature made with it. */
export const masterOnly = [
  { appId: [], masterKey: [] },
  { appId: [], signature: [] },
] as const;

const objectIdPattern = '^[A-Za-z0-9]{1,64}$';
const isoTime = { type: 'string', format: 'date-time', description: 'ISO 8601 in UTC with milliseconds.' };

const schemas: Readonly<Record<string, JsonSchema>> = {
  Error: {
    type: 'object',
    description: 'Every error Herald answers on /1.1: a stable numeric code (SPEC-NOTES.md) and a message for people.',
    required: ['code', 'error'],
    properties: {
      code: { type: 'integer', enum: [...new Set(Object.values(ErrorCode))].sort((a, b) => a - b) },
      error: { type: 'string' },
    },
    additionalProperties: false,
  },
  ObjectId: { type: 'string', pattern: objectIdPattern },
  Timestamp: isoTime,
  Empty: { type: 'object', additionalProperties: false, description: 'An empty object: `{}`.' },
  Date: {
    type: 'object',
    required: ['__type', 'iso'],
    properties: { __type: { const: 'Date' }, iso: { type: 'string' } },
  },
  Pointer: {
    type: 'object',
    required: ['__type', 'className', 'objectId'],
    properties: { __type: { const: 'Pointer' }, className: { type: 'string', minLength: 1 }, objectId: { type: 'string', minLength: 1 } },
  },
  UserPointer: {
    type: 'object',
    required: ['__type', 'className', 'objectId'],
    properties: { __type: { const: 'Pointer' }, className: { const: '_User' }, objectId: { type: 'string', minLength: 1 } },
  },
  ACL: {
    type: 'object',
    description: 'Keys are a user objectId, `*` (everyone) or `role:<name>`; values grant `read` and `write` with `true`.',
    propertyNames: { pattern: '^(\\*|[A-Za-z0-9]{1,64}|role:[A-Za-z0-9_ -]{1,64})$' },
    additionalProperties: {
      type: 'object',
      properties: { read: { const: true }, write: { const: true } },
      additionalProperties: false,
    },
  },
  DeleteOp: { type: 'object', required: ['__op'], properties: { __op: { const: 'Delete' } } },
  Created: {
    type: 'object',
    required: ['objectId', 'createdAt'],
    properties: { objectId: ref('schemas', 'ObjectId'), createdAt: isoTime },
  },
  Updated: {
    type: 'object',
    required: ['updatedAt'],
    properties: { updatedAt: isoTime, objectId: ref('schemas', 'ObjectId') },
    description: 'With `new=true` in the query, the whole object as saved.',
  },
};

/** The query options of SPEC-NOTES.md (Queries): `where`, `order`, `limit`, `skip`, `keys`, `count`. */
const parameters: Readonly<Record<string, JsonSchema>> = {
  where: {
    name: 'where',
    in: 'query',
    description:
      'A JSON object: a condition per field (a value for equality, or `$ne $lt $lte $gt $gte $in $nin $all $exists $regex`), `$or` and `$and`; dates and pointers in their encoded forms. At most 64 levels and 5,000 values.',
    content: { 'application/json': { schema: { type: 'object' } } },
  },
  order: {
    name: 'order',
    in: 'query',
    description: 'Field names separated by commas; `-` before a name sorts it descending.',
    schema: { type: 'string', examples: ['-createdAt,username'] },
  },
  limit: { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0, maximum: maxLimit, default: defaultLimit } },
  skip: { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, maximum: maxSkip, default: 0 } },
  keys: { name: 'keys', in: 'query', description: 'Field names separated by commas: only these are answered.', schema: { type: 'string' } },
  count: { name: 'count', in: 'query', description: '`1` adds `count`, the number of objects matched.', schema: { type: 'integer', enum: [0, 1] } },
  objectId: { name: 'objectId', in: 'path', required: true, schema: ref('schemas', 'ObjectId') },
  answerObject: {
    name: 'new',
    in: 'query',
    description: 'The SDKs\' `fetchWhenSave`: `true` answers the object as saved instead of its `updatedAt` alone.',
    schema: { type: 'boolean' },
  },
  session: {
    name: 'X-SVC-Session',
    in: 'header',
    description: 'The session token of the user the request acts for (the `session` security scheme).',
    schema: { type: 'string' },
  },
};

/** The error statuses a `/1.1` operation may answer, each with a `{code, error}` body. */
const errorStatuses: Readonly<Record<string, string>> = {
  '400': 'The request is invalid: see `code` (SPEC-NOTES.md, Errors). Nothing was written.',
  '401': 'Unknown app id, wrong key or signature (401).',
  '403': 'The caller may not do this: ACL, class permission, master key required, stale session (403, 206, 119).',
  '404': 'No such object (101).',
  '409': 'The object changed during the request; try again (1).',
  '413': 'The request body is too large (413).',
  '415': 'The request body is in an encoding Herald cannot read (1).',
  '429': 'Too many requests, e.g. SMS codes to one number (429).',
  '503': 'A backing service (Cassandra, Redis, Kafka) is unavailable; retry after `Retry-After` (503).',
};

const responses: Readonly<Record<string, JsonSchema>> = Object.fromEntries(
  Object.entries(errorStatuses).map(([status, description]) => [`Error${status}`, jsonAnswer(description, ref('schemas', 'Error'))]),
);

/** The error answers of a `/1.1` operation, by status. */
export function errorAnswers(): Record<string, JsonSchema> {
  return Object.fromEntries(Object.keys(errorStatuses).map((status) => [status, ref('responses', `Error${status}`)]));
}

/** Query options as parameter references. */
export const queryParameters: readonly JsonSchema[] = ['where', 'order', 'limit', 'skip', 'keys', 'count'].map((name) => ref('parameters', name));

/** What the document's own schemas add to those of each area. */
export const baseComponents = { securitySchemes, schemas, parameters, responses };
