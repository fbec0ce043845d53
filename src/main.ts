import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config/load-config.ts';
import { envVariables, roleNames } from './config/schema.ts';
import { createLogger } from './core/logger.ts';
import { BackendStartError } from './runtime/backend-start-error.ts';
import { topicSpecs } from './runtime/topic-specs.ts';
import { openBus } from './runtime/open-bus.ts';
import { migrateStore } from './runtime/open-store.ts';
import { startHerald } from './start-herald.ts';

const usage = `Usage: herald [--role <role>[,<role>…]]   run the service; roles: ${roleNames.join(', ')}
       herald migrate                     bring the store's schema to this version, create the bus topics, then exit
       herald import --app <id> <files…>  import the hosted service's exported users and installations (herald import --help)
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
  const { config, devKeys } = loadConfig({ env: process.env, overrides: values.role ? { role: values.role } : {} });
  const logger = createLogger({ level: config.logLevel });
  if (command === 'migrate') {
    const report = await migrateStore(config.store, { dataDir: config.dataDir, logger });
    logger.info({ store: config.store.kind, ...report }, 'store schema is current');
    // Opening the bus creates the topics that do not exist yet.
    await (await openBus(config.bus, logger)).close();
    logger.info({ bus: config.bus.kind, topics: topicSpecs(config.bus) }, 'bus topics exist');
    return;
  }
  const herald = await startHerald(config, { logger, facts: { developmentKeys: devKeys !== null } });
  if (devKeys) {
    const { id, key, masterKey } = devKeys.keys;
    process.stdout.write(
      `\nNo app configured: using development keys ${devKeys.created ? 'created now and ' : ''}kept in ${devKeys.file}\n` +
        `  X-SVC-Id:  ${id}\n  X-SVC-Key: ${key}\n  master:    X-SVC-Key: ${masterKey},master\n\n`,
    );
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
