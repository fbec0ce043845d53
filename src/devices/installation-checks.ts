import { ErrorCode, fail } from '../core/errors.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { isAndroidInstallationId, isIosDeviceToken } from '../push/requests/device-target.ts';
import { checkChannels } from './installation-channels.ts';
import { InstallationField, identityField, maxInstallationChars, type DeviceType } from './installation-fields.ts';
import { readDeviceType } from './installation-input.ts';

/** Longest deviceToken kept on an Android installation (vendor push tokens; Herald delivers through `registrationId`). */
const maxAndroidDeviceTokenLength = 512;

/**
 * Checks an installation as a write would leave it: a known `deviceType`
 * (113 / 111 / 1), the device's identity for that type present (113), and
 * each device key the write sets in the form pushes accept (114). Fields the
 * write does not touch are not judged again, so an imported installation
 * keeps working. Answers the device type.
 */
export function checkInstallation(installation: Readonly<StoredObject>, touched: ReadonlySet<string>): DeviceType {
  const deviceType = readDeviceType(installation[InstallationField.deviceType]);
  const identity = identityField[deviceType];
  if (typeof installation[identity] !== 'string') {
    fail(ErrorCode.missingRequiredKey, `${identity} is required for ${deviceType} installations`);
  }
  const token = installation[InstallationField.deviceToken];
  if (touched.has(InstallationField.deviceToken) && token !== undefined && !deviceTokenAccepted(deviceType, token)) {
    fail(
      ErrorCode.invalidDeviceToken,
      deviceType === 'ios' ? 'invalid deviceToken: iOS device tokens are 64 to 200 hex digits' : 'invalid deviceToken: it must have no spaces or control characters',
    );
  }
  const installationId = installation[InstallationField.installationId];
  if (touched.has(InstallationField.installationId) && installationId !== undefined && !isAndroidInstallationId(installationId)) {
    fail(ErrorCode.invalidDeviceToken, 'invalid installationId: 1 to 128 characters without spaces or control characters');
  }
  if (touched.has(InstallationField.channels)) checkChannels(installation[InstallationField.channels]);
  if (JSON.stringify(installation).length > maxInstallationChars) {
    fail(ErrorCode.internal, `an installation may hold at most ${maxInstallationChars} characters of JSON`);
  }
  return deviceType;
}

function deviceTokenAccepted(deviceType: DeviceType, token: unknown): boolean {
  if (deviceType === 'ios') return isIosDeviceToken(token);
  return typeof token === 'string' && token.length > 0 && token.length <= maxAndroidDeviceTokenLength && !/[\p{Cc}\s]/u.test(token);
}
