import { toFieldOp } from '../accounts/field-ops.ts';
import { checkAcl, checkFieldName } from '../accounts/field-rules.ts';
import { ErrorCode, fail } from '../core/errors.ts';
import type { FieldOp } from '../core/ports/object-store.ts';
import { isJsonObject } from '../query/json-value.ts';
import { readChannelWrite } from './installation-channels.ts';
import { InstallationField, deviceTypes, serviceFields, type DeviceType } from './installation-fields.ts';
import { checkUserField, checkUserReferences } from './user-pointers.ts';

/** A validated write to an installation (POST or PUT body). */
export interface InstallationInput {
  ops: FieldOp[];
  /** The `deviceType` the body names. */
  deviceType?: DeviceType;
  /** Device keys the body sets: the POST looks the installation up by them. */
  deviceToken?: string;
  installationId?: string;
  /** Fields the body writes, for the checks of the resulting installation. */
  touched: Set<string>;
  /** `_User` pointers the body sets, by field: an ordinary key may only point at its own user. */
  userPointers: { field: string; objectId: string }[];
}

/** Who writes, as far as the shape of a body is concerned. */
export interface InputRules {
  /**
   * Whether a `_User` pointer may sit inside an array, an object or an
   * `__op` of a field other than `user`: only for the master key.
   */
  nestedUserPointers: boolean;
}

/** Short text fields of the SDKs; they end up in gateway requests (e.g. the apns-topic header). */
const textFields: ReadonlySet<string> = new Set([
  InstallationField.vendor,
  InstallationField.apnsTopic,
  InstallationField.apnsTeamId,
  InstallationField.deviceProfile,
  InstallationField.timeZone,
]);

const maxTextLength = 256;
const maxRegistrationIdLength = 4096;
const controlOrSpace = /[\p{Cc}\s]/u;

/**
 * Validates the fields of a POST or PUT body. Every problem is a 4xx
 * `HeraldError`, raised before anything is read or written. Rules that
 * depend on the device type are checked on the result (`checkInstallation`).
 */
export function readInstallationInput(body: Record<string, unknown>, rules: InputRules): InstallationInput {
  const input: InstallationInput = { ops: [], touched: new Set(), userPointers: [] };
  for (const [field, value] of Object.entries(body)) {
    if (serviceFields.has(field)) continue;
    input.touched.add(field);
    input.ops.push(readField(field, value, input, rules));
  }
  return input;
}

function readField(field: string, value: unknown, input: InstallationInput, rules: InputRules): FieldOp {
  const path = [field];
  switch (field) {
    case InstallationField.deviceType:
      input.deviceType = readDeviceType(value);
      return { op: 'set', path, value: input.deviceType };
    case InstallationField.deviceToken:
    case InstallationField.installationId: {
      if (isRemoval(value)) return { op: 'delete', path };
      if (typeof value !== 'string') fail(ErrorCode.invalidType, `${field} must be a string`);
      input[field] = value;
      return { op: 'set', path, value };
    }
    case InstallationField.channels:
      return readChannelWrite(value);
    case InstallationField.registrationId:
      if (isRemoval(value)) return { op: 'delete', path };
      if (typeof value !== 'string') fail(ErrorCode.invalidType, 'registrationId must be a string');
      if (value.length === 0 || value.length > maxRegistrationIdLength || controlOrSpace.test(value)) {
        fail(ErrorCode.invalidDeviceToken, 'invalid registrationId: an FCM registration token has no spaces or control characters');
      }
      return { op: 'set', path, value };
    case InstallationField.badge:
      return readBadge(value);
    case InstallationField.acl:
      if (isDeleteOp(value)) return { op: 'delete', path };
      return { op: 'set', path, value: checkAcl(value) };
    case InstallationField.user:
      checkUserField(value);
      if (isRemoval(value)) return { op: 'delete', path };
      checkPointer(field, value, input);
      return { op: 'set', path, value };
    default:
      if (textFields.has(field)) return readText(field, value);
      checkFieldName(field);
      checkUserReferences(field, value, rules.nestedUserPointers);
      checkPointer(field, value, input);
      return toFieldOp(path, value);
  }
}

/** `deviceType`: `ios` or `android`; it names the platform for good, so it cannot be removed. */
export function readDeviceType(value: unknown): DeviceType {
  if (value === undefined || value === null || isDeleteOp(value)) fail(ErrorCode.missingRequiredKey, 'deviceType is required: "ios" or "android"');
  if (typeof value !== 'string') fail(ErrorCode.invalidType, 'deviceType must be a string, "ios" or "android"');
  const deviceType = deviceTypes.find((type) => type === value);
  if (deviceType === undefined) fail(ErrorCode.internal, `deviceType must be "ios" or "android", not ${JSON.stringify(value.slice(0, 40))}`);
  return deviceType;
}

function readText(field: string, value: unknown): FieldOp {
  if (isRemoval(value)) return { op: 'delete', path: [field] };
  if (typeof value !== 'string') fail(ErrorCode.invalidType, `${field} must be a string`);
  if (value.length > maxTextLength || /\p{Cc}/u.test(value)) fail(ErrorCode.internal, `${field} must be at most ${maxTextLength} characters without control characters`);
  return { op: 'set', path: [field], value };
}

/** `badge`: a whole number of at least 0, or `{__op: Increment}` (the SDKs and the push engine count it up). */
function readBadge(value: unknown): FieldOp {
  const path = [InstallationField.badge];
  if (isRemoval(value)) return { op: 'delete', path };
  if (isJsonObject(value) && '__op' in value) {
    const op = toFieldOp(path, value);
    if (op.op !== 'increment' || !Number.isInteger(op.amount)) fail(ErrorCode.invalidType, 'badge accepts a number or {__op: Increment} by a whole amount');
    return op;
  }
  if (typeof value !== 'number') fail(ErrorCode.invalidType, 'badge must be a number');
  if (!Number.isSafeInteger(value) || value < 0) fail(ErrorCode.internal, 'badge must be a whole number of at least 0');
  return { op: 'set', path, value };
}

/** A stored pointer must name its class and object; `_User` pointers are remembered for the ownership check. */
function checkPointer(field: string, value: unknown, input: InstallationInput): void {
  if (!isJsonObject(value) || value.__type !== 'Pointer') return;
  const { className, objectId } = value;
  if (typeof className !== 'string' || className === '' || typeof objectId !== 'string' || objectId === '') {
    fail(ErrorCode.invalidType, `${field} is a Pointer without a className and an objectId`);
  }
  if (className === '_User') input.userPointers.push({ field, objectId });
}

/** Null and `{__op: Delete}` remove an optional field the SDKs know. */
function isRemoval(value: unknown): boolean {
  return value === null || isDeleteOp(value);
}

function isDeleteOp(value: unknown): boolean {
  return isJsonObject(value) && value.__op === 'Delete';
}
