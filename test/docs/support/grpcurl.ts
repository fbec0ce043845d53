import { join } from 'node:path';
import { credentials, loadPackageDefinition, Metadata, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

const protoDir = join(import.meta.dirname, '../../../proto');
const definition = loadSync('herald/v1/push_service.proto', { keepCase: true, longs: Number, defaults: false, includeDirs: [protoDir] });
const services = new Map(Object.entries(definition).filter(([, value]) => !('format' in value)).map(([name, value]) => [name, value as Record<string, { requestStream: boolean; responseStream: boolean }>]));

/**
 * The documents' `grpcurl` commands, made with @grpc/grpc-js (grpcurl itself
 * is not installed here): `-plaintext`, `-H 'name: value'`, `-d <json>`, an
 * address, then `list`, `describe <service>` (checked against the proto
 * files) or `<service>/<method>`, called on the address given — a unary call
 * or a server stream read to its end. Throws on what grpcurl would fail on.
 */
export async function grpcurl(args: readonly string[], address: string): Promise<unknown[]> {
  const headers: [string, string][] = [];
  let data = '{}';
  let index = 0;
  for (; index < args.length && (args[index] as string).startsWith('-'); index += 1) {
    const flag = args[index] as string;
    if (flag === '-plaintext') continue;
    const value = args[(index += 1)];
    if (value === undefined) throw new Error(`grpcurl ${flag} needs a value`);
    if (flag === '-H') {
      const at = value.indexOf(':');
      headers.push([value.slice(0, at).trim(), value.slice(at + 1).trim()]);
    } else if (flag === '-d') data = value;
    else throw new Error(`grpcurl: a flag this check does not know: ${flag}`);
  }
  const [target, verb, subject] = args.slice(index);
  if (target === undefined || verb === undefined) throw new Error(`grpcurl ${args.join(' ')}: expected an address and a method, list or describe`);
  if (verb === 'list') return [...services.keys()];
  if (verb === 'describe') {
    if (subject === undefined || !services.has(subject)) throw new Error(`grpcurl describe ${subject}: the proto files define no such service`);
    return [subject];
  }
  const [serviceName = '', methodName = ''] = verb.split('/');
  const service = services.get(serviceName);
  const method = service?.[methodName];
  if (method === undefined) throw new Error(`grpcurl ${verb}: the proto files define no such method`);
  const packageObject = loadPackageDefinition(definition) as unknown as Record<string, Record<string, Record<string, ServiceClientConstructor>>>;
  const [root = '', version = '', name = ''] = serviceName.split('.');
  const Client = packageObject[root]?.[version]?.[name];
  if (Client === undefined) throw new Error(`grpcurl: cannot make a client for ${serviceName}`);
  const client = new Client(address === target ? target : address, credentials.createInsecure());
  const metadata = new Metadata();
  for (const [key, value] of headers) metadata.set(key, value);
  const request = JSON.parse(data) as unknown;
  const call = (client as unknown as Record<string, (...callArgs: unknown[]) => unknown>)[methodName]?.bind(client);
  if (call === undefined) throw new Error(`grpcurl: no ${methodName} on the client`);
  try {
    if (method.responseStream) {
      const stream = call(request, metadata) as NodeJS.EventEmitter;
      return await new Promise<unknown[]>((resolve, reject) => {
        const messages: unknown[] = [];
        stream.on('data', (message: unknown) => messages.push(message));
        stream.on('end', () => resolve(messages));
        stream.on('error', reject);
      });
    }
    return [await new Promise((resolve, reject) => call(request, metadata, (error: Error | null, answer: unknown) => (error ? reject(error) : resolve(answer))))];
  } catch (error) {
    throw new Error(`grpcurl ${verb}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    client.close();
  }
}
