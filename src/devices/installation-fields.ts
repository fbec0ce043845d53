/** Names of the fields the service knows on `_Installation` objects (SPEC.md, SPEC-NOTES.md). */
export const InstallationField = {
  deviceType: 'deviceType',
  deviceToken: 'deviceToken',
  installationId: 'installationId',
  channels: 'channels',
  registrationId: 'registrationId',
  vendor: 'vendor',
  apnsTopic: 'apnsTopic',
  apnsTeamId: 'apnsTeamId',
  deviceProfile: 'deviceProfile',
  badge: 'badge',
  timeZone: 'timeZone',
  /** The device's owner: a Pointer to `_User` (see user-pointers.ts). */
  user: 'user',
  acl: 'ACL',
} as const;

export const installationClass = '_Installation';

export type DeviceType = 'ios' | 'android';

export const deviceTypes: readonly DeviceType[] = ['ios', 'android'];

/** The field that identifies a device of each type within an app: re-saving with it updates the installation. */
export const identityField = { ios: 'deviceToken', android: 'installationId' } as const satisfies Record<DeviceType, 'deviceToken' | 'installationId'>;

/** Set by the service; a body that carries them (SDKs echo them back) has them ignored. */
export const serviceFields: ReadonlySet<string> = new Set(['objectId', 'createdAt', 'updatedAt']);

/** Most channels one installation may subscribe to: each is an index entry, written when the installation joins or leaves it. */
export const maxChannelsPerInstallation = 256;

/** Largest stored installation, as JSON characters: every save writes it whole. */
export const maxInstallationChars = 64 * 1024;
