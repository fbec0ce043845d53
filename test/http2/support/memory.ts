import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// The test runner's workers do not start with --expose-gc; V8 lets a process turn it on, and a new context sees it.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Bytes of the JavaScript heap and of the buffers outside it still reachable, after collecting garbage. */
export function memoryInUse(): number {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}
