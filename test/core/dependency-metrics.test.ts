import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/core/metrics.ts';

describe('herald_dependency_up', () => {
  it('reports each backend as up or down, with whether the process needs it', async () => {
    const metrics = new Metrics();
    let busUp = true;
    metrics.watchDependencies(() =>
      Promise.resolve([
        { dependency: 'store', required: true, up: true },
        { dependency: 'bus', required: false, up: busUp },
      ]),
    );
    expect(await metrics.text()).toContain('herald_dependency_up{dependency="store",required="true"} 1');
    expect(await metrics.text()).toContain('herald_dependency_up{dependency="bus",required="false"} 1');
    busUp = false;
    expect(await metrics.text()).toContain('herald_dependency_up{dependency="bus",required="false"} 0');
  });

  it('has no samples before anything is watched', async () => {
    expect(await new Metrics().text()).not.toMatch(/^herald_dependency_up\{/m);
  });
});
