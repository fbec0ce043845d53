import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Express } from 'express';
import type { JsonSchema } from '../../src/api/openapi/json-schema.ts';

/** One operation of the document: `GET /1.1/users/{objectId}` and its object. */
export interface DocumentedOperation {
  method: string;
  path: string;
  operation: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const methods = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

/** Every operation of an OpenAPI document. */
export function documentedOperations(document: JsonSchema): DocumentedOperation[] {
  const paths = document.paths as Record<string, Record<string, DocumentedOperation['operation']>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => methods.includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

interface RouterLike {
  stack: LayerLike[];
}

interface LayerLike {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: Partial<RouterLike>;
  rawPath?: unknown;
  slash?: boolean;
}

/**
 * `METHOD /path` of every route an express application registers, found by
 * walking its router and every router mounted in it (express 5's layers keep
 * the mount path as `rawPath`), with `:name` written `{name}` as OpenAPI does.
 */
export function servedRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (router: RouterLike, prefix: string): void => {
    for (const layer of router.stack) {
      if (layer.route) {
        const path = `${prefix}${String(layer.route.path)}`.replace(/:(\w+)/g, '{$1}');
        for (const [method, on] of Object.entries(layer.route.methods)) if (on) found.push(`${method.toUpperCase()} ${path}`);
      } else if (Array.isArray(layer.handle?.stack)) {
        walk(layer.handle as RouterLike, layer.slash || layer.rawPath === '/' ? prefix : `${prefix}${String(layer.rawPath)}`);
      }
    }
  };
  walk((app as unknown as { router: RouterLike }).router, '');
  return [...new Set(found)].sort();
}

/**
 * Validates answers against the document's response schemas with a JSON
 * Schema 2020-12 validator: the component schemas become `$defs` of one
 * schema, and each response schema is compiled against them.
 */
export class ResponseSchemas {
  readonly #document: JsonSchema;
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: JsonSchema) {
    this.#document = document;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    this.#ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/);
    this.#ajv.addFormat('email', true);
    const schemas = (document.components as { schemas: JsonSchema }).schemas;
    this.#ajv.addSchema(rewriteRefs({ $id: 'herald', $defs: schemas }) as object);
  }

  /** Compiles a schema written with the document's `#/components/schemas/…` references. */
  compile(schema: unknown): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.#compiled.get(key);
    if (validate === undefined) {
      validate = this.#ajv.compile(rewriteRefs(schema, 'herald') as object);
      this.#compiled.set(key, validate);
    }
    return validate;
  }

  /** The response object an operation documents for a status, its `$ref` followed; undefined when the status is not documented. */
  response(method: string, path: string, status: number): JsonSchema | undefined {
    const operation = (this.#document.paths as Record<string, Record<string, { responses: Record<string, JsonSchema> }>>)[path]?.[method.toLowerCase()];
    const response = operation?.responses[String(status)];
    if (response === undefined || typeof response.$ref !== 'string') return response;
    const name = response.$ref.slice('#/components/responses/'.length);
    return (this.#document.components as { responses: Record<string, JsonSchema> }).responses[name];
  }

  /** What is wrong with an answer by the document: an undocumented status, or a body its schema refuses; empty when nothing is. */
  problems(method: string, path: string, status: number, body: unknown): string[] {
    const response = this.response(method, path, status);
    if (response === undefined) return [`${method} ${path} answered ${status}, which the document does not list`];
    const schema = (response.content as Record<string, { schema?: unknown }> | undefined)?.['application/json']?.schema;
    if (schema === undefined) return [];
    const validate = this.compile(schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((error) => `${method} ${path} ${status}: ${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
  }
}

/** `#/components/schemas/X` → `#/$defs/X` (inside the `herald` schema) or `herald#/$defs/X` (from outside it). */
function rewriteRefs(schema: unknown, base = ''): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${base}#/$defs/`));
}

/** Which top-level keys of a request body a reader looked at, and whether it enumerated them all. */
export interface RecordedReads {
  body: Record<string, unknown>;
  keys: Set<string>;
  enumerated: boolean;
}

/**
 * Wraps a request body so that every top-level key a reader asks for
 * (`body.x`, `'x' in body`, `Object.hasOwn(body, 'x')`) is recorded, and an
 * enumeration of all its keys (a schema-free body) is noted.
 */
export function recordReads(body: Record<string, unknown>): RecordedReads {
  const recorded: RecordedReads = { body, keys: new Set(), enumerated: false };
  const note = (key: string | symbol): void => {
    if (typeof key === 'string' && key !== 'toJSON' && key !== 'constructor') recorded.keys.add(key);
  };
  recorded.body = new Proxy(body, {
    get: (target, key, receiver) => {
      note(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
    has: (target, key) => {
      note(key);
      return Reflect.has(target, key);
    },
    getOwnPropertyDescriptor: (target, key) => {
      note(key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys: (target) => {
      recorded.enumerated = true;
      return Reflect.ownKeys(target);
    },
  });
  return recorded;
}
