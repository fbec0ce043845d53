import type { AppRuntime } from './account-deps.ts';

/** The configured apps by id. */
export class AppRegistry {
  private readonly apps: ReadonlyMap<string, AppRuntime>;

  constructor(apps: AppRuntime[]) {
    this.apps = new Map(apps.map((app) => [app.config.id, app]));
  }

  get(appId: string): AppRuntime | undefined {
    return this.apps.get(appId);
  }

  all(): AppRuntime[] {
    return [...this.apps.values()];
  }
}
