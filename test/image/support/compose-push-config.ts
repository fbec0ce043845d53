import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
/**
 * compose/config/herald.yaml with its commented `push:` block in use: the
 * lines from `# push:` to the end of that comment lose their `# `, as the
 * file tells its reader to do.
 */
export function composeConfigWithPush(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^\s*# push:\s*$/.test(line));
  if (start < 0) throw new Error('compose/config/herald.yaml has no commented "# push:" block');
  const indent = /^(\s*)#/.exec(lines[start] as string)?.[1] ?? '';
  for (let index = start; index < lines.length && (lines[index] as string).startsWith(`${indent}# `); index += 1) {
    lines[index] = indent + (lines[index] as string).slice(indent.length + 2);
  }
  return lines.join('\n');
}

/** The push credentials herald.yaml's commented block names, made for a test in `dir` (an APNs .p8 key, an FCM service account). */
export function writePushSecrets(dir: string): { apnsKeyFile: string; serviceAccountFile: string } {
  const apnsKeyFile = 'AuthKey_ABC1234567.p8';
  const serviceAccountFile = 'firebase-service-account.json';
  const apns = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const account = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  writeFileSync(join(dir, apnsKeyFile), apns, { mode: 0o600 });
  const serviceAccount = {
    type: 'service_account',
    project_id: 'compose-trial',
    private_key_id: 'k1',
    private_key: account,
    client_email: 'herald@compose-trial.iam.gserviceaccount.com',
    token_uri: 'https://oauth2.googleapis.com/token',
  };
  writeFileSync(join(dir, serviceAccountFile), JSON.stringify(serviceAccount), { mode: 0o600 });
  return { apnsKeyFile, serviceAccountFile };
}
