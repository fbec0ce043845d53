/**
 * Stands in for a command a documented shell block runs (npm, docker, helm,
 * kubectl, …): run as `node command-shim.ts <name> <args…>` from a wrapper
 * of that name on the block's PATH. It appends the call — name, arguments,
 * Herald's variables, folder — to the file EXAMPLE_LOG names, for the test
 * to check after the block. The commands in EXAMPLE_PASSTHROUGH (curl,
 * openssl, …) run for real first, with the PATH of EXAMPLE_REAL_PATH, and
 * their exit status is recorded and passed on.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [name = '', ...args] = process.argv.slice(2);
const passthrough = (process.env.EXAMPLE_PASSTHROUGH ?? '').split(',');
let status = 0;
if (passthrough.includes(name)) {
  const run = spawnSync(name, args, { stdio: 'inherit', env: { ...process.env, PATH: process.env.EXAMPLE_REAL_PATH } });
  status = run.status ?? 1;
}
const env = Object.fromEntries(Object.entries(process.env).filter(([variable]) => /^(HERALD_|PORT$|HOST$)/.test(variable)));
appendFileSync(process.env.EXAMPLE_LOG ?? '', `${JSON.stringify({ name, args, env, cwd: process.cwd(), status })}\n`);
process.exit(status);
