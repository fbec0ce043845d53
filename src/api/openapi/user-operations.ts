import { emailPattern, mobilePattern } from '../../accounts/field-rules.ts';
import { UserField } from '../../accounts/user-fields.ts';
import { anyKey, errorAnswers, keyWithSession, queryParameters } from './api-components.ts';
import { jsonAnswer, jsonBody, ref, type JsonSchema, type OpenApiPaths } from './json-schema.ts';

const session = ref('parameters', 'session');
const objectId = ref('parameters', 'objectId');
const answerObject = ref('parameters', 'answerObject');

/**
 * `readUsername`'s rule as a pattern both ECMAScript and Python read: some
 * character that is not white space, and none of C0 and C1 controls, line and
 * paragraph separators, bidirectional embeddings, overrides and isolates.
 */
export const usernamePattern = '^(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]+$';

/**
 * `checkFieldName`'s rule for a custom field, beside the fields the service
 * sets (105) and `authData.<platform>` (an unlink): 1 to 128 characters, not
 * starting with `_`, without `$` or `.`.
 */
export const userFieldNamePattern = '^(?:authData\\.[A-Za-z0-9_]{1,64}|(?!_)(?!(?:objectId|createdAt|updatedAt|sessionToken)$)[^$.]{1,128})$';

/** The fields of `_User` a client may write: every `UserField` but the service's own (`_…`, the session token), and the password. */
type WritableUserField = Exclude<(typeof UserField)[keyof typeof UserField], `_${string}` | typeof UserField.sessionToken> | 'password';

/**
 * The fields `readUserInput` treats on its own, typed as it checks them; any
 * other field is custom. The type makes a field added to `UserField` a
 * compile error here until it is documented.
 */
const writableUserFields: Record<WritableUserField, JsonSchema> = {
  [UserField.username]: {
    type: 'string',
    minLength: 1,
    maxLength: 256,
    pattern: usernamePattern,
    description: 'Unique (202); not blank (217), no control characters, line breaks or text-direction marks (1).',
  },
  password: { type: 'string', minLength: 1, maxLength: 1024, writeOnly: true, description: 'Never answered.' },
  [UserField.email]: {
    anyOf: [{ type: 'string', maxLength: 254, pattern: emailPattern.source }, ref('schemas', 'DeleteOp')],
    description: 'Unique (203); malformed is 125. `{"__op": "Delete"}` removes it.',
  },
  [UserField.mobilePhoneNumber]: {
    anyOf: [{ type: 'string', pattern: mobilePattern.source }, ref('schemas', 'DeleteOp')],
    description: 'Unique (214); malformed is 127.',
  },
  [UserField.authData]: ref('schemas', 'AuthData'),
  [UserField.acl]: ref('schemas', 'ACL'),
  [UserField.emailVerified]: { type: 'boolean', description: 'Master key only.' },
  [UserField.mobilePhoneVerified]: { type: 'boolean', description: 'Master key only.' },
};

const customFields =
  'Any other field is custom: its name 1 to 128 characters, not starting with `_`, without `$` or `.` (105); its value any JSON, or an operation (`{"__op": "Increment" | "Add" | "AddUnique" | "Remove" | "Delete", ...}`). `"authData.<platform>": {"__op": "Delete"}` unlinks a platform.';

export const userSchemas: Readonly<Record<string, JsonSchema>> = {
  AuthData: {
    type: 'object',
    description: 'A platform account per key (SPEC.md, Third-party authorisation data), e.g. `{"anonymous": {"id": "<uuid>"}}`.',
    additionalProperties: { type: 'object' },
  },
  UserFields: {
    type: 'object',
    description: customFields,
    properties: writableUserFields,
    propertyNames: { pattern: userFieldNamePattern },
    additionalProperties: true,
  },
  User: {
    type: 'object',
    description: 'A user as the caller may see it: never the password; the session token only to the user; authData and protected fields (email, mobile number) only to the user or the master key.',
    properties: {
      objectId: ref('schemas', 'ObjectId'),
      username: { type: 'string' },
      email: { type: 'string' },
      emailVerified: { type: ['boolean', 'null'] },
      mobilePhoneNumber: { type: 'string' },
      mobilePhoneVerified: { type: 'boolean' },
      authData: { type: 'object' },
      sessionToken: { type: 'string' },
      ACL: ref('schemas', 'ACL'),
      createdAt: ref('schemas', 'Timestamp'),
      updatedAt: ref('schemas', 'Timestamp'),
    },
    additionalProperties: true,
  },
  UserList: {
    type: 'object',
    required: ['results'],
    properties: { results: { type: 'array', items: ref('schemas', 'User') }, count: { type: 'integer', minimum: 0 } },
  },
  SignedUp: {
    type: 'object',
    required: ['objectId', 'createdAt', 'sessionToken'],
    properties: { objectId: ref('schemas', 'ObjectId'), createdAt: ref('schemas', 'Timestamp'), sessionToken: { type: 'string' }, username: { type: 'string' } },
    additionalProperties: true,
  },
};

const user = ref('schemas', 'User');
const errors = errorAnswers();
const loggedIn = jsonAnswer('The user, with its session token.', user);

/** Links from an answer that names a user to the operations on it. */
function userLinks(idPointer: string): JsonSchema {
  const id = { 'path.objectId': `$response.body#${idPointer}` };
  const withSession = { ...id, 'header.X-SVC-Session': '$response.body#/sessionToken' };
  return {
    GetUser: { operationId: 'getUser', parameters: id },
    UpdateUser: { operationId: 'updateUser', parameters: withSession },
    RefreshSessionToken: { operationId: 'refreshSessionToken', parameters: withSession },
    UpdatePassword: { operationId: 'updatePassword', parameters: withSession },
    CurrentUser: { operationId: 'currentUser', parameters: { 'header.X-SVC-Session': '$response.body#/sessionToken' } },
    DeleteUser: { operationId: 'deleteUser', parameters: withSession },
  };
}

/** Email requests: `{email}`; 204 missing, 125 malformed, 205 unknown. */
const emailRequest = jsonBody(
  { type: 'object', required: ['email'], properties: { email: { type: 'string', pattern: emailPattern.source } } },
  { email: { email: 'ann@example.com' } },
);

/** The user endpoints of SPEC.md under /1.1 (`/classes/_User` aliases are added by the document). */
export const userPaths: OpenApiPaths = {
  '/1.1/users': {
    post: {
      operationId: 'signUp',
      tags: ['Users'],
      summary: 'Register with username and password, or log in or register with authData',
      description:
        'With `username` and `password` (and any other fields): a new user, 201. With `authData` alone: the user linked to one of its platform accounts logs in (200), or a new user with a random username is created (201), or with `failOnNotExist=true` 211.',
      security: anyKey,
      parameters: [
        { name: 'failOnNotExist', in: 'query', description: 'With authData: answer 211 instead of creating a user.', schema: { type: 'boolean' } },
      ],
      requestBody: jsonBody(
        { allOf: [ref('schemas', 'UserFields')], anyOf: [{ required: ['username', 'password'] }, { required: ['authData'] }] },
        {
          password: { username: 'ann', password: 'correct horse battery', email: 'ann@example.com' },
          anonymous: { authData: { anonymous: { id: '2b4f1c9e-8f7a-4d3b-9c1e-5a6b7c8d9e0f' } } },
        },
      ),
      responses: {
        '201': jsonAnswer('A new user.', ref('schemas', 'SignedUp'), {
          headers: { Location: { description: 'The new user\'s URL.', schema: { type: 'string' } } },
          links: userLinks('/objectId'),
        }),
        '200': jsonAnswer('authData of an existing user: that user, logged in.', user, { links: userLinks('/objectId') }),
        ...errors,
      },
    },
    get: {
      operationId: 'queryUsers',
      tags: ['Users'],
      summary: 'Query users',
      description: 'Closed by default: the master key, or the app\'s class permission for `_User` find.',
      security: keyWithSession,
      parameters: queryParameters,
      responses: { '200': jsonAnswer('The users found.', ref('schemas', 'UserList')), ...errors },
    },
  },
  '/1.1/users/me': {
    get: {
      operationId: 'currentUser',
      tags: ['Users'],
      summary: 'The user of a session token',
      security: keyWithSession,
      parameters: [session],
      responses: { '200': loggedIn, ...errors },
    },
  },
  '/1.1/users/{objectId}': {
    get: {
      operationId: 'getUser',
      tags: ['Users'],
      summary: 'Get a user',
      description: 'An unknown user is 400 with code 211 (SPEC.md).',
      security: keyWithSession,
      parameters: [objectId, session],
      responses: { '200': jsonAnswer('The user, as the caller may see it.', user), ...errors },
    },
    put: {
      operationId: 'updateUser',
      tags: ['Users'],
      summary: 'Update a user; link or unlink authData',
      description: 'The user\'s own session (or the master key). Fields not given stay.',
      security: keyWithSession,
      parameters: [objectId, session, answerObject],
      requestBody: jsonBody(ref('schemas', 'UserFields'), {
        fields: { nickname: 'Ann', email: 'ann@example.org' },
        unlink: { 'authData.anonymous': { __op: 'Delete' } },
      }),
      responses: { '200': jsonAnswer('`{updatedAt}` (and a new sessionToken after a password change that ends sessions).', ref('schemas', 'Updated')), ...errors },
    },
    delete: {
      operationId: 'deleteUser',
      tags: ['Users'],
      summary: 'Delete a user',
      security: keyWithSession,
      parameters: [objectId, session],
      responses: { '200': jsonAnswer('Deleted.', ref('schemas', 'Empty')), ...errors },
    },
  },
  '/1.1/users/{objectId}/refreshSessionToken': {
    put: {
      operationId: 'refreshSessionToken',
      tags: ['Users'],
      summary: 'A new session token; the old one stops working',
      security: keyWithSession,
      parameters: [objectId, session],
      responses: { '200': loggedIn, ...errors },
    },
  },
  '/1.1/users/{objectId}/updatePassword': {
    put: {
      operationId: 'updatePassword',
      tags: ['Users'],
      summary: 'Change the password with the old one',
      description: 'A wrong old password is 210 and counts towards the account lock; a user without a password sets one without `old_password`.',
      security: keyWithSession,
      parameters: [objectId, session],
      requestBody: jsonBody(
        {
          type: 'object',
          required: ['new_password'],
          properties: { old_password: { type: 'string' }, new_password: { type: 'string', minLength: 1, maxLength: 1024 } },
        },
        { change: { old_password: 'correct horse battery', new_password: 'battery staple horse' } },
      ),
      responses: {
        '200': jsonAnswer(
          'Changed.',
          {
            type: 'object',
            required: ['updatedAt', 'objectId', 'sessionToken'],
            properties: { updatedAt: ref('schemas', 'Timestamp'), objectId: ref('schemas', 'ObjectId'), sessionToken: { type: 'string' } },
          },
        ),
        ...errors,
      },
    },
  },
  '/1.1/login': {
    post: {
      operationId: 'logIn',
      tags: ['Users'],
      summary: 'Log in',
      description:
        'Exactly one of `username`, `email` or `mobilePhoneNumber`, with `password`; or `mobilePhoneNumber` with `smsCode`. More than 6 failures in 15 minutes lock the account (219).',
      security: anyKey,
      requestBody: jsonBody(
        {
          type: 'object',
          properties: {
            username: { type: 'string' },
            email: { type: 'string' },
            mobilePhoneNumber: { type: 'string' },
            password: { type: 'string' },
            smsCode: { type: 'string', pattern: '^[0-9]{6}$' },
          },
        },
        { username: { username: 'ann', password: 'correct horse battery' }, smsCode: { mobilePhoneNumber: '+15550100', smsCode: '123456' } },
      ),
      responses: { '200': jsonAnswer('The user, with its session token.', user, { links: userLinks('/objectId') }), ...errors },
    },
  },
  '/1.1/usersByMobilePhone': {
    post: {
      operationId: 'signUpOrLogInByPhone',
      tags: ['Users'],
      summary: 'Sign up or log in with an SMS code',
      description: 'Logs in the user holding the number (200) or creates one (201; username defaults to the number, `mobilePhoneVerified: true`).',
      security: anyKey,
      requestBody: jsonBody(
        {
          allOf: [ref('schemas', 'UserFields')],
          type: 'object',
          required: ['mobilePhoneNumber', 'smsCode'],
          properties: { mobilePhoneNumber: { type: 'string', pattern: mobilePattern.source }, smsCode: { type: 'string', pattern: '^[0-9]{6}$' } },
        },
        { code: { mobilePhoneNumber: '+15550100', smsCode: '123456' } },
      ),
      responses: { '200': loggedIn, '201': jsonAnswer('A new user, logged in.', user), ...errors },
    },
  },
  '/1.1/requestSmsCode': {
    post: {
      operationId: 'requestSmsCode',
      tags: ['Users'],
      summary: 'Text a 6-digit code to a number',
      description: 'Valid 10 minutes; at most one per number per minute and the app\'s hourly and daily caps (429).',
      security: anyKey,
      requestBody: jsonBody(
        { type: 'object', required: ['mobilePhoneNumber'], properties: { mobilePhoneNumber: { type: 'string', pattern: mobilePattern.source } } },
        { number: { mobilePhoneNumber: '+15550100' } },
      ),
      responses: { '200': jsonAnswer('Sent.', ref('schemas', 'Empty')), ...errors },
    },
  },
  '/1.1/requestPasswordReset': {
    post: {
      operationId: 'requestPasswordReset',
      tags: ['Users'],
      summary: 'Email a single-use password reset link',
      security: anyKey,
      requestBody: emailRequest,
      responses: { '200': jsonAnswer('Sent.', ref('schemas', 'Empty')), ...errors },
    },
  },
  '/1.1/requestEmailVerify': {
    post: {
      operationId: 'requestEmailVerify',
      tags: ['Users'],
      summary: 'Email a new verification link',
      security: anyKey,
      requestBody: emailRequest,
      responses: { '200': jsonAnswer('Sent.', ref('schemas', 'Empty')), ...errors },
    },
  },
};
