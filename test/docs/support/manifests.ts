import { Pod } from 'kubernetes-models/v1/Pod';
import { schemaProblems } from '../../deploy/support/chart-models.ts';
import type { KubeObject } from '../../deploy/support/helm-chart.ts';

/** What the Kubernetes schema of its kind refuses in an object the documents show: the chart's kinds, and a Pod. */
export function manifestProblems(object: KubeObject): string[] {
  if (object.apiVersion === 'v1' && object.kind === 'Pod') {
    try {
      new Pod(object).validate();
      return [];
    } catch (error) {
      return [`v1/Pod ${object.metadata.name}: ${error instanceof Error ? error.message : String(error)}`];
    }
  }
  return schemaProblems(object);
}
