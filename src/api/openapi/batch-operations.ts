import { maxBatchRequests } from '../batch/batch-body.ts';
import { anyKey, errorAnswers } from './api-components.ts';
import { jsonAnswer, jsonBody, ref, type JsonSchema, type OpenApiPaths } from './json-schema.ts';

export const batchSchemas: Readonly<Record<string, JsonSchema>> = {
  BatchRequest: {
    type: 'object',
    required: ['method', 'path'],
    properties: {
      method: { type: 'string', description: 'GET, POST, PUT or DELETE, in any case.' },
      path: { type: 'string', minLength: 1, description: 'A user or installation path, with or without /1.1, e.g. /1.1/classes/_User/<objectId>.' },
      body: { type: 'object', description: 'Absent means {}.' },
      params: { type: 'object', description: 'Query parameters; anything but a string goes into the query as JSON.' },
    },
  },
  BatchAnswer: {
    oneOf: [
      { type: 'object', required: ['success'], properties: { success: {} }, additionalProperties: false },
      { type: 'object', required: ['error'], properties: { error: ref('schemas', 'Error') }, additionalProperties: false },
    ],
  },
};

/** POST /1.1/batch (docs/batch.md). */
export const batchPaths: OpenApiPaths = {
  '/1.1/batch': {
    post: {
      operationId: 'batch',
      tags: ['Batch'],
      summary: `Up to ${maxBatchRequests} user and installation requests in one`,
      description:
        'Each request runs on its own, in order, with the outer request\'s credentials: not a transaction. A request Herald does not batch (anything but the users and installations endpoints) is an error entry of its own.',
      security: anyKey,
      requestBody: jsonBody(
        {
          type: 'object',
          required: ['requests'],
          properties: { requests: { type: 'array', maxItems: maxBatchRequests, items: ref('schemas', 'BatchRequest') } },
        },
        {
          saveAll: {
            requests: [
              { method: 'POST', path: '/1.1/classes/_Installation', body: { deviceType: 'android', installationId: '5c4d3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a' } },
              { method: 'GET', path: '/1.1/classes/_Installation', params: { where: { deviceType: 'android' }, limit: 10 } },
            ],
          },
        },
      ),
      responses: {
        '200': jsonAnswer('One entry per request, in order.', { type: 'array', items: ref('schemas', 'BatchAnswer') }),
        ...errorAnswers(),
      },
    },
  },
};
