/** `logging/setLevel` (legacy): the connection's threshold. Modern requests send theirs in `_meta`. */
import type { MethodSpec } from '../context.js';
import { invalidParams } from '../jsonrpc.js';
import { isLogLevel, LOG_LEVEL_NAMES } from '../log-levels.js';

export const loggingMethods: Record<string, MethodSpec> = {
  'logging/setLevel': {
    era: 'legacy',
    handle(scope) {
      const level = scope.params.level;
      if (!isLogLevel(level)) {
        throw invalidParams(`Invalid log level ${JSON.stringify(level)}: expected one of ${LOG_LEVEL_NAMES}`);
      }
      scope.session.logLevel = level;
      return {};
    },
  },
};
