import { baseComponents } from './api-components.ts';
import { batchPaths, batchSchemas } from './batch-operations.ts';
import { deliveryLogPaths, deliveryLogSchemas } from './delivery-log-operations.ts';
import { installationPaths, installationSchemas } from './installation-operations.ts';
import type { JsonSchema, OpenApiOperation, OpenApiPath, OpenApiPaths } from './json-schema.ts';
import { openPaths, openSchemas } from './page-operations.ts';
import { pushPaths, pushSchemas } from './push-operations.ts';
import { userPaths, userSchemas } from './user-operations.ts';

/**
 * The same operations under the path the hosted service's SDKs use
 * (`/1.1/classes/_User`, `/1.1/classes/_Installation`): one implementation
 * serves both, so the document repeats them with their own operation ids.
 */
function aliases(paths: OpenApiPaths, from: string, to: string, suffix: string): OpenApiPaths {
  const aliased: OpenApiPaths = {};
  for (const [path, item] of Object.entries(paths)) {
    const rest = path.slice(from.length);
    if (!path.startsWith(from) || !(rest === '' || rest === '/{objectId}')) continue;
    const copy: OpenApiPath = {};
    for (const [method, operation] of Object.entries(item) as [keyof OpenApiPath, OpenApiOperation][]) {
      copy[method] = { ...operation, operationId: `${operation.operationId}${suffix}`, summary: `${operation.summary} (SDK path)` };
    }
    aliased[`${to}${rest}`] = copy;
  }
  return aliased;
}

/**
 * Herald's REST contract as an OpenAPI 3.1 document: every path it serves,
 * with the parameters and bodies the validation code accepts, the answers,
 * and the `{code, error}` errors. Served at `GET /1.1/openapi.json` and
 * shipped as docs/openapi.json (`npm run openapi` writes it; a test keeps
 * the two equal and both true to the routes: test/api/openapi-*.test.ts).
 */
export function buildOpenApiDocument(): JsonSchema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Herald',
      version: '1.1',
      summary: 'Accounts and push notifications: the /1.1 REST interface.',
      description:
        'Every /1.1 request names its app with X-SVC-Id and authenticates with X-SVC-Key (the app key, or `<master key>,master`) or X-SVC-Sign; a user\'s own requests add X-SVC-Session. Errors are always `{"code": <number>, "error": "<message>"}`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    tags: [
      { name: 'Users', description: 'Accounts, sessions, third-party login (docs/accounts.md).' },
      { name: 'Installations', description: 'Devices and their channels (docs/installations.md).' },
      { name: 'Push', description: 'Sending pushes, push records, scheduled pushes (docs/push-requests.md).' },
      { name: 'Batch', description: 'Several user and installation requests in one (docs/batch.md).' },
      { name: 'Pages', description: 'The pages opened from account emails.' },
      { name: 'Operations', description: 'Health, readiness, metrics and this document.' },
    ],
    paths: {
      ...userPaths,
      ...aliases(userPaths, '/1.1/users', '/1.1/classes/_User', 'ViaClass'),
      ...installationPaths,
      ...aliases(installationPaths, '/1.1/installations', '/1.1/classes/_Installation', 'ViaClass'),
      ...pushPaths,
      ...deliveryLogPaths,
      ...batchPaths,
      ...openPaths,
    },
    components: {
      ...baseComponents,
      schemas: { ...baseComponents.schemas, ...userSchemas, ...installationSchemas, ...pushSchemas(), ...deliveryLogSchemas, ...batchSchemas, ...openSchemas },
    },
  };
}
