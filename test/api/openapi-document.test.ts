import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AccountDeps, Caller } from '../../src/accounts/account-deps.ts';
import { requestEmailVerify } from '../../src/accounts/email-verification.ts';
import { login } from '../../src/accounts/login.ts';
import { requestPasswordReset } from '../../src/accounts/password-reset.ts';
import { requestSmsCode } from '../../src/accounts/sms-codes.ts';
import { readBatchBody } from '../../src/api/batch/batch-body.ts';
import { createHttpApp, type HttpAppDeps } from '../../src/api/http-app.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/openapi-document.ts';
import { userFieldNamePattern, usernamePattern } from '../../src/api/openapi/user-operations.ts';
import { readUserInput, readUsername } from '../../src/accounts/user-input.ts';
import { compileConfig } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { readDevicePush, readQueryPush } from '../../src/push/requests/push-request.ts';
import { openApiFileText, shippedOpenApiFile } from '../../scripts/tools/openapi.ts';
import { documentedOperations, recordReads, ResponseSchemas, servedRoutes } from '../support/openapi-contract.ts';
import { testApp } from '../support/test-herald.ts';

const document = buildOpenApiDocument();
const operations = documentedOperations(document);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** An express app as Herald builds it; its routers are only walked, so nothing behind them is needed. */
function heraldApp(serveOperations: boolean) {
  const unused = new Proxy({}, { get: () => undefined }) as never;
  const deps: HttpAppDeps = {
    accounts: unused,
    push: unused,
    apps: unused,
    logger: silentLogger(),
    outages: unused,
    bodyLimitBytes: 1024,
    health: unused,
    metrics: unused,
    serveOperations,
    auth: { headerPrefixes: ['X-SVC'], signatureWindowSeconds: 900 },
    clock: unused,
  };
  return createHttpApp(deps);
}

/** The named examples of an operation's JSON request body. */
function requestExamples(path: string, method: string): Json[] {
  const operation = operations.find((item) => item.path === path && item.method === method)?.operation;
  const examples = (operation?.requestBody?.content?.['application/json']?.examples ?? {}) as Record<string, { value: Json }>;
  return Object.values(examples).map((example) => example.value);
}

/** The top-level properties an operation's body schema documents, following one `$ref` and `allOf`. */
function documentedProperties(path: string, method: string): string[] {
  const operation = operations.find((item) => item.path === path && item.method === method)?.operation;
  const schemas = (document.components as Json).schemas as Json;
  const resolve = (schema: Json): Json => (typeof schema.$ref === 'string' ? (schemas[schema.$ref.split('/').pop() as string] as Json) : schema);
  const body = resolve(operation?.requestBody.content['application/json'].schema as Json);
  const parts = [body, ...((body.allOf as Json[] | undefined) ?? []).map(resolve)];
  return [...new Set(parts.flatMap((part) => Object.keys((part.properties as Json | undefined) ?? {})))].sort();
}

/** Raised by the fake dependencies: the reader got past the body to the store or a limit. */
class ReachedBackend extends Error {}

const backend = new Proxy(
  {},
  {
    get: () => {
      throw new ReachedBackend();
    },
  },
) as AccountDeps;

const caller: Caller = { app: { config: compileConfig({ apps: [testApp()] }).apps[0]!, mailer: backend as never, sms: backend as never }, master: true, sessionToken: null };

/**
 * Runs a reader on every example of an operation with a recording body:
 * answers the keys it looked at. A reader that refuses an example fails the
 * test: the examples are valid requests.
 */
async function keysRead(path: string, read: (body: Json) => unknown): Promise<string[]> {
  const keys = new Set<string>();
  const examples = requestExamples(path, 'POST');
  expect(examples.length, `${path} has request examples`).toBeGreaterThan(0);
  for (const example of examples) {
    const recorded = recordReads(structuredClone(example));
    try {
      await read(recorded.body);
    } catch (error) {
      if (!(error instanceof ReachedBackend)) throw new Error(`${path} refuses its own example ${JSON.stringify(example)}`, { cause: error });
    }
    expect(recorded.enumerated, `${path}'s reader reads named parameters, not every key`).toBe(false);
    for (const key of recorded.keys) keys.add(key);
  }
  return [...keys].sort();
}

describe('the OpenAPI document', () => {
  it('is shipped as docs/openapi.json exactly as Herald serves it (npm run openapi writes it)', () => {
    expect(readFileSync(shippedOpenApiFile, 'utf8'), 'docs/openapi.json is stale: run npm run openapi').toBe(openApiFileText());
  });

  it('documents every route Herald serves, and serves every path it documents', () => {
    const documented = operations.map(({ method, path }) => `${method} ${path}`).sort();
    expect(documented).toEqual(servedRoutes(heraldApp(true)));
  });

  it('leaves out no route when health and metrics move to the internal port', () => {
    const operationsPaths = new Set(['/healthz', '/readyz', '/metrics']);
    const documented = operations.filter(({ path }) => !operationsPaths.has(path)).map(({ method, path }) => `${method} ${path}`);
    expect(documented.sort()).toEqual(servedRoutes(heraldApp(false)));
  });

  it('notices a route added without documentation', () => {
    const app = heraldApp(true);
    app.get('/1.1/undocumented', (_req, res) => res.json({}));
    const documented = operations.map(({ method, path }) => `${method} ${path}`);
    expect(servedRoutes(app).filter((route) => !documented.includes(route))).toEqual(['GET /1.1/undocumented']);
  });

  it('gives every operation a unique id, its path parameters, a success and the {code, error} errors', () => {
    const ids = operations.map(({ operation }) => operation.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { method, path, operation } of operations) {
      const declared = ((operation.parameters ?? []) as Json[]).map((parameter) =>
        typeof parameter.$ref === 'string' ? ((document.components as Json).parameters as Json)[parameter.$ref.split('/').pop() as string] : parameter,
      );
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        expect(declared.some((parameter: Json) => parameter.in === 'path' && parameter.name === name), `${method} ${path} declares ${name}`).toBe(true);
      }
      const statuses = Object.keys(operation.responses as Json);
      expect(statuses.some((status) => status.startsWith('2')), `${method} ${path} has a success`).toBe(true);
      if (path.startsWith('/1.1/') && !['/1.1/openapi.json', '/1.1/verifyEmail/{token}', '/1.1/resetPassword/{token}'].includes(path)) {
        for (const status of ['400', '401', '403', '404', '413', '503']) expect(operation.responses[status], `${method} ${path} ${status}`).toEqual({ $ref: `#/components/responses/Error${status}` });
      }
    }
  });

  it('resolves every reference and compiles every schema', () => {
    const text = JSON.stringify(document);
    for (const [, pointer] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
      const target = pointer!.split('/').reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
      expect(target, `#/${pointer}`).toBeDefined();
    }
    const schemas = new ResponseSchemas(document);
    for (const name of Object.keys((document.components as Json).schemas as Json)) schemas.compile({ $ref: `#/components/schemas/${name}` });
  });

  it('links only to operations that exist, through parameters they declare', () => {
    const byId = new Map(operations.map((item) => [item.operation.operationId as string, item]));
    const parameters = (document.components as Json).parameters as Json;
    for (const { method, path, operation } of operations) {
      for (const response of Object.values(operation.responses as Json) as Json[]) {
        for (const [name, link] of Object.entries((response.links ?? {}) as Json)) {
          const target = byId.get(link.operationId as string);
          expect(target, `${method} ${path} link ${name}`).toBeDefined();
          const declared = ((target?.operation.parameters ?? []) as Json[]).map((parameter) => (typeof parameter.$ref === 'string' ? parameters[parameter.$ref.split('/').pop() as string] : parameter) as Json);
          for (const key of Object.keys(link.parameters as Json)) {
            const [where, parameterName] = key.split('.', 2);
            expect(declared.some((parameter) => parameter.in === where && parameter.name === parameterName), `${name}: ${key}`).toBe(true);
          }
        }
      }
    }
  });

  it('holds request examples that its own schemas accept', () => {
    const schemas = new ResponseSchemas(document);
    let checked = 0;
    for (const { method, path, operation } of operations) {
      const media = operation.requestBody?.content?.['application/json'] as Json | undefined;
      if (media === undefined) continue;
      const validate = schemas.compile(media.schema);
      for (const [name, example] of Object.entries((media.examples ?? {}) as Record<string, { value: unknown }>)) {
        expect(validate(example.value), `${method} ${path} example ${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('allows only the documented error codes in an error body', () => {
    const validate = new ResponseSchemas(document).compile({ $ref: '#/components/schemas/Error' });
    expect(validate({ code: 211, error: 'Could not find user.' })).toBe(true);
    expect(validate({ code: 999, error: 'no such code' })).toBe(false);
    expect(validate({ code: 1, error: 'x', extra: true })).toBe(false);
    expect(validate({ error: 'no code' })).toBe(false);
  });
});

/** Whether a reader accepts a value: it returns, or throws. */
function accepts(read: () => unknown): boolean {
  try {
    read();
    return true;
  } catch {
    return false;
  }
}

describe('the patterns the document gives for what the validation code checks', () => {
  it('lets through exactly the usernames readUsername accepts, for every character of the Basic Multilingual Plane', () => {
    const pattern = new RegExp(usernamePattern, 'u');
    const disagreements: string[] = [];
    for (let code = 0; code <= 0xffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCharCode(code);
      for (const name of [`a${character}b`, character]) {
        if (pattern.test(name) !== accepts(() => readUsername(name))) disagreements.push(`U+${code.toString(16).padStart(4, '0')} in ${JSON.stringify(name)}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it.each([
    'nickname',
    'a b',
    'ünïcode',
    'x'.repeat(128),
    'x'.repeat(129),
    '',
    '_private',
    'a.b',
    'a$b',
    'objectId',
    'createdAt',
    'updatedAt',
    'sessionToken',
    'authData.weixin',
    'authData.bad-name',
    'authData.',
  ])('names a custom user field %j exactly as readUserInput takes it', (name) => {
    const value = name.startsWith('authData.') ? { __op: 'Delete' } : 'x';
    expect(new RegExp(userFieldNamePattern, 'u').test(name)).toBe(accepts(() => readUserInput({ [name]: value }, { master: true })));
  });
});

describe('the request bodies the document describes', () => {
  const context = { now: Date.parse('2026-05-01T00:00:00Z'), prodHeader: undefined };

  it.each([
    ['/1.1/push', (body: Json) => readQueryPush(body, context)],
    ['/1.1/push/devices', (body: Json) => readDevicePush(body, context)],
    ['/1.1/batch', (body: Json) => readBatchBody(body)],
    ['/1.1/login', (body: Json) => login(backend, caller, body)],
    ['/1.1/requestSmsCode', (body: Json) => requestSmsCode(backend, caller, body)],
    ['/1.1/requestPasswordReset', (body: Json) => requestPasswordReset(backend, caller, body)],
    ['/1.1/requestEmailVerify', (body: Json) => requestEmailVerify(backend, caller, body)],
  ])('%s: the validation code reads exactly the documented parameters, and accepts the examples', async (path, read) => {
    expect(await keysRead(path, read)).toEqual(documentedProperties(path, 'POST'));
  });

  it('notices a parameter the validation code reads that the document does not name', async () => {
    const readsMore = (body: Json) => {
      void body.vendor_region;
      return readDevicePush(body, context);
    };
    const keys = await keysRead('/1.1/push/devices', readsMore);
    expect(keys.filter((key) => !documentedProperties('/1.1/push/devices', 'POST').includes(key))).toEqual(['vendor_region']);
  });
});
