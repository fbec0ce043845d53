import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config/load-config.ts';
import { envVariables, roleNames, type HeraldConfig } from './config/schema.ts';
import { loadOrCreateDevConsoleAccount } from './console/dev-console-account.ts';
import { createLogger } from './core/logger.ts';
import { BackendStartError } from './runtime/backend-start-error.ts';
import { topicSpecs } from './runtime/topic-specs.ts';
import { openBus } from './runtime/open-bus.ts';
import { migrateStore } from './runtime/open-store.ts';
import { startHerald, type RunningHerald } from './start-herald.ts';

const usage = `Usage: herald [--role <role>[,<role>…]]   run the service; roles: ${roleNames.join(', ')}
       herald migrate                     bring the store's schema to this version, create the bus topics, then exit
       herald import --app <id> <files…>  import the hosted service's exported users and installations (herald import --help)
       herald console-user <username>     print the config of a web console account (herald console-user --help)
       herald --help                      print this help

herald is \`npm start --\` in a checkout (npm start -- --role api, npm start -- migrate)
and the image's entrypoint in a container (docker run herald --role api).

Configuration comes from the file named by HERALD_CONFIG (JSON or YAML) and
from these environment variables:
${Object.entries(envVariables)
  .map(([name, spec]) => `  ${name.padEnd(44)}${spec.help}`)
  .join('\n')}
`;

async function main(): Promise<void> {
  if (process.argv[2] === 'import') {
    const { runImportCommand } = await import('./import/import-command.ts');
    process.exitCode = await runImportCommand(process.argv.slice(3), { stdout: process.stdout, stderr: process.stderr, env: process.env, process });
    return;
  }
  if (process.argv[2] === 'console-user') {
    const { runConsoleUserCommand } = await import('./console/commands/console-user-command.ts');
    process.exitCode = await runConsoleUserCommand(process.argv.slice(3), { stdout: process.stdout, stderr: process.stderr, input: process.stdin });
    return;
  }
  const { values, positionals } = parseArgs({ options: { role: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  const [command = 'serve', ...extra] = positionals;
  if (values.help || !['serve', 'migrate'].includes(command) || extra.length > 0) {
    if (values.help) process.stdout.write(usage);
    else {
      process.stderr.write(usage);
      process.exitCode = 2;
    }
    return;
  }
  const loaded = loadConfig({ env: process.env, overrides: values.role ? { role: values.role } : {} });
  const { devKeys } = loaded;
  let { config } = loaded;
  const logger = createLogger({ level: config.logLevel });
  if (command === 'migrate') {
    const report = await migrateStore(config.store, { dataDir: config.dataDir, logger });
    logger.info({ store: config.store.kind, ...report }, 'store schema is current');
    // Opening the bus creates the topics that do not exist yet.
    await (await openBus(config.bus, logger)).close();
    logger.info({ bus: config.bus.kind, topics: topicSpecs(config.bus) }, 'bus topics exist');
    return;
  }
  // With development keys, and only then, a development console account like the development app's keys.
  const devConsole = devKeys !== null && config.console.enabled && config.console.accounts.length === 0 ? await loadOrCreateDevConsoleAccount(config.dataDir) : null;
  if (devConsole !== null) config = { ...config, console: { ...config.console, accounts: [devConsole.account] } };
  const herald = await startHerald(config, { logger, facts: { developmentKeys: devKeys !== null } });
  if (devKeys) {
    const { id, key, masterKey } = devKeys.keys;
    process.stdout.write(
      `\nNo app configured: using development keys ${devKeys.created ? 'created now and ' : ''}kept in ${devKeys.file}\n` +
        `  X-SVC-Id:  ${id}\n  X-SVC-Key: ${key}\n  master:    X-SVC-Key: ${masterKey},master\n\n`,
    );
  }
  const consoleUrl = consoleAddress(config, herald);
  if (consoleUrl !== undefined && devConsole !== null) {
    process.stdout.write(
      `Console: ${consoleUrl}\n  sign in as ${devConsole.account.username} with password ${devConsole.password} (development account ${devConsole.created ? 'created now and ' : ''}kept in ${devConsole.file})\n\n`,
    );
  } else if (consoleUrl !== undefined) {
    logger.info({ console: consoleUrl, accounts: config.console.accounts.length }, config.console.accounts.length === 0 ? 'console served, but no console account is configured: make one with herald console-user' : 'console served');
  }
  logger.info({ role: config.role, apps: config.apps.map((app) => app.id), publicUrl: config.publicUrl }, 'herald started');

  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    herald.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** Where this process serves the console, for a person on this machine; undefined when it serves none. */
function consoleAddress(config: HeraldConfig, herald: RunningHerald): string | undefined {
  const port = config.console.port === undefined ? herald.port : herald.consolePort;
  if (!config.console.enabled || port === undefined) return undefined;
  const host = config.console.host ?? config.host;
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}/console`;
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else if (error instanceof BackendStartError) {
    process.stderr.write(`herald failed to start: ${error.message}\n`);
  } else {
    process.stderr.write(`herald failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
