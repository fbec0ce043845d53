import { errorAnswers } from './api-components.ts';
import { jsonAnswer, ref, type JsonSchema, type OpenApiPaths } from './json-schema.ts';

const html = (description: string): JsonSchema => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const token = { name: 'token', in: 'path', required: true, schema: { type: 'string' }, description: 'The token of the emailed link.' };
const { '413': tooLarge, '415': unreadable } = errorAnswers();

/**
 * The pages people open from account emails, the contract itself, and the
 * operations endpoints: none takes an app key.
 */
export const openPaths: OpenApiPaths = {
  '/1.1/verifyEmail/{token}': {
    get: {
      operationId: 'verifyEmailPage',
      tags: ['Pages'],
      summary: 'The page a verification link opens',
      description: 'An HTML page, not JSON: each link works once, for a week.',
      security: [],
      parameters: [token],
      responses: { '200': html('The email is verified.'), '400': html('The link is unknown, used or expired.') },
    },
  },
  '/1.1/resetPassword/{token}': {
    get: {
      operationId: 'resetPasswordPage',
      tags: ['Pages'],
      summary: 'The new-password form a reset link opens',
      security: [],
      parameters: [token],
      responses: { '200': html('The form.'), '400': html('The link is unknown, used or expired.') },
    },
    post: {
      operationId: 'resetPassword',
      tags: ['Pages'],
      summary: 'The form\'s answer: the new password, twice',
      security: [],
      parameters: [token],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', properties: { password: { type: 'string' }, confirm: { type: 'string' } } },
          },
        },
      },
      responses: {
        '200': html('The password is changed.'),
        '400': html('The form again with what to fix, or the page of a broken link.'),
        '413': tooLarge ?? {},
        '415': unreadable ?? {},
      },
    },
  },
  '/1.1/openapi.json': {
    get: {
      operationId: 'openApiDocument',
      tags: ['Operations'],
      summary: 'This document',
      security: [],
      responses: { '200': jsonAnswer('The OpenAPI 3.1 document of every endpoint Herald serves.', { type: 'object', required: ['openapi', 'paths'] }) },
    },
  },
  '/healthz': {
    get: {
      operationId: 'liveness',
      tags: ['Operations'],
      summary: 'Whether the process lives: 503 when a role failed for good (restart it)',
      description: 'On the API port unless HERALD_INTERNAL_PORT moves it to the internal port.',
      security: [],
      responses: { '200': jsonAnswer('Alive.', ref('schemas', 'Liveness')), '503': jsonAnswer('A role failed.', ref('schemas', 'Liveness')) },
    },
  },
  '/readyz': {
    get: {
      operationId: 'readiness',
      tags: ['Operations'],
      summary: 'Whether the backends answer and every role runs',
      description: 'On the API port unless HERALD_INTERNAL_PORT moves it to the internal port.',
      security: [],
      responses: { '200': jsonAnswer('Ready.', ref('schemas', 'Readiness')), '503': jsonAnswer('Not ready: see checks and roles.', ref('schemas', 'Readiness')) },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      tags: ['Operations'],
      summary: 'Prometheus metrics',
      description: 'On the API port unless HERALD_INTERNAL_PORT moves it to the internal port (which keeps it off a public port).',
      security: [],
      responses: { '200': { description: 'The Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  },
};

export const openSchemas: Readonly<Record<string, JsonSchema>> = {
  Liveness: {
    type: 'object',
    required: ['status', 'roles'],
    properties: { status: { enum: ['ok', 'failed'] }, roles: { type: 'object' } },
  },
  Readiness: {
    type: 'object',
    required: ['status', 'checks', 'roles'],
    properties: { status: { enum: ['ok', 'unavailable'] }, checks: { type: 'object' }, roles: { type: 'object' } },
  },
};
