import type { ClassDescriptor, StoredObject, UniqueKey } from '../core/ports/object-store.ts';
import { storedAuthDataUniqueKeys } from './auth-data/auth-data-unique-keys.ts';
import { UserField, unionIdFieldPattern } from './user-fields.ts';

const uniqueStringFields = [UserField.username, UserField.email, UserField.mobilePhoneNumber, UserField.sessionToken] as const;

/**
 * Unique values of a `_User`: username, email, mobile number, session token,
 * each third-party identity (`authData.<platform>.uid`) and each union-id marker.
 */
export const userClassDescriptor: ClassDescriptor = {
  uniqueKeys(user: Readonly<StoredObject>): UniqueKey[] {
    const keys: UniqueKey[] = [];
    for (const field of uniqueStringFields) {
      const value = user[field];
      if (typeof value === 'string' && value !== '') keys.push({ field, value });
    }
    keys.push(...storedAuthDataUniqueKeys(user[UserField.authData]));
    for (const [field, value] of Object.entries(user)) {
      if (!unionIdFieldPattern.test(field) || value === null || typeof value !== 'object') continue;
      const uid = (value as Record<string, unknown>).uid;
      if (typeof uid === 'string' && uid !== '') keys.push({ field: `${field}.uid`, value: uid });
    }
    return keys;
  },
};
