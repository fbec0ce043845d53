import { loggedOutcomes } from '../../core/ports/delivery-log-store.ts';
import { defaultDeliveryLimit, maxDeliveryLimit } from '../../push/delivery-log/delivery-filter.ts';
import { explainRules } from '../../push/delivery-log/explain-delivery.ts';
import { gatewayNames } from '../../push/gateways/delivery.ts';
import { deliveryReasons } from '../../push/gateways/delivery-reasons.ts';
import { deliveryEventOutcomes } from '../../push/outcomes/delivery-event.ts';
import { errorAnswers, masterOnly } from './api-components.ts';
import { jsonAnswer, ref, type JsonSchema, type OpenApiPaths } from './json-schema.ts';

const errors = errorAnswers();
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

const listingParameters: readonly JsonSchema[] = [
  {
    name: 'outcome',
    in: 'query',
    description: `Only entries of this outcome: ${loggedOutcomes.join(', ')}, or several separated by commas.`,
    schema: { type: 'string', pattern: `^(${loggedOutcomes.join('|')})(,(${loggedOutcomes.join('|')}))*$` },
  },
  { name: 'reason', in: 'query', description: 'Only entries with this documented reason (docs/push-engine.md, Reasons).', schema: ref('schemas', 'DeliveryReason') },
  { name: 'limit', in: 'query', description: 'Entries a page holds at most.', schema: { type: 'integer', minimum: 1, maximum: maxDeliveryLimit, default: defaultDeliveryLimit } },
  { name: 'cursor', in: 'query', description: "The page's start: the nextCursor of the page before, unchanged.", schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,1024}$' } },
];

/** The delivery log's schemas: an entry (the delivery event's JSON form), a page of them, and an explanation. */
export const deliveryLogSchemas: Readonly<Record<string, JsonSchema>> = {
  DeliveryReason: { type: 'string', enum: [...deliveryReasons], description: 'A reason of the documented set (docs/push-engine.md, Reasons).' },
  DeliveryEntry: {
    type: 'object',
    description: "One targeted device's final outcome: the delivery event, version 1 (docs/delivery-log.md).",
    required: ['version', 'appId', 'pushId', 'sliceKey', 'installation', 'tokenSuffix', 'platform', 'gateway', 'outcome', 'reason', 'unregistered', 'status', 'messageId', 'attempts', 'latencyMs', 'at'],
    properties: {
      version: { type: 'integer', minimum: 1 },
      appId: { type: 'string' },
      pushId: ref('schemas', 'ObjectId'),
      sliceKey: { type: 'string' },
      installation: nullable(ref('schemas', 'ObjectId')),
      tokenSuffix: nullable({ type: 'string', maxLength: 8 }),
      platform: { enum: ['ios', 'android'] },
      gateway: { enum: [...gatewayNames] },
      outcome: { enum: [...deliveryEventOutcomes] },
      reason: nullable(ref('schemas', 'DeliveryReason')),
      unregistered: { type: 'boolean' },
      status: nullable({ type: 'integer', minimum: 100, maximum: 599 }),
      messageId: nullable({ type: 'string' }),
      attempts: { type: 'integer', minimum: 0 },
      latencyMs: { type: 'number', minimum: 0 },
      at: { type: 'string', format: 'date-time' },
    },
  },
  DeliveryPage: {
    type: 'object',
    required: ['results', 'nextCursor'],
    properties: {
      results: { type: 'array', items: ref('schemas', 'DeliveryEntry') },
      nextCursor: { ...nullable({ type: 'string' }), description: 'The next page\'s cursor; null after the last page. A page may hold fewer entries than limit and still have one.' },
    },
  },
  Explanation: {
    type: 'object',
    required: ['installation', 'found', 'pushes'],
    properties: {
      installation: ref('schemas', 'ObjectId'),
      found: { type: 'boolean', description: 'Whether an installation has this objectId now.' },
      pushes: {
        type: 'array',
        items: {
          type: 'object',
          required: ['push', 'notificationId', 'status', 'targeted', 'rules', 'deliveries'],
          properties: {
            push: ref('schemas', 'ObjectId'),
            notificationId: nullable({ type: 'string' }),
            status: nullable({ type: 'string' }),
            targeted: { ...nullable({ type: 'boolean' }), description: 'Whether where, platform and active pass; null when not known.' },
            rules: {
              type: 'array',
              items: {
                type: 'object',
                required: ['rule', 'pass', 'why'],
                properties: {
                  rule: { enum: [...explainRules] },
                  pass: nullable({ type: 'boolean' }),
                  why: { type: 'string' },
                  reason: { type: 'string', description: 'The reason the sender records for a device that fails the rule.' },
                },
              },
            },
            deliveries: { type: 'array', items: ref('schemas', 'DeliveryEntry') },
          },
        },
      },
    },
  },
};

const idParameter = {
  name: 'notificationId',
  in: 'path',
  required: true,
  description: "The push's notification_id, or the objectId its sending answered.",
  schema: ref('schemas', 'ObjectId'),
};

/** The delivery log's endpoints (docs/delivery-log.md). */
export const deliveryLogPaths: OpenApiPaths = {
  '/1.1/notifications/{notificationId}/deliveries': {
    get: {
      operationId: 'listPushDeliveries',
      tags: ['Push'],
      summary: "Each targeted device's final outcome, for the pushes of a notification_id",
      description: 'In a stable order (push, slice, outcome, entry), a page at a time: follow nextCursor until it is null.',
      security: masterOnly,
      parameters: [idParameter, ...listingParameters],
      responses: { '200': jsonAnswer('A page of entries.', ref('schemas', 'DeliveryPage')), ...errors },
    },
  },
  '/1.1/notifications/{notificationId}/explain': {
    get: {
      operationId: 'explainDelivery',
      tags: ['Push'],
      summary: "Why one installation did or did not get a push: each rule of its audience and sending, and the log's entries",
      security: masterOnly,
      parameters: [idParameter, { name: 'installation', in: 'query', required: true, description: "The installation's objectId.", schema: ref('schemas', 'ObjectId') }],
      responses: { '200': jsonAnswer('The rules, for each push of the id.', ref('schemas', 'Explanation')), ...errors },
    },
  },
  '/1.1/installations/{objectId}/deliveries': {
    get: {
      operationId: 'listInstallationDeliveries',
      tags: ['Installations'],
      summary: "An installation's entries of every push within the log's retention, newest first",
      description: 'Also of an installation removed since (an unregistered token removes it).',
      security: masterOnly,
      parameters: [ref('parameters', 'objectId'), ...listingParameters],
      responses: { '200': jsonAnswer('A page of entries.', ref('schemas', 'DeliveryPage')), ...errors },
    },
  },
};
