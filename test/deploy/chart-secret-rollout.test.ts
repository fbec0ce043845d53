import { describe, expect, it } from 'vitest';
import { deploymentsByRole, podTemplate } from './support/chart-pods.ts';
import { ciValues, renderChart, type RenderOptions } from './support/helm-chart.ts';

/** The pods' checksum annotations of every Deployment, by role, as `helm template` renders them (no cluster, so no lookup). */
function checksums(options: RenderOptions): Map<string, { config: string | undefined; secret: string | undefined }> {
  return new Map(
    [...deploymentsByRole(renderChart(options))].map(([role, deployment]) => {
      const annotations = podTemplate(deployment).metadata?.annotations ?? {};
      return [role, { config: annotations['checksum/config'], secret: annotations['checksum/secret'] }];
    }),
  );
}

function secretChecksums(options: RenderOptions): string[] {
  return [...checksums(options).values()].map((value) => value.secret ?? '');
}

describe("a Secret change rolls the pods under helm template (GitOps), not only through helm upgrade's lookup", () => {
  it('rolls them when an entry of the chart-made Secret changes, and only then', () => {
    const before = secretChecksums({ values: [ciValues.trial] });
    expect(before[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(secretChecksums({ values: [ciValues.trial] }), 'the same values render the same annotation').toEqual(before);
    const changed = secretChecksums({ values: [ciValues.trial], set: ['secret.stringData.app\\.trial\\.masterKey=another-master-key-0002'] });
    expect(changed[0]).not.toBe(before[0]);
  });

  it('rolls them with an existing Secret when secret.checksum changes, which the operator sets from the Secret', () => {
    const first = checksums({ values: [ciValues.production], set: ['secret.checksum=sha256:1111'] });
    const again = checksums({ values: [ciValues.production], set: ['secret.checksum=sha256:1111'] });
    const rotated = checksums({ values: [ciValues.production], set: ['secret.checksum=sha256:2222'] });
    expect([...first.keys()].sort()).toEqual(['api', 'fanout', 'scheduler', 'sender']);
    for (const [role, annotations] of first) {
      expect(again.get(role), role).toEqual(annotations);
      expect(rotated.get(role)?.secret, role).not.toBe(annotations.secret);
      expect(rotated.get(role)?.config, `${role}: the config did not change`).toBe(annotations.config);
    }
  });

  it('keeps the pods as they are when neither changes: an existing Secret without secret.checksum renders one fixed annotation', () => {
    const unset = secretChecksums({ values: [ciValues.production] });
    expect(new Set(unset).size).toBe(1);
    expect(secretChecksums({ values: [ciValues.production] })).toEqual(unset);
    expect(secretChecksums({ values: [ciValues.production], set: ['secret.checksum=x'] })[0]).not.toBe(unset[0]);
  });
});
