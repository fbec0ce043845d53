import { DuplicateValueError, ErrorCode, HeraldError } from '../core/errors.ts';

/** Turns a store's unique-index conflict into the wire error for that field. */
export function duplicateToHeraldError(error: DuplicateValueError): HeraldError {
  const field = error.field;
  if (field === 'username') return new HeraldError(ErrorCode.usernameTaken, 'Username has already been taken.');
  if (field === 'email') return new HeraldError(ErrorCode.emailTaken, 'This email address has already been taken.');
  if (field === 'mobilePhoneNumber') return new HeraldError(ErrorCode.mobilePhoneTaken, 'Mobile phone number has already been taken.');
  if (field.startsWith('authData.')) {
    return new HeraldError(ErrorCode.authDataTaken, `This ${field.split('.')[1] ?? ''} account is already linked to another user.`);
  }
  return new HeraldError(ErrorCode.duplicateValue, `A unique value is already taken: ${field}`);
}

/** Runs a store write, answering unique conflicts with the matching wire error. */
export async function withUniqueErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof DuplicateValueError) throw duplicateToHeraldError(error);
    throw error;
  }
}
