import { matches } from '../../query/match.ts';
import type { Condition } from '../../query/query.ts';
import type { Platform } from './push-request.ts';

const allPlatforms: readonly Platform[] = ['ios', 'android'];

/**
 * The platforms a push query can reach. Only conditions on `deviceType` are
 * weighed (each platform is tried against them with the query matcher);
 * every other condition might hold for either platform. The answer may
 * include a platform no installation matches, never leave one out.
 */
export function platformsReached(where: Condition | null): ReadonlySet<Platform> {
  return new Set(allPlatforms.filter((platform) => mayReach(where, platform)));
}

function mayReach(condition: Condition | null, platform: Platform): boolean {
  if (condition === null) return true;
  switch (condition.kind) {
    case 'and':
      return condition.conditions.every((item) => mayReach(item, platform));
    case 'or':
      return condition.conditions.some((item) => mayReach(item, platform));
    case 'field':
      if (condition.path.length !== 1 || condition.path[0] !== 'deviceType') return true;
      return matches(condition, { deviceType: platform });
  }
}
