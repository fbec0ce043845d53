import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from '../../core/logger.ts';

/**
 * kafkajs logs every retried protocol answer as an error and every rebalance
 * as a warning; what actually fails reaches callers as Herald errors and is
 * logged by the adapter. So its lines go one level down: error → warn,
 * warn → info, info → debug, debug → trace.
 */
export function kafkaLogCreator(logger: Logger): logCreator {
  const kafkaLogger = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _name, ...details } = log;
      const fields = { kafkaNamespace: namespace, ...details };
      if (level === logLevel.ERROR) kafkaLogger.warn(fields, message);
      else if (level === logLevel.WARN) kafkaLogger.info(fields, message);
      else if (level === logLevel.INFO) kafkaLogger.debug(fields, message);
      else kafkaLogger.trace(fields, message);
    };
}

/** The kafkajs level that produces no more than `logger` keeps, under the mapping above. */
export function kafkaLogLevel(logger: Logger): logLevel {
  if (logger.isLevelEnabled('trace')) return logLevel.DEBUG;
  if (logger.isLevelEnabled('debug')) return logLevel.INFO;
  if (logger.isLevelEnabled('info')) return logLevel.WARN;
  if (logger.isLevelEnabled('warn')) return logLevel.ERROR;
  return logLevel.NOTHING;
}
