import { InstallationField, deviceTypes, maxChannelsPerInstallation } from '../../devices/installation-fields.ts';
import { maxChannelLength } from '../../push/requests/channel-names.ts';
import { maxRegistrationIdLength } from '../../push/requests/device-target.ts';
import { anyKey, errorAnswers, keyWithSession, queryParameters } from './api-components.ts';
import { jsonAnswer, jsonBody, ref, type JsonSchema, type OpenApiPaths } from './json-schema.ts';

const objectId = ref('parameters', 'objectId');
const session = ref('parameters', 'session');
const answerObject = ref('parameters', 'answerObject');
const removal = { anyOf: [{ type: 'null' }, ref('schemas', 'DeleteOp')] };
const shortText = (description: string): JsonSchema => ({ anyOf: [{ type: 'string', maxLength: 256, description }, removal] });

type InstallationFieldName = (typeof InstallationField)[keyof typeof InstallationField];

/**
 * Every field `readInstallationInput` treats on its own, typed as it checks
 * it: the type makes a field added to `InstallationField` a compile error
 * here until it is documented.
 */
const installationFields: Record<InstallationFieldName, JsonSchema> = {
  [InstallationField.deviceType]: { type: 'string', enum: [...deviceTypes], description: 'Missing on a new installation is 113; it cannot be removed.' },
  [InstallationField.deviceToken]: { anyOf: [{ type: 'string' }, removal], description: 'iOS: the APNs token, 64 to 200 hex digits, kept in lower case (114 otherwise).' },
  [InstallationField.installationId]: { anyOf: [{ type: 'string' }, removal], description: 'Android: the SDK\'s UUID, unique in the app.' },
  [InstallationField.channels]: {
    anyOf: [
      ref('schemas', 'Channels'),
      {
        type: 'object',
        required: ['__op', 'objects'],
        properties: { __op: { enum: ['Add', 'AddUnique', 'Remove'] }, objects: ref('schemas', 'Channels') },
      },
      removal,
    ],
    description: `Subscribed channels, at most ${maxChannelsPerInstallation}: a full array replaces them; Add/AddUnique/Remove change them.`,
  },
  [InstallationField.registrationId]: {
    anyOf: [{ type: 'string', minLength: 1, maxLength: maxRegistrationIdLength }, removal],
    description: 'Android: the push token of the device\'s gateway (FCM, or the phone maker\'s), no spaces or control characters (114).',
  },
  [InstallationField.vendor]: shortText('Android: whose gateway registrationId belongs to (`fcm`, `HMS`, …).'),
  [InstallationField.apnsTopic]: shortText('iOS: the bundle id, the apns-topic of its pushes.'),
  [InstallationField.apnsTeamId]: shortText('iOS: the team id.'),
  [InstallationField.deviceProfile]: shortText('iOS: a custom push certificate; Android: the phone maker\'s profile.'),
  [InstallationField.timeZone]: shortText('The device\'s time zone.'),
  [InstallationField.badge]: {
    anyOf: [
      { type: 'integer', minimum: 0 },
      { type: 'object', required: ['__op'], properties: { __op: { const: 'Increment' }, amount: { type: 'integer' } } },
      removal,
    ],
  },
  [InstallationField.user]: {
    anyOf: [ref('schemas', 'UserPointer'), removal],
    description: 'The device\'s owner. With the app key only the caller\'s own user (its session), and a `_User` reference anywhere else is 111.',
  },
  [InstallationField.acl]: { anyOf: [ref('schemas', 'ACL'), ref('schemas', 'DeleteOp')] },
};

export const installationSchemas: Readonly<Record<string, JsonSchema>> = {
  ChannelName: {
    type: 'string',
    minLength: 1,
    maxLength: maxChannelLength,
    description: 'Letters, digits, `_`, `-`, `=` and CJK characters (Han, kana, Hangul); 112 otherwise.',
  },
  Channels: { type: 'array', items: ref('schemas', 'ChannelName') },
  InstallationFields: {
    type: 'object',
    description:
      'Any other field is custom (name rules as for users; 105). `objectId`, `createdAt` and `updatedAt` are ignored. A whole installation is at most 64 KiB of JSON.',
    properties: installationFields,
    additionalProperties: true,
  },
  Installation: {
    type: 'object',
    properties: {
      objectId: ref('schemas', 'ObjectId'),
      deviceType: { type: 'string', enum: [...deviceTypes] },
      deviceToken: { type: 'string' },
      installationId: { type: 'string' },
      channels: { type: 'array', items: { type: 'string' } },
      createdAt: ref('schemas', 'Timestamp'),
      updatedAt: ref('schemas', 'Timestamp'),
    },
    additionalProperties: true,
  },
  InstallationList: {
    type: 'object',
    required: ['results'],
    properties: { results: { type: 'array', items: ref('schemas', 'Installation') }, count: { type: 'integer', minimum: 0 } },
  },
  InstallationSaved: {
    type: 'object',
    required: ['objectId'],
    properties: { objectId: ref('schemas', 'ObjectId'), createdAt: ref('schemas', 'Timestamp'), updatedAt: ref('schemas', 'Timestamp') },
    additionalProperties: true,
  },
};

const errors = errorAnswers();
const links = {
  GetInstallation: { operationId: 'getInstallation', parameters: { 'path.objectId': '$response.body#/objectId' } },
  UpdateInstallation: { operationId: 'updateInstallation', parameters: { 'path.objectId': '$response.body#/objectId' } },
  DeleteInstallation: { operationId: 'deleteInstallation', parameters: { 'path.objectId': '$response.body#/objectId' } },
};

/** The installation endpoints of SPEC.md and SPEC-NOTES.md under /1.1 (`/classes/_Installation` aliases are added by the document). */
export const installationPaths: OpenApiPaths = {
  '/1.1/installations': {
    post: {
      operationId: 'saveInstallation',
      tags: ['Installations'],
      summary: 'Save a device',
      description: 'New: 201 `{objectId, createdAt}`. A deviceToken (iOS) or installationId (Android) the app already has updates that installation: 200 `{objectId, updatedAt}`.',
      security: keyWithSession,
      parameters: [session, answerObject],
      requestBody: jsonBody(ref('schemas', 'InstallationFields'), {
        ios: { deviceType: 'ios', deviceToken: 'aa'.repeat(32), apnsTopic: 'com.example.app', channels: ['news'] },
        android: { deviceType: 'android', installationId: '0b9c2f4e-3d1a-4e5b-8f6c-7a8b9c0d1e2f', registrationId: 'fcm-token-1', vendor: 'fcm' },
      }),
      responses: {
        '201': jsonAnswer('A new installation.', ref('schemas', 'InstallationSaved'), {
          headers: { Location: { description: 'The installation\'s URL.', schema: { type: 'string' } } },
          links,
        }),
        '200': jsonAnswer('An installation of the same device, updated.', ref('schemas', 'InstallationSaved'), { links }),
        ...errors,
      },
    },
    get: {
      operationId: 'queryInstallations',
      tags: ['Installations'],
      summary: 'Query installations',
      description: 'Closed by default: the master key, or the app\'s class permission for `_Installation` find. `{"channels": "news"}` finds the subscribers of a channel.',
      security: keyWithSession,
      parameters: queryParameters,
      responses: { '200': jsonAnswer('The installations found.', ref('schemas', 'InstallationList')), ...errors },
    },
  },
  '/1.1/installations/{objectId}': {
    get: {
      operationId: 'getInstallation',
      tags: ['Installations'],
      summary: 'Get an installation',
      security: keyWithSession,
      parameters: [objectId, session],
      responses: { '200': jsonAnswer('The installation.', ref('schemas', 'Installation')), ...errors },
    },
    put: {
      operationId: 'updateInstallation',
      tags: ['Installations'],
      summary: 'Update an installation',
      security: keyWithSession,
      parameters: [objectId, session, answerObject],
      requestBody: jsonBody(ref('schemas', 'InstallationFields'), {
        subscribe: { channels: { __op: 'AddUnique', objects: ['sports'] } },
        badge: { badge: 0, timeZone: 'Europe/Paris' },
      }),
      responses: { '200': jsonAnswer('`{updatedAt}`, or the installation with `new=true`.', ref('schemas', 'Updated')), ...errors },
    },
    delete: {
      operationId: 'deleteInstallation',
      tags: ['Installations'],
      summary: 'Delete an installation',
      description: 'The master key, or the app\'s class permission for `_Installation` delete.',
      security: anyKey,
      parameters: [objectId, session],
      responses: { '200': jsonAnswer('Deleted.', ref('schemas', 'Empty')), ...errors },
    },
  },
};
