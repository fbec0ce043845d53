import { platformKeys } from '../../push/payload/platform-data.ts';
import { knownVendors } from '../../push/gateways/makers/android-routes.ts';
import { maxDeviceIds } from '../../push/requests/device-target.ts';
import { apnsPushTypes, maxCollapseIdBytes } from '../../push/requests/ios-data.ts';
import { latestExpiry, maxFlowControl, minFlowControl } from '../../push/requests/push-options.ts';
import { maxPushBodyBytes } from '../../push/submit/submit-push.ts';
import { errorAnswers, masterOnly, anyKey, queryParameters } from './api-components.ts';
import { jsonAnswer, jsonBody, ref, type JsonSchema, type OpenApiPaths } from './json-schema.ts';

const time = {
  anyOf: [{ type: 'string', description: 'ISO 8601 with a time zone, e.g. 2026-05-01T08:00:00.000Z.' }, ref('schemas', 'Date')],
};
const seconds = { anyOf: [{ type: 'number', minimum: 0 }, { type: 'string', pattern: '^\\d{1,15}(\\.\\d{1,9})?$' }] };
const identifier = { type: 'string', pattern: '^[A-Za-z0-9]{1,16}$' };

/** What both push endpoints read besides the target (`readPushOptions`). */
const pushOptions: Readonly<Record<string, JsonSchema>> = {
  data: ref('schemas', 'PushData'),
  push_time: { ...time, description: 'A scheduled push; less than a minute ahead sends at once.' },
  expiration_time: { ...time, description: 'Absolute expiry.' },
  expiration_interval: {
    ...seconds,
    description: `Expiry in seconds from push_time (or now); 0, and an expiry past ${new Date(latestExpiry).toISOString()}, are refused (1). With expiration_time the earlier wins.`,
  },
  notification_id: { ...identifier, description: 'Pushes sharing it are counted together.' },
  req_id: { ...identifier, description: 'A repeat within 5 minutes answers the first push (200) and sends nothing.' },
  prod: { type: 'string', enum: ['prod', 'dev'], description: 'iOS: production or sandbox. Absent: `dev` when X-SVC-Prod is present and not `1`.' },
  topic: { type: 'string', description: 'iOS: the apns-topic when it is not the installation\'s apnsTopic.' },
  apns_team_id: { type: 'string', description: 'iOS: the team whose token key signs.' },
  flow_control: {
    anyOf: [
      { type: 'number', minimum: 0, maximum: maxFlowControl },
      { type: 'string', pattern: '^\\d{1,15}(\\.\\d{1,9})?$' },
    ],
    description: `Deliveries per second; 0 or absent is none; below ${minFlowControl} is raised to ${minFlowControl}; above ${maxFlowControl} is refused (1).`,
  },
};

/** The push schemas; the vendors are those the maker registry knows when the document is built. */
export function pushSchemas(): Record<string, JsonSchema> {
  return {
    PushData: {
      type: 'object',
      description:
        'The message (SPEC.md, Push message content): `alert` is required for every platform the push can reach, and is a string unless every target is iOS. Other keys are custom. The platform keys hold content laid over the rest for that platform (docs/push-requests.md).',
      properties: {
        alert: { anyOf: [{ type: 'string' }, { type: 'object' }] },
        title: { type: 'string' },
        badge: { anyOf: [{ type: 'integer', minimum: 0 }, { const: 'Increment' }] },
        sound: { anyOf: [{ type: 'string' }, { type: 'object', properties: { name: { type: 'string' }, critical: { type: 'boolean' }, volume: { type: 'number', minimum: 0, maximum: 1 } } }] },
        category: { type: 'string' },
        'thread-id': { type: 'string' },
        'content-available': { type: 'number' },
        'mutable-content': { type: 'number' },
        'collapse-id': { type: 'string', description: `At most ${maxCollapseIdBytes} bytes.` },
        'apns-priority': { enum: [10, 5] },
        'apns-push-type': { enum: [...apnsPushTypes] },
        'target-content-id': { type: 'string' },
        silent: { type: 'boolean', description: 'Android: a pass-through message.' },
        action: { type: 'string' },
        aps: { type: 'object', description: 'The iOS `aps` form instead of alert, badge and sound at the top.' },
        ...Object.fromEntries([...platformKeys].map((key) => [key, { type: 'object', description: `Content for ${key} only.` }])),
      },
      additionalProperties: true,
    },
    QueryPush: {
      type: 'object',
      required: ['data'],
      properties: {
        ...pushOptions,
        where: {
          anyOf: [{ type: 'object' }, { type: 'string' }],
          description: 'A query over installations (or a JSON string of one); without it, every installation updated in the last 90 days.',
        },
        channels: { ...ref('schemas', 'Channels'), description: 'Added to where as `{"channels": {"$in": [...]}}`.' },
        _notificationChannel: { type: 'string', description: 'Android 8+: the notification channel.' },
        cql: { not: {}, description: 'Not supported (1): target with where or channels.' },
      },
    },
    DevicePush: {
      type: 'object',
      required: ['device_type', 'device_ids', 'data'],
      properties: {
        ...pushOptions,
        device_type: { type: 'string', enum: ['ios', 'android'] },
        device_ids: {
          type: 'array',
          minItems: 1,
          maxItems: maxDeviceIds,
          items: { type: 'string' },
          description: 'iOS deviceTokens, Android installationIds, or with vendor the registrationIds of that vendor\'s devices (114 for a malformed one).',
        },
        vendor: { type: 'string', enum: [...knownVendors()], description: 'Android: the ids are registrationIds of this vendor\'s devices.' },
        device_profile: { type: 'string', description: 'iOS: a custom push certificate; Android with vendor: the maker profile.' },
        channel: { type: 'string', description: 'Android: the notification channel.' },
      },
    },
    PushAccepted: {
      type: 'object',
      required: ['objectId', 'createdAt'],
      properties: { objectId: ref('schemas', 'ObjectId'), createdAt: ref('schemas', 'Timestamp') },
    },
    PushRecord: {
      type: 'object',
      description: 'A push record (SPEC-NOTES.md, Push records); counters are added as the push is sent.',
      properties: {
        objectId: ref('schemas', 'ObjectId'),
        notificationId: { type: 'string' },
        status: { enum: ['scheduled', 'in-queue', 'done', 'Error'] },
        errorMessage: { type: 'string' },
        data: { type: 'object' },
        where: { type: ['object', 'null'] },
        prod: { enum: ['prod', 'dev'] },
        push_time: { type: ['string', 'null'] },
        expiration_time: { type: ['string', 'null'] },
        devices: { type: 'integer' },
        successes: { type: 'integer' },
        errors: { type: 'integer' },
        invalidTokens: { type: 'integer' },
        iosSuccesses: { type: 'integer' },
        androidSuccesses: { type: 'integer' },
        errorReasons: { type: 'object', additionalProperties: { type: 'integer' } },
        createdAt: ref('schemas', 'Timestamp'),
        updatedAt: ref('schemas', 'Timestamp'),
      },
      additionalProperties: true,
    },
    ScheduledPush: {
      type: 'object',
      required: ['id', 'expire_time', 'push_msg', 'createdAt'],
      properties: {
        id: { type: 'integer', description: 'The id to cancel it with.' },
        expire_time: { type: 'integer', description: 'The push time, Unix ms.' },
        push_msg: { type: 'object' },
        createdAt: ref('schemas', 'Timestamp'),
      },
    },
  };
}

const errors = errorAnswers();
const prodHeader = {
  name: 'X-SVC-Prod',
  in: 'header',
  description: 'iOS: anything but `1` sends to the sandbox when the body has no `prod`.',
  schema: { type: 'string' },
};
const accepted = {
  '201': jsonAnswer('Accepted: the push record\'s id.', ref('schemas', 'PushAccepted'), {
    links: { GetPushRecord: { operationId: 'getPushRecord', parameters: { 'path.objectId': '$response.body#/objectId' } } },
  }),
  '200': jsonAnswer('A repeated req_id: the first push\'s record.', ref('schemas', 'PushAccepted')),
};
const notificationId = { name: 'notificationId', in: 'path', required: true, schema: ref('schemas', 'ObjectId') };
const clientPush = 'The master key, unless the app allows clients to push (then the app key, held to the query rules of docs/push-requests.md).';

/** The push endpoints of SPEC.md under /1.1. */
export const pushPaths: OpenApiPaths = {
  '/1.1/push': {
    post: {
      operationId: 'sendPush',
      tags: ['Push'],
      summary: 'Send a push to the installations a query finds',
      description: `${clientPush} The body is at most ${maxPushBodyBytes} bytes.`,
      security: anyKey,
      parameters: [prodHeader],
      requestBody: jsonBody(ref('schemas', 'QueryPush'), {
        channel: { channels: ['news'], data: { alert: 'Hello', badge: 'Increment' } },
        where: { where: { deviceType: 'ios' }, data: { alert: { title: 'Hi', body: 'Hello' } }, expiration_interval: 3600, req_id: 'abc123' },
      }),
      responses: { ...accepted, ...errors },
    },
  },
  '/1.1/push/devices': {
    post: {
      operationId: 'sendPushToDevices',
      tags: ['Push'],
      summary: `Send a push to at most ${maxDeviceIds} listed devices`,
      description: clientPush,
      security: anyKey,
      parameters: [prodHeader],
      requestBody: jsonBody(ref('schemas', 'DevicePush'), {
        ios: { device_type: 'ios', device_ids: ['ab'.repeat(32)], data: { alert: 'Hello' }, prod: 'dev' },
        android: { device_type: 'android', device_ids: ['0b9c2f4e-3d1a-4e5b-8f6c-7a8b9c0d1e2f'], data: { alert: 'Hello', title: 'News' }, channel: 'news' },
      }),
      responses: { ...accepted, ...errors },
    },
  },
  '/1.1/notifications': {
    get: {
      operationId: 'listNotifications',
      tags: ['Push'],
      summary: 'Push records, newest first',
      security: masterOnly,
      parameters: queryParameters,
      responses: {
        '200': jsonAnswer('The records.', {
          type: 'object',
          required: ['results'],
          properties: { results: { type: 'array', items: ref('schemas', 'PushRecord') }, count: { type: 'integer', minimum: 0 } },
        }),
        ...errors,
      },
    },
  },
  '/1.1/notifications/{notificationId}': {
    get: {
      operationId: 'getNotification',
      tags: ['Push'],
      summary: 'The record of a notification_id, counters of every push sharing it summed',
      security: masterOnly,
      parameters: [notificationId],
      responses: { '200': jsonAnswer('The record.', ref('schemas', 'PushRecord')), ...errors },
    },
    delete: {
      operationId: 'deleteNotification',
      tags: ['Push'],
      summary: 'Delete the records of a notification_id, cancelling what is still queued',
      security: masterOnly,
      parameters: [notificationId],
      responses: { '200': jsonAnswer('Deleted.', ref('schemas', 'Empty')), ...errors },
    },
  },
  '/1.1/tables/Notifications/{objectId}': {
    get: {
      operationId: 'getPushRecord',
      tags: ['Push'],
      summary: 'The record of one push, by the objectId its sending answered',
      security: anyKey,
      parameters: [ref('parameters', 'objectId')],
      responses: { '200': jsonAnswer('The record.', ref('schemas', 'PushRecord')), ...errors },
    },
  },
  '/1.1/scheduledPushMessages': {
    get: {
      operationId: 'listScheduledPushes',
      tags: ['Push'],
      summary: 'Pushes waiting for their push_time, soonest first',
      security: masterOnly,
      responses: {
        '200': jsonAnswer('The waiting pushes.', {
          type: 'object',
          required: ['results'],
          properties: { results: { type: 'array', items: ref('schemas', 'ScheduledPush') } },
        }),
        ...errors,
      },
    },
  },
  '/1.1/scheduledPushMessages/{id}': {
    delete: {
      operationId: 'cancelScheduledPush',
      tags: ['Push'],
      summary: 'Cancel a waiting push (its record goes too)',
      security: masterOnly,
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 }, description: 'The entry\'s outer `id`, not push_msg.id.' }],
      responses: { '200': jsonAnswer('Cancelled.', ref('schemas', 'Empty')), ...errors },
    },
  },
};
