import { describe, expect, it } from 'vitest';
import { pushTopics } from '../../src/push/push-topics.ts';
import { allContainers, configContainer, deploymentOf, deploymentsByRole, envOf, envValue, heraldContainer, mountsOf, podSpec, podTemplate, type RenderedJob, type RoleDeployment } from './support/chart-pods.ts';
import { ciValues, findObject, objectsOfKind, renderChart, type KubeObject } from './support/helm-chart.ts';

const production = renderChart({ values: [ciValues.production] });
const trial = renderChart({ values: [ciValues.trial] });
const autoscaling = renderChart({ values: [ciValues.autoscaling] });

/** Every Deployment of every values file, as `<file>/<role>`. */
const everyDeployment: [string, RoleDeployment][] = [
  ...[...deploymentsByRole(trial)].map(([role, deployment]): [string, RoleDeployment] => [`trial/${role}`, deployment]),
  ...[...deploymentsByRole(production)].map(([role, deployment]): [string, RoleDeployment] => [`production/${role}`, deployment]),
  ...[...deploymentsByRole(autoscaling)].map(([role, deployment]): [string, RoleDeployment] => [`autoscaling/${role}`, deployment]),
];

describe('each role Deployment', () => {
  it('exists for every enabled role of each values file', () => {
    expect(everyDeployment.map(([name]) => name).sort()).toEqual([
      'autoscaling/api',
      'autoscaling/fanout',
      'autoscaling/scheduler',
      'autoscaling/sender',
      'production/api',
      'production/fanout',
      'production/scheduler',
      'production/sender',
      'trial/all',
    ]);
  });

  it.each(everyDeployment)('%s runs its role with the config file the init container writes', (name, deployment) => {
    const role = name.split('/')[1];
    const herald = heraldContainer(deployment);
    expect(envValue(herald, 'HERALD_ROLE')).toBe(role);
    expect(envValue(herald, 'HERALD_CONFIG')).toBe('/run/herald/herald.json');
    expect(envValue(configContainer(deployment), 'HERALD_CONFIG')).toBe('/run/herald/herald.json');
    // The image's entrypoint runs Herald; only the init container replaces it.
    expect(herald.command).toBeUndefined();
    expect(herald.args).toBeUndefined();
    expect(configContainer(deployment).command).toEqual(['node', '/etc/herald/config/assemble-config.mts']);
  });

  it.each(everyDeployment)('%s probes /healthz and /readyz on the internal port, where Herald serves them', (_name, deployment) => {
    const herald = heraldContainer(deployment);
    const internalPort = Number(envValue(herald, 'HERALD_INTERNAL_PORT'));
    expect(herald.ports).toContainEqual({ name: 'metrics', containerPort: internalPort, protocol: 'TCP' });
    expect(herald.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(herald.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(herald.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    // A node may migrate its keyspace and wait for Redis before it listens: the startup probe allows minutes, the others take over after it.
    const startup = herald.startupProbe ?? {};
    expect((startup.periodSeconds ?? 0) * (startup.failureThreshold ?? 0)).toBeGreaterThanOrEqual(120);
    // /readyz answers within about a second whatever the backends do.
    expect(herald.readinessProbe?.timeoutSeconds).toBeGreaterThanOrEqual(2);
  });

  it.each(everyDeployment)('%s runs every container as a non-root user on a read-only root with no privileges', (_name, deployment) => {
    const spec = podSpec(deployment);
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    expect(spec.automountServiceAccountToken).toBe(false);
    for (const container of allContainers(deployment)) {
      expect(container.securityContext, container.name).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        capabilities: { drop: ['ALL'] },
      });
    }
  });

  it.each(everyDeployment)('%s writes only to volumes: /data, /tmp and the config in memory', (_name, deployment) => {
    const spec = podSpec(deployment);
    const volumes = new Map((spec.volumes ?? []).map((volume) => [volume.name, volume]));
    const herald = mountsOf(heraldContainer(deployment));
    expect(herald.get('data')).toEqual({ mountPath: '/data', readOnly: false });
    expect(herald.get('tmp')).toEqual({ mountPath: '/tmp', readOnly: false });
    expect(herald.get('run')).toEqual({ mountPath: '/run/herald', readOnly: true });
    expect(envValue(heraldContainer(deployment), 'HERALD_DATA_DIR')).toBe('/data');
    expect(mountsOf(configContainer(deployment)).get('run')).toEqual({ mountPath: '/run/herald', readOnly: false });
    // The assembled config holds the app keys: it lives in memory, never on a node's disk.
    expect(volumes.get('run')?.emptyDir?.medium).toBe('Memory');
    expect(volumes.get('tmp')?.emptyDir).toBeDefined();
  });

  it.each(everyDeployment)('%s gives the drain more time than it may take before SIGKILL', (name, deployment) => {
    const role = name.split('/')[1] ?? '';
    const herald = heraldContainer(deployment);
    const pauseCommand = herald.lifecycle?.preStop?.exec?.command ?? [];
    const pauseMs = Number(/setTimeout\(\(\) => \{\}, (\d+)\)/.exec(pauseCommand.join(' '))?.[1] ?? 0);
    const servesApi = role === 'api' || role === 'all';
    // Pods behind the API Service pause first so that endpoints drop them; consumers start their drain at once.
    expect(pauseMs).toBe(servesApi ? 5000 : 0);
    // A sender's drain waits for the gateway requests in hand (push.gateways.requestTimeoutMs, 10 s by default) then leaves its group.
    const drainSeconds = role === 'sender' || role === 'all' ? 10 + 15 : 15;
    expect(podSpec(deployment).terminationGracePeriodSeconds).toBeGreaterThan(pauseMs / 1000 + drainSeconds);
  });

  it.each(everyDeployment)('%s spreads its pods over zones and nodes and has a disruption budget', (name, deployment) => {
    const objects = name.startsWith('trial') ? trial : name.startsWith('production') ? production : autoscaling;
    const selector = deployment.spec?.selector?.matchLabels;
    expect(selector).toMatchObject({ 'app.kubernetes.io/component': name.split('/')[1] });
    expect(podTemplate(deployment).metadata?.labels).toMatchObject(selector ?? {});
    const spreads = podSpec(deployment).topologySpreadConstraints ?? [];
    expect(spreads.map((spread) => spread.topologyKey)).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
    for (const spread of spreads) expect(spread.labelSelector).toEqual({ matchLabels: selector });
    const budget = findObject(objects, 'PodDisruptionBudget', deployment.metadata.name);
    expect(budget.spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: selector } });
  });
});

describe('the API pods', () => {
  it('serve HTTP and gRPC on the ports Herald is told, behind one Service that selects only them', () => {
    const api = deploymentOf(production, 'api');
    const herald = heraldContainer(api);
    expect(herald.ports).toEqual(
      expect.arrayContaining([
        { name: 'http', containerPort: Number(envValue(herald, 'PORT')), protocol: 'TCP' },
        { name: 'grpc', containerPort: Number(envValue(herald, 'HERALD_GRPC_PORT')), protocol: 'TCP' },
      ]),
    );
    const service = findObject(production, 'Service', 'herald') as KubeObject & { spec: { selector: Record<string, string>; ports: unknown[] } };
    expect(service.spec.ports).toEqual([
      { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP', appProtocol: 'http' },
      { name: 'grpc', port: 50051, targetPort: 'grpc', protocol: 'TCP', appProtocol: 'kubernetes.io/h2c' },
    ]);
    for (const [role, deployment] of deploymentsByRole(production)) {
      const labels = podTemplate(deployment).metadata?.labels ?? {};
      const selected = Object.entries(service.spec.selector).every(([key, value]) => labels[key] === value);
      expect(selected, `the API Service selects ${role} pods`).toBe(role === 'api');
    }
    const ingress = findObject(production, 'Ingress', 'herald');
    expect(ingress.spec).toMatchObject({ rules: [{ host: 'accounts.example.com', http: { paths: [{ path: '/1.1', backend: { service: { name: 'herald', port: { name: 'http' } } } }] } }] });
  });

  it('serve no gRPC when its port is null', () => {
    const objects = renderChart({ values: [ciValues.production], set: ['ports.grpc=null'] });
    const herald = heraldContainer(deploymentOf(objects, 'api'));
    expect(envValue(herald, 'HERALD_GRPC_PORT')).toBe('off');
    expect(herald.ports?.map((port) => port.name)).toEqual(['http', 'metrics']);
    expect((findObject(objects, 'Service', 'herald').spec as { ports: { name: string }[] }).ports.map((port) => port.name)).toEqual(['http']);
  });

  it('are only api pods: consumers expose just their internal port', () => {
    for (const role of ['fanout', 'sender', 'scheduler']) {
      expect(heraldContainer(deploymentOf(production, role)).ports?.map((port) => port.name), role).toEqual(['metrics']);
    }
  });
});

describe('secrets', () => {
  it('come from the existing Secret: mounted for the config and the push credentials, and as variables for the backends', () => {
    for (const [role, deployment] of deploymentsByRole(production)) {
      const secretVolume = podSpec(deployment).volumes?.find((volume) => volume.name === 'secret');
      expect(secretVolume?.secret, role).toEqual({ secretName: 'herald-secrets', defaultMode: 0o440 });
      expect(mountsOf(heraldContainer(deployment)).get('secret'), role).toEqual({ mountPath: '/etc/herald/secret', readOnly: true });
      expect(mountsOf(configContainer(deployment)).get('secret'), role).toEqual({ mountPath: '/etc/herald/secret', readOnly: true });
      expect(envValue(configContainer(deployment), 'HERALD_SECRET_NAME')).toBe('herald-secrets');
      const env = envOf(heraldContainer(deployment));
      expect(env.get('HERALD_CASSANDRA_PASSWORD')?.valueFrom, role).toEqual({ secretKeyRef: { name: 'herald-secrets', key: 'cassandra-password' } });
      expect(env.get('HERALD_REDIS_URL')?.valueFrom, role).toEqual({ secretKeyRef: { name: 'herald-secrets', key: 'redis-url' } });
    }
    expect(objectsOfKind(production, 'Secret')).toEqual([]);
  });

  it('come from the chart-made Secret when there is no existing one, with its entries as given', () => {
    const secret = findObject(trial, 'Secret', 'herald');
    expect(secret.stringData).toEqual({ 'app.trial.key': 'trial-app-key-change-me', 'app.trial.masterKey': 'trial-master-key-change-me' });
    const volume = podSpec(deploymentOf(trial, 'all')).volumes?.find((candidate) => candidate.name === 'secret');
    expect(volume?.secret?.secretName).toBe('herald');
  });

  it('are never written into the ConfigMap', () => {
    const configMap = findObject(trial, 'ConfigMap', 'herald') as KubeObject & { data: Record<string, string> };
    expect(configMap.data['herald.json']).not.toContain('trial-app-key-change-me');
    expect(JSON.parse(configMap.data['herald.json'] ?? '')).toEqual({
      publicUrl: 'https://herald-trial.example.com',
      logLevel: 'info',
      apps: [{ id: 'trial', name: 'Trial App', settings: { emailVerification: false } }],
      // The console's settings, no account: accounts and their hashes come from the Secret.
      console: { enabled: true, trustProxy: false, accounts: [] },
    });
  });
});

describe('rolling the pods on a change', () => {
  function checksums(objects: readonly KubeObject[]): Map<string, Record<string, string>> {
    return new Map(
      [...deploymentsByRole(objects)].map(([role, deployment]) => {
        const annotations = podTemplate(deployment).metadata?.annotations ?? {};
        return [role, { config: annotations['checksum/config'] ?? '', secret: annotations['checksum/secret'] ?? '' }];
      }),
    );
  }

  it('changes the config checksum of every Deployment when the config changes, and only then', () => {
    const before = checksums(production);
    const again = checksums(renderChart({ values: [ciValues.production] }));
    const changed = checksums(renderChart({ values: [ciValues.production], set: ['config.logLevel=debug'] }));
    for (const [role, sums] of before) {
      expect(sums.config, role).toMatch(/^[0-9a-f]{64}$/);
      expect(again.get(role), role).toEqual(sums);
      expect(changed.get(role)?.config, role).not.toBe(sums.config);
      expect(changed.get(role)?.secret, role).toBe(sums.secret);
    }
  });

  it('changes the secret checksum when an entry of the chart-made Secret changes', () => {
    const before = checksums(trial).get('all');
    const after = checksums(renderChart({ values: [ciValues.trial], set: ['secret.stringData.app\\.trial\\.key=another-app-key'] })).get('all');
    expect(after?.secret).not.toBe(before?.secret);
    expect(after?.config).toBe(before?.config);
  });
});

describe('the migration Job', () => {
  function hook(object: KubeObject): { events: string[]; weight: number; deletePolicy: string[] } {
    const annotations = object.metadata.annotations ?? {};
    return {
      events: (annotations['helm.sh/hook'] ?? '').split(',').filter(Boolean),
      weight: Number(annotations['helm.sh/hook-weight'] ?? '0'),
      deletePolicy: (annotations['helm.sh/hook-delete-policy'] ?? '').split(',').filter(Boolean),
    };
  }

  it('runs herald migrate before install and upgrade, after the ConfigMap and Secret it reads, before any Deployment', () => {
    const objects = renderChart({ values: [ciValues.production], set: ['secret.existingSecret='], setJson: ['secret.stringData={"app.shop.key":"shop-app-key","app.shop.masterKey":"shop-master-key","app.game.key":"game-app-key","app.game.masterKey":"game-master-key","cassandra-password":"cassandra-secret","redis-url":"redis://:redis-secret@redis-master.redis:6379"}'] });
    const job = findObject(objects, 'Job', 'herald-migration') as RenderedJob;
    const configMap = findObject(objects, 'ConfigMap', 'herald-migration');
    const secret = findObject(objects, 'Secret', 'herald-migration');
    expect(hook(job)).toEqual({ events: ['pre-install', 'pre-upgrade'], weight: 0, deletePolicy: ['before-hook-creation', 'hook-succeeded'] });
    for (const needed of [configMap, secret]) {
      expect(hook(needed).events, needed.kind).toEqual(['pre-install', 'pre-upgrade']);
      expect(hook(needed).weight, needed.kind).toBeLessThan(hook(job).weight);
    }
    // The hook copies hold what the release's own ConfigMap and Secret hold.
    expect(configMap.data).toEqual(findObject(objects, 'ConfigMap', 'herald').data);
    expect(secret.stringData).toEqual(findObject(objects, 'Secret', 'herald').stringData);
    const volumes = new Map((podSpec(job).volumes ?? []).map((volume) => [volume.name, volume]));
    expect(volumes.get('config')?.configMap?.name).toBe('herald-migration');
    expect(volumes.get('secret')?.secret?.secretName).toBe('herald-migration');
    // Deployments are release objects, which helm applies after every pre-install hook has succeeded.
    for (const deployment of objectsOfKind(objects, 'Deployment')) expect(deployment.metadata.annotations?.['helm.sh/hook'], deployment.metadata.name).toBeUndefined();
  });

  it('runs once, as the app, with the backends of the Deployments', () => {
    const job = findObject(production, 'Job', 'herald-migration') as RenderedJob;
    const herald = heraldContainer(job);
    expect(herald.args).toEqual(['migrate']);
    expect(envOf(herald).has('HERALD_ROLE')).toBe(false);
    expect(podSpec(job).restartPolicy).toBe('Never');
    expect(job.spec).toMatchObject({ backoffLimit: 2, activeDeadlineSeconds: 600 });
    // At pre-install the chart's ServiceAccount does not exist yet: the Job has its own, a hook made before it.
    expect(podSpec(job).serviceAccountName).toBe('herald-migration');
    expect(podSpec(job).securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    for (const container of allContainers(job)) expect(container.securityContext?.readOnlyRootFilesystem, container.name).toBe(true);
    const backendVariables = (container: ReturnType<typeof heraldContainer>) =>
      (container.env ?? []).filter((variable) => /^HERALD_(STORE|CASSANDRA|BUS|KAFKA|PUSH_.*PARTITIONS|COORDINATION|REDIS)/.test(variable.name));
    expect(backendVariables(herald)).toEqual(backendVariables(heraldContainer(deploymentOf(production, 'api'))));
    // With an existing Secret no hook copy is made: the Job reads that Secret.
    expect(objectsOfKind(production, 'Secret')).toEqual([]);
    expect(podSpec(job).volumes?.find((volume) => volume.name === 'secret')?.secret?.secretName).toBe('herald-secrets');
  });

  it('is left out on the embedded store, which migrates itself at start', () => {
    expect(objectsOfKind(trial, 'Job')).toEqual([]);
    expect(objectsOfKind(renderChart({ values: [ciValues.production], set: ['migration.enabled=false'] }), 'Job')).toEqual([]);
  });
});

describe('the trial', () => {
  it('keeps its store on a claim that outlives the release, and replaces its one pod rather than running two', () => {
    const all = deploymentOf(trial, 'all');
    expect(all.spec).toMatchObject({ replicas: 1, strategy: { type: 'Recreate' } });
    expect(podSpec(all).volumes?.find((volume) => volume.name === 'data')?.persistentVolumeClaim).toEqual({ claimName: 'herald-data' });
    const claim = findObject(trial, 'PersistentVolumeClaim', 'herald-data');
    expect(claim.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    expect(claim.spec).toMatchObject({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } });
  });

  it('has no backend variables: the embedded store, bus and coordination', () => {
    const names = [...envOf(heraldContainer(deploymentOf(trial, 'all'))).keys()];
    expect(names.filter((name) => /^HERALD_(STORE|CASSANDRA|BUS|KAFKA|COORDINATION|REDIS)/.test(name))).toEqual([]);
  });
});

describe('scaling', () => {
  it('rolls split roles one extra pod at a time, never below the replica count', () => {
    for (const [role, deployment] of deploymentsByRole(production)) {
      expect(deployment.spec?.strategy, role).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    }
    expect(deploymentOf(production, 'api').spec?.replicas).toBe(3);
    expect(deploymentOf(production, 'sender').spec?.replicas).toBe(4);
  });

  it('scales the api on CPU with a HorizontalPodAutoscaler that owns its replica count', () => {
    const hpa = findObject(autoscaling, 'HorizontalPodAutoscaler', 'herald-api');
    expect(hpa.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'herald-api' },
      minReplicas: 3,
      maxReplicas: 20,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 65 } } }],
    });
    expect(deploymentOf(autoscaling, 'api').spec?.replicas).toBeUndefined();
    expect(heraldContainer(deploymentOf(autoscaling, 'api')).resources?.requests?.cpu).toBe('500m');
  });

  it('scales senders with KEDA on the lag of the consumer group and topic Herald uses', () => {
    for (const [objects, prefix] of [
      [autoscaling, ''],
      [renderChart({ values: [ciValues.production], set: ['sender.keda.enabled=true'] }), 'prod.'],
    ] as const) {
      const scaled = findObject(objects, 'ScaledObject', 'herald-sender');
      expect(scaled.spec).toMatchObject({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'herald-sender' } });
      const brokers = envValue(heraldContainer(deploymentOf(objects, 'sender')), 'HERALD_KAFKA_BROKERS');
      expect((scaled.spec as { triggers: unknown[] }).triggers).toEqual([
        {
          type: 'kafka',
          metadata: {
            bootstrapServers: brokers,
            // The sender role's group (src/roles/sender-role.ts) and the tasks topic (src/push/push-topics.ts).
            consumerGroup: `${prefix}herald-sender`,
            topic: pushTopics(prefix).tasks,
            lagThreshold: prefix === '' ? '40' : '50',
            offsetResetPolicy: 'earliest',
            allowIdleConsumers: 'false',
          },
        },
      ]);
      expect(deploymentOf(objects, 'sender').spec?.replicas).toBeUndefined();
    }
  });
});
