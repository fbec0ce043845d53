import { clusterEnvVariables } from './cluster-layout.ts';
import { clusterDown, clusterLogFile, clusterMemory, clusterStatus, clusterUp } from './cluster.ts';
import { readLogTail } from './log-tail.ts';
import { clusterNodeNames, isClusterNodeName, isServiceName, serviceNames, type ClusterNodeName, type ServiceName } from './local-service.ts';
import { serviceLogFile, servicesDown, servicesStatus, servicesUp } from './services.ts';
import { loadServicesOptions, servicesEnvVariables, type ServicesOptions } from './services-options.ts';

const usage = `Usage: npm run services -- <command>

  up [service...]      provision and start the services (all by default); waits until
                       each answers; does nothing for those already up
  down [service...]    stop the services this tool started (all by default)
  status               show each service; exits 3 unless all are up and answering
  logs <service> [n]   print the last n lines (default 40) of a service's log
  running              print the names of the services that run, one a line

  cluster up [node...]     start the replicated cluster (three Cassandra nodes and three
                           Kafka brokers on 127.0.0.1-3), apart from the services above;
                           waits until the nodes form one cluster
  cluster down [node...]   stop cluster nodes (all by default)
  cluster status           show each cluster node and its resident memory; exits 3
                           unless all are up and answering
  cluster logs <node> [n]  the last n lines of a cluster node's log

Services: ${serviceNames.join(', ')}
Cluster nodes: ${clusterNodeNames.join(', ')}

Environment:
${Object.entries({ ...servicesEnvVariables, ...clusterEnvVariables })
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
    case 'cluster':
      return cluster(rest, options);
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

async function cluster(args: readonly string[], options: ServicesOptions): Promise<number> {
  const [command, ...rest] = args;
  const report = (line: string) => process.stdout.write(`${line}\n`);
  switch (command) {
    case 'up':
      await clusterUp(parseNodes(rest), { options, report });
      return 0;
    case 'down':
      await clusterDown(parseNodes(rest), { options, report });
      return 0;
    case 'status': {
      const statuses = await clusterStatus({ options });
      const memory = new Map((await clusterMemory({ options })).map(({ name, rssBytes }) => [name, rssBytes]));
      for (const { name, state, pid, detail } of statuses) {
        const rss = memory.get(name as ClusterNodeName);
        const resident = rss === undefined ? '' : ` (${(rss / 2 ** 20).toFixed(0)} MiB resident)`;
        process.stdout.write(`${name.padEnd(12)} ${state.padEnd(10)} ${(pid === undefined ? '-' : `pid ${pid}`).padEnd(11)} ${detail}${resident}\n`);
      }
      return statuses.every((entry) => entry.state === 'ready') ? 0 : 3;
    }
    case 'logs': {
      const [name, count] = rest;
      const [node] = parseNodes(name === undefined ? [] : [name]);
      if (node === undefined || rest.length > 2) throw new UsageError('cluster logs needs one node name');
      const lines = count === undefined ? undefined : Number(count);
      if (lines !== undefined && (!Number.isSafeInteger(lines) || lines <= 0)) throw new UsageError(`"${count}" is not a number of lines`);
      const file = clusterLogFile(node, options);
      process.stdout.write(`--- ${file} ---\n${await readLogTail(file, lines)}\n`);
      return 0;
    }
    default:
      throw new UsageError(command === undefined ? 'cluster needs a command: up, down, status or logs' : `unknown cluster command "${command}"`);
  }
}

function parseNodes(args: readonly string[]): ClusterNodeName[] {
  return args.map((name) => {
    if (!isClusterNodeName(name)) throw new UsageError(`unknown cluster node "${name}" (nodes: ${clusterNodeNames.join(', ')})`);
    return name;
  });
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
