import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { schemaProblems } from './support/chart-models.ts';
import { envValue, heraldContainer, mountsOf, podSpec, type RenderedJob } from './support/chart-pods.ts';
import { ChartPodSandbox } from './support/chart-pod-sandbox.ts';
import { ciValues, findObject, objectsOfKind, renderChart, templateChart, type KubeObject } from './support/helm-chart.ts';

const hookAnnotations = (object: KubeObject) => object.metadata.annotations ?? {};

describe('the migration Job', () => {
  const objects = renderChart({ values: [ciValues.production], setJson: ['migration.serviceAccount.annotations={"iam.gke.io/gcp-service-account":"herald-migrate@example.iam.gserviceaccount.com"}'] });
  const job = findObject(objects, 'Job', 'herald-migration') as RenderedJob;

  it('runs as a ServiceAccount of its own, made as a hook before it, with no API token and the annotations given', () => {
    const account = findObject(objects, 'ServiceAccount', 'herald-migration') as KubeObject & { automountServiceAccountToken?: boolean };
    expect(podSpec(job).serviceAccountName).toBe('herald-migration');
    expect(podSpec(job).automountServiceAccountToken).toBe(false);
    expect(account.automountServiceAccountToken).toBe(false);
    expect(hookAnnotations(account)).toMatchObject({ 'helm.sh/hook': 'pre-install,pre-upgrade', 'iam.gke.io/gcp-service-account': 'herald-migrate@example.iam.gserviceaccount.com' });
    expect(Number(hookAnnotations(account)['helm.sh/hook-weight'])).toBeLessThan(Number(hookAnnotations(job)['helm.sh/hook-weight']));
    // The serving pods keep the chart's own.
    for (const deployment of objectsOfKind(objects, 'Deployment')) expect(podSpec(deployment as RenderedJob).serviceAccountName).toBe('herald');
    expect(schemaProblems(account)).toEqual([]);
  });

  it('uses a named ServiceAccount, or the pods\' named one, or the default, when it makes none', () => {
    const named = renderChart({ values: [ciValues.production], set: ['migration.serviceAccount.create=false', 'migration.serviceAccount.name=schema-admin'] });
    expect(podSpec(findObject(named, 'Job', 'herald-migration') as RenderedJob).serviceAccountName).toBe('schema-admin');
    expect(objectsOfKind(named, 'ServiceAccount').map((object) => object.metadata.name)).toEqual(['herald']);
    const pods = renderChart({ values: [ciValues.production], set: ['migration.serviceAccount.create=false', 'serviceAccount.create=false', 'serviceAccount.name=herald-pods'] });
    expect(podSpec(findObject(pods, 'Job', 'herald-migration') as RenderedJob).serviceAccountName).toBe('herald-pods');
    const fallback = renderChart({ values: [ciValues.production], set: ['migration.serviceAccount.create=false'] });
    expect(podSpec(findObject(fallback, 'Job', 'herald-migration') as RenderedJob).serviceAccountName).toBe('default');
  });
});

/** What an operator puts in the existing Secret of ci/production-values.yaml, as far as the import needs it. */
const productionSecret: Record<string, string> = {
  'app.shop.key': 'shop-app-key-0001',
  'app.shop.masterKey': 'shop-master-key-0001',
  'app.shop.smtpPass': 'smtp-password',
  'app.game.key': 'game-app-key-0001',
  'app.game.masterKey': 'game-master-key-0001',
  'apns.shop.p8': 'p8',
  'fcm.shop.json': '{}',
  'apns.game.production.p12': 'p12',
  'apns.game.production.pass': 'pass',
  'cassandra-password': 'cassandra-secret',
  'redis-url': 'redis://:redis-secret@redis-master.redis:6379',
};

describe('the import Job (import.enabled)', () => {
  const importValues = ['import.enabled=true', 'import.app=shop', 'import.claimName=hosted-export', 'import.path=export/2026-01'];

  it('is not made unless asked for', () => {
    expect(objectsOfKind(renderChart({ values: [ciValues.production] }), 'Job').map((object) => object.metadata.name)).toEqual(['herald-migration']);
  });

  it('runs herald import on the export claim, its reject and checkpoint files beside the export, and is a valid Job', () => {
    const objects = renderChart({ values: [ciValues.production], set: [...importValues, 'import.concurrency=32'] });
    const job = findObject(objects, 'Job', 'herald-import') as RenderedJob;
    expect(schemaProblems(job)).toEqual([]);
    expect(hookAnnotations(job)['helm.sh/hook'], 'a plain Job: an import may take hours').toBeUndefined();
    const herald = heraldContainer(job);
    expect(herald.args).toEqual(['import', '--app', 'shop', '--rejects', '/import/herald-import-shop.rejects.jsonl', '--concurrency', '32', '/import/export/2026-01']);
    expect(mountsOf(herald).get('export')).toEqual({ mountPath: '/import', readOnly: false });
    expect(podSpec(job).volumes?.find((volume) => volume.name === 'export')?.persistentVolumeClaim).toEqual({ claimName: 'hosted-export' });
    expect(podSpec(job).restartPolicy).toBe('Never');
    expect(podSpec(job).serviceAccountName).toBe('herald');
    expect(job.spec?.podFailurePolicy?.rules[0]).toEqual({ action: 'FailJob', onExitCodes: { containerName: 'herald', operator: 'In', values: [2, 3] } });
    expect(envValue(herald, 'HERALD_STORE')).toBe('cassandra');
  });

  it('writes nothing with import.dryRun, and reads the whole claim without import.path', () => {
    const objects = renderChart({ values: [ciValues.production], set: ['import.enabled=true', 'import.app=game', 'import.claimName=hosted-export', 'import.dryRun=true'] });
    expect(heraldContainer(findObject(objects, 'Job', 'herald-import') as RenderedJob).args).toEqual(['import', '--app', 'game', '--rejects', '/import/herald-import-game.rejects.jsonl', '--dry-run', '/import']);
  });

  it('gives the import the config every pod gets: the app with its keys from the Secret, on Cassandra', () => {
    const objects = renderChart({ values: [ciValues.production], set: importValues });
    const pod = new ChartPodSandbox(objects, findObject(objects, 'Job', 'herald-import') as RenderedJob, productionSecret);
    try {
      const init = pod.runInit();
      expect(init.status, init.stderr).toBe(0);
      const { config } = loadConfig({ env: pod.heraldEnvironment() });
      expect(config.apps.find((app) => app.id === 'shop')).toMatchObject({ key: 'shop-app-key-0001', masterKey: 'shop-master-key-0001' });
      expect(config.store.kind).toBe('cassandra');
    } finally {
      pod.remove();
    }
  });

  it.each([
    ['on the embedded store', { values: [ciValues.trial], set: ['import.enabled=true', 'import.app=trial', 'import.claimName=export'] }, 'import.enabled: the import Job needs Cassandra'],
    ['without an app', { values: [ciValues.production], set: ['import.enabled=true', 'import.claimName=export'] }, 'import.app: name the app to import into'],
    ['for an app that is not configured', { values: [ciValues.production], set: ['import.enabled=true', 'import.app=blog', 'import.claimName=export'] }, 'import.app: blog is not one of the apps (shop, game)'],
    ['without a claim', { values: [ciValues.production], set: ['import.enabled=true', 'import.app=shop'] }, 'import.claimName: name the PersistentVolumeClaim'],
    ['with a path out of the claim', { values: [ciValues.production], set: [...importValues.slice(0, 3), 'import.path=../etc'] }, '- import.path: Must not validate the schema (not)'],
  ])('refuses %s, saying what to do', (_name, options, message) => {
    const result = templateChart(options);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(message);
  });
});
