import { basename } from 'node:path';

/** The classes of an export that Herald takes in. */
export const importedClasses = ['_User', '_Installation'] as const;

export type ImportedClass = (typeof importedClasses)[number];

export function isImportedClass(className: string): className is ImportedClass {
  return (importedClasses as readonly string[]).includes(className);
}

/**
 * Why the rows of a class Herald does not take in are left out, said in the
 * summary: an export holds every class of the app, and naming them all on
 * the command line (`herald import … export/*.jsonl`) is the easy way.
 */
export function skippedClassReason(className: string): string {
  switch (className) {
    case '_Role':
      return 'Herald has no roles yet: role rows are not imported (ACL entries naming role:<name> are kept, but grant nothing)';
    case '_Session':
      return "Herald keeps each user's session token on the user, as the hosted service does: the _User rows' sessionToken is imported, a sessions class is not";
    default:
      return `Herald holds users and installations only; the ${className} class is not imported`;
  }
}

const systemClasses = ['_User', '_Installation', '_Role', '_Session', '_Conversation', '_File', '_Follower', '_Followee', '_Status', '_Notification'];

/**
 * The class an export file holds, read from its name when the file has no
 * header naming it: the hosted service names them `<Class>.<n>.jsonl`
 * (`_User.0.jsonl`, split into `.1`, `.2`… when large); `<Class>.json`,
 * `<Class>.jsonl` and `<Class>_all.json` are read too. Answers null for a
 * schema file (`<Class>_schema.json`, `schema.json`), which holds no rows.
 */
export function classFromFileName(path: string): string | null {
  let name = basename(path).replace(/\.(jsonl|json|ndjson)$/i, '');
  name = name.replace(/\.\d+$/, '');
  if (/(^|_)schema$/i.test(name)) return null;
  const withoutAll = name.replace(/_all$/, '');
  if (withoutAll !== name && systemClasses.includes(withoutAll)) return withoutAll;
  return name === '' ? null : name;
}
