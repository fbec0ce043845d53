import { ErrorCode, fail } from '../core/errors.ts';
import type { FieldOp } from '../core/ports/object-store.ts';
import { isChannelName, readChannels } from '../push/requests/channel-names.ts';
import { InstallationField, maxChannelsPerInstallation } from './installation-fields.ts';

const path = [InstallationField.channels];

/**
 * A write to `channels`: a full array (replaces, duplicates dropped), or
 * `{__op: Add | AddUnique | Remove, objects}`, or `{__op: Delete}` / null.
 * Names follow the push rules (`isChannelName`): 112 for a bad one, 111 for
 * a value of another shape. Add never subscribes a device twice.
 */
export function readChannelWrite(value: unknown): FieldOp {
  if (value === null) return { op: 'delete', path };
  if (Array.isArray(value)) {
    const channels = readChannels(value) ?? [];
    if (channels.length > maxChannelsPerInstallation) tooMany();
    return { op: 'set', path, value: channels };
  }
  if (typeof value !== 'object' || !('__op' in value)) fail(ErrorCode.invalidType, 'channels must be an array of channel names or an {__op} operation');
  const operation = value as Record<string, unknown>;
  switch (operation.__op) {
    case 'Delete':
      return { op: 'delete', path };
    case 'Add':
    case 'AddUnique':
    case 'Remove': {
      if (!Array.isArray(operation.objects)) fail(ErrorCode.invalidType, `${operation.__op} on channels needs an objects array`);
      const objects = readChannels(operation.objects) ?? [];
      return { op: operation.__op === 'Remove' ? 'remove' : 'addUnique', path, objects };
    }
    default:
      return fail(ErrorCode.invalidType, `channels accepts an array or {__op: Add, AddUnique, Remove or Delete}, not ${JSON.stringify(operation.__op)?.slice(0, 40)}`);
  }
}

/** Checks the channels an installation ends up with after a write. */
export function checkChannels(value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every(isChannelName)) fail(ErrorCode.invalidChannelName, 'channels must be an array of channel names');
  if (value.length > maxChannelsPerInstallation) tooMany();
}

function tooMany(): never {
  return fail(ErrorCode.internal, `an installation subscribes to at most ${maxChannelsPerInstallation} channels`);
}
