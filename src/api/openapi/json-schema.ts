/**
 * JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) and the OpenAPI
 * objects Herald's contract is built of, as plain data: the document is
 * served and shipped exactly as these values are written.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** An OpenAPI operation (method of a path). */
export interface OpenApiOperation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
  readonly parameters?: readonly JsonSchema[];
  readonly requestBody?: JsonSchema;
  readonly responses: Readonly<Record<string, JsonSchema>>;
}

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** The operations of one path, by method. */
export type OpenApiPath = Partial<Record<HttpMethod, OpenApiOperation>>;

/** Paths as OpenAPI writes them (`/1.1/users/{objectId}`), each with its operations. */
export type OpenApiPaths = Record<string, OpenApiPath>;

/** `{"$ref": "#/components/<kind>/<name>"}`. */
export function ref(kind: 'schemas' | 'parameters' | 'responses' | 'headers', name: string): JsonSchema {
  return { $ref: `#/components/${kind}/${name}` };
}

/** A JSON request body of the given schema, with named examples. */
export function jsonBody(schema: JsonSchema, examples: Readonly<Record<string, unknown>>, required = true): JsonSchema {
  const named = Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }]));
  return { required, content: { 'application/json': { schema, examples: named } } };
}

/** A JSON answer of the given schema. */
export function jsonAnswer(description: string, schema: JsonSchema, extra: JsonSchema = {}): JsonSchema {
  return { description, content: { 'application/json': { schema } }, ...extra };
}
