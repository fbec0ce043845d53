import { parseArgs } from 'node:util';
import { hashPassword } from '../../accounts/passwords.ts';
import { consoleRoles, consoleUsernamePattern, type ConsoleRole } from '../../config/console-schema.ts';
import { readPassword, type PasswordInput } from './read-password.ts';

const usage = `Usage: herald console-user <username> [--role viewer|operator|admin] [--apps <id>,<id>…|*] [--format yaml|json|hash]

Prints a console account: its username, role, apps and the argon2id hash of
its password. The password is read from standard input (one line, when it is
piped in) or asked for twice at the terminal; never from the command line.
Add the snippet under console.accounts in the file named by HERALD_CONFIG
(docs/console.md).
  --role   viewer (reads), operator (also sends and cancels pushes, unlocks
           accounts, deletes devices, sends account mail), admin (also sees
           settings and the audit log); default viewer
  --apps   the app ids the account sees, comma-separated, or * for every app
           (default *)
  --format yaml (default): the config snippet; json: the account as one JSON
           object, an element of the list the Helm chart's
           console.accountsKey Secret entry holds; hash: the password hash
           alone, for the chart's Secret entry console.<username>.passwordHash
`;

const formats = ['yaml', 'json', 'hash'] as const;
type Format = (typeof formats)[number];

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  input: PasswordInput;
}

/** `herald console-user`: answers the exit code. */
export async function runConsoleUserCommand(args: string[], io: CommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: {
        role: { type: 'string', default: 'viewer' },
        apps: { type: 'string', default: '*' },
        format: { type: 'string', default: 'yaml' },
        help: { type: 'boolean', short: 'h' },
      }, allowPositionals: true, strict: true });
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(usage);
    return 0;
  }
  const [username, ...extra] = positionals;
  const role = values.role as ConsoleRole;
  const format = values.format as Format;
  const apps = values.apps.split(',').map((app) => app.trim()).filter((app) => app !== '');
  const problem =
    username === undefined || extra.length > 0
      ? 'give exactly one username'
      : !consoleUsernamePattern.test(username)
        ? 'the username takes letters, digits, ., _, @ and -, starts with a letter or digit, and has at most 64 characters'
        : !consoleRoles.includes(role)
          ? `--role is one of ${consoleRoles.join(', ')}`
          : apps.length === 0 || apps.some((app) => app !== '*' && !/^[A-Za-z0-9_-]{1,64}$/.test(app))
            ? '--apps is * or app ids separated by commas'
            : !formats.includes(format)
              ? `--format is one of ${formats.join(', ')}`
              : null;
  if (problem !== null || username === undefined) {
    io.stderr.write(`herald console-user: ${problem ?? 'give a username'}\n\n${usage}`);
    return 2;
  }
  const password = await readPassword(io.input, io.stderr);
  if (typeof password !== 'string') {
    io.stderr.write(`herald console-user: ${password.problem}\n`);
    return 1;
  }
  const hash = await hashPassword(password);
  io.stdout.write(printed(format, { username, passwordHash: hash, role, apps }));
  return 0;
}

/** The account as `--format` asks. */
function printed(format: Format, account: { username: string; passwordHash: string; role: ConsoleRole; apps: string[] }): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(account)}\n`;
    case 'hash':
      return `${account.passwordHash}\n`;
    case 'yaml':
      return (
        `console:\n  accounts:\n    - username: ${account.username}\n      passwordHash: "${account.passwordHash}"\n` +
        `      role: ${account.role}\n      apps: [${account.apps.map((app) => JSON.stringify(app)).join(', ')}]\n`
      );
  }
}
