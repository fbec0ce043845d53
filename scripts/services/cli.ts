import { readLogTail } from './log-tail.ts';
import { isServiceName, serviceNames, type ServiceName } from './local-service.ts';
import { serviceLogFile, servicesDown, servicesStatus, servicesUp } from './services.ts';
import { loadServicesOptions, servicesEnvVariables, type ServicesOptions } from './services-options.ts';

const usage = `Usage: npm run services -- <command>

  up [service...]      provision and start the services (all by default); waits until
                       each answers; does nothing for those already up
  down [service...]    stop the services this tool started (all by default)
  status               show each service; exits 3 unless all are up and answering
  logs <service> [n]   print the last n lines (default 40) of a service's log
  running              print the names of the services that run, one a line

Services: ${serviceNames.join(', ')}

Environment:
${Object.entries(servicesEnvVariables)
  .map(([name, help]) => `  ${name.padEnd(40)}${help}`)
  .join('\n')}
`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(usage);
    return command === undefined ? 2 : 0;
  }
  const options = loadServicesOptions(process.env);
  const report = (line: string) => process.stdout.write(`${line}\n`);
  switch (command) {
    case 'up':
      await servicesUp(parseNames(rest), { options, report });
      return 0;
    case 'down':
      await servicesDown(parseNames(rest), { options, report });
      return 0;
    case 'status':
      return status(options);
    case 'logs':
      return logs(rest, options);
    case 'running': {
      const statuses = await servicesStatus([], { options });
      for (const { name, state } of statuses) if (state !== 'stopped') process.stdout.write(`${name}\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function status(options: ServicesOptions): Promise<number> {
  process.stdout.write(`services folder: ${options.dir}\n`);
  const statuses = await servicesStatus([], { options });
  for (const { name, state, pid, detail } of statuses) {
    process.stdout.write(`${name.padEnd(17)} ${state.padEnd(10)} ${(pid === undefined ? '-' : `pid ${pid}`).padEnd(11)} ${detail}\n`);
  }
  return statuses.every((entry) => entry.state === 'ready') ? 0 : 3;
}

async function logs(args: readonly string[], options: ServicesOptions): Promise<number> {
  const [name, count] = args;
  const [service] = parseNames(name === undefined ? [] : [name]);
  if (service === undefined || args.length > 2) throw new UsageError('logs needs one service name');
  const lines = count === undefined ? undefined : Number(count);
  if (lines !== undefined && (!Number.isSafeInteger(lines) || lines <= 0)) throw new UsageError(`"${count}" is not a number of lines`);
  const file = serviceLogFile(service, options);
  process.stdout.write(`--- ${file} ---\n${await readLogTail(file, lines)}\n`);
  return 0;
}

function parseNames(args: readonly string[]): ServiceName[] {
  return args.map((name) => {
    if (!isServiceName(name)) throw new UsageError(`unknown service "${name}" (services: ${serviceNames.join(', ')})`);
    return name;
  });
}

class UsageError extends Error {}

// kafkajs 2.2.4 arms a timer with a negative delay on every request, and
// Node warns about it; the warning says nothing about the services.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'TimeoutNegativeWarning') process.stderr.write(`${warning.name}: ${warning.message}\n`);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${usage}`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`services: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
