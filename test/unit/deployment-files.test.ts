// The deployment files (deploy/kubernetes, compose.yaml, compose.cluster.yaml) are read by tools
// this suite cannot run (a cluster, a Docker daemon): they are checked offline instead. Each
// Kubernetes object against the API's schema (kubernetes-models); the references between objects
// that no schema sees (selectors, probe ports, the autoscaler's target, the secret's keys); every
// variable they set is one Sello reads (a misspelt name is silently ignored by a running pod); and
// the compose files through `docker-compose config`, which parses them as Compose would.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const K8S = join(ROOT, 'deploy', 'kubernetes');

type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [k: string]: unknown };
type Container = {
  name: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
};
type Probe = { httpGet?: { path: string; port: string | number } };
type PodTemplate = { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } };

const VALIDATORS: Record<string, (o: Obj) => void> = {
  'apps/v1/Deployment': (o) => new Deployment(o as never).validate(),
  'v1/Service': (o) => new Service(o as never).validate(),
  'v1/ConfigMap': (o) => new ConfigMap(o as never).validate(),
  'v1/Secret': (o) => new Secret(o as never).validate(),
  'autoscaling/v2/HorizontalPodAutoscaler': (o) => new HorizontalPodAutoscaler(o as never).validate(),
  'policy/v1/PodDisruptionBudget': (o) => new PodDisruptionBudget(o as never).validate(),
};

function objectsOf(file: string): Obj[] {
  return parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).map((d) => {
    expect(d.errors, file).toEqual([]);
    return d.toJS() as Obj;
  });
}

const kustomization = parse(readFileSync(join(K8S, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
const applied = kustomization.resources.flatMap(objectsOf);
const secretExample = objectsOf('secret.example.yaml');
const all = [...applied, ...secretExample];
const byKind = (kind: string) => applied.filter((o) => o.kind === kind);
const named = (kind: string, name: string) => {
  const found = applied.find((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toBeDefined();
  return found as Obj;
};
const podTemplate = (d: Obj) => (d.spec as { template: PodTemplate }).template;

/** Every variable name src/config*.ts reads: the settings a pod or container may set. */
function variablesSelloReads(): Set<string> {
  const names = new Set<string>();
  for (const file of readdirSync(join(ROOT, 'src')).filter((f) => /^config.*\.ts$/.test(f))) {
    for (const m of readFileSync(join(ROOT, 'src', file), 'utf8').matchAll(/\b(SELLO_[A-Z0-9_]*[A-Z0-9]|DATABASE_URL|HOST|PORT)\b/g)) {
      names.add(m[1]);
    }
  }
  return names;
}

describe('the Kubernetes deployment', () => {
  it('lists every manifest of its folder but the secret example, and each object is valid for its API', () => {
    const files = readdirSync(K8S).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== 'secret.example.yaml').sort());
    for (const o of all) {
      const validate = VALIDATORS[`${o.apiVersion}/${o.kind}`];
      expect(validate, `a validator for ${o.apiVersion} ${o.kind}`).toBeDefined();
      expect(() => validate(o), `${o.kind} ${o.metadata.name}`).not.toThrow();
    }
    // The check itself: a wrong type is refused.
    const broken = structuredClone(named('Deployment', 'sello-api'));
    (podTemplate(broken).spec.containers[0].ports as { containerPort: unknown }[])[0].containerPort = 'http';
    expect(() => VALIDATORS['apps/v1/Deployment'](broken)).toThrow(/containerPort must be integer/);
  });

  it('runs `sello api` and `sello worker`, each probed on a port it listens on', () => {
    const main = readFileSync(join(ROOT, 'src', 'main.ts'), 'utf8');
    const commands = { 'sello-api': 'api', 'sello-worker': 'worker' } as const;
    for (const [name, command] of Object.entries(commands)) {
      const deployment = named('Deployment', name);
      const template = podTemplate(deployment);
      // The selector picks exactly this template's pods.
      const selector = (deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      expect(template.metadata.labels).toMatchObject(selector);
      const [container] = template.spec.containers;
      // The image's entrypoint is `node bin/sello.js`: the command is the argument.
      expect(container.args).toEqual([command]);
      expect(main).toMatch(new RegExp(`^\\s+${command}\\b.*\\n`, 'm'));
      const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
      const ports = new Map((container.ports ?? []).map((p) => [p.name, p.containerPort]));
      const probes = [container.readinessProbe, container.livenessProbe, container.startupProbe].filter((p) => p !== undefined);
      expect(container.livenessProbe, `${name} liveness`).toBeDefined();
      for (const probe of probes) {
        expect(probe.httpGet?.path).toBe('/healthz');
        const port = ports.get(String(probe.httpGet?.port));
        expect(port, `${name}: probe port ${probe.httpGet?.port}`).toBeDefined();
        // The port the process listens on: PORT for the API, the health listener for the worker.
        expect(String(port)).toBe(command === 'api' ? env.PORT : env.SELLO_WORKER_HEALTH_PORT);
      }
      expect(container.envFrom).toEqual([{ configMapRef: { name: 'sello' } }, { secretRef: { name: 'sello' } }]);
      expect(container.resources?.requests?.cpu).toBeDefined();
      expect(container.resources?.requests?.memory).toBeDefined();
      expect(container.resources?.limits?.memory).toBeDefined();
    }
    // Only the API is behind the Service and the readiness gate.
    expect(podTemplate(named('Deployment', 'sello-api')).spec.containers[0].readinessProbe).toBeDefined();
  });

  it('routes the Service, the autoscaler and the disruption budgets to the pods they mean', () => {
    const apiLabels = podTemplate(named('Deployment', 'sello-api')).metadata.labels;
    const workerLabels = podTemplate(named('Deployment', 'sello-worker')).metadata.labels;
    const service = named('Service', 'sello-api').spec as { selector: Record<string, string>; ports: { targetPort: string }[] };
    expect(apiLabels).toMatchObject(service.selector);
    expect(workerLabels).not.toMatchObject(service.selector);
    const apiPorts = podTemplate(named('Deployment', 'sello-api')).spec.containers[0].ports?.map((p) => p.name);
    for (const p of service.ports) {
      expect(apiPorts).toContain(p.targetPort);
    }
    const hpa = named('HorizontalPodAutoscaler', 'sello-api').spec as {
      scaleTargetRef: { kind: string; name: string };
      metrics: { resource: { name: string } }[];
    };
    expect(hpa.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'sello-api' });
    expect(hpa.metrics.map((m) => m.resource.name)).toEqual(['cpu']);
    const budgets = byKind('PodDisruptionBudget').map(
      (b) => (b.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels,
    );
    expect(budgets.filter((s) => Object.entries(s).every(([k, v]) => apiLabels[k] === v))).toHaveLength(1);
    expect(budgets.filter((s) => Object.entries(s).every(([k, v]) => workerLabels[k] === v))).toHaveLength(1);
  });

  it('sets only variables Sello reads, the secret ones in the secret', () => {
    const known = variablesSelloReads();
    const configMap = named('ConfigMap', 'sello').data as Record<string, string>;
    const secret = (secretExample.find((o) => o.kind === 'Secret') as Obj).stringData as Record<string, string>;
    const set = [
      ...Object.keys(configMap),
      ...Object.keys(secret),
      ...byKind('Deployment').flatMap((d) => podTemplate(d).spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.name))),
    ];
    expect(set.filter((n) => !known.has(n))).toEqual([]);
    expect(Object.keys(secret).sort()).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'SELLO_MASTER_KEY', 'SELLO_S3_ACCESS_KEY_ID', 'SELLO_S3_SECRET_ACCESS_KEY']),
    );
    // Secrets never in the ConfigMap, which anyone who can read the namespace's settings sees.
    expect(Object.keys(configMap).filter((n) => /MASTER_KEY|SECRET|PASSWORD|DATABASE_URL|SMTP_URL/.test(n))).toEqual([]);
    // The values as well as the names: Sello starts with them (the secret's placeholders replaced).
    const config = loadConfig({
      ...configMap,
      ...secret,
      SELLO_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
      SELLO_DATA_DIR: '/var/lib/sello',
    });
    expect(config.blobs).toMatchObject({ kind: 's3' });
    // The check itself: a misspelt name is caught.
    expect(known.has('SELLO_S3_BUKET')).toBe(false);
  });
});

describe('the compose files', () => {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    SELLO_MASTER_KEY: 'k',
    SELLO_PUBLIC_URL: 'https://sign.example.com',
    POSTGRES_PASSWORD: 'p',
    MINIO_ROOT_USER: 'u',
    MINIO_ROOT_PASSWORD: 'm',
  };
  type Services = Record<string, { command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, unknown> }>;
  const config = (file: string) =>
    parse(
      execFileSync('docker-compose', ['-f', join(ROOT, file), 'config'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    ) as {
      services: Services;
    };

  it('compose.yaml: one process beside PostgreSQL', () => {
    // Its top-level `name` (which keeps existing deployments' volume names) is newer than
    // Debian's docker-compose 1.29: checked here, and the rest given to docker-compose.
    const { name, ...rest } = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as { name: string };
    expect(name).toBe('sello');
    const out = execFileSync('docker-compose', ['-f', '-', 'config'], { cwd: ROOT, env, input: JSON.stringify(rest), encoding: 'utf8' });
    const { services } = parse(out) as { services: Services };
    expect(Object.keys(services).sort()).toEqual(['postgres', 'sello']);
    expect(Object.keys(services.sello.environment ?? {}).filter((n) => !variablesSelloReads().has(n))).toEqual([]);
  });

  it('compose.cluster.yaml: two API processes and a worker on PostgreSQL and the object store, each setting what Sello reads', () => {
    const { services } = config('compose.cluster.yaml');
    expect(Object.keys(services).sort()).toEqual(['api-1', 'api-2', 'bucket', 'minio', 'postgres', 'worker']);
    const known = variablesSelloReads();
    for (const [name, command] of [
      ['api-1', 'api'],
      ['api-2', 'api'],
      ['worker', 'worker'],
    ] as const) {
      const s = services[name];
      expect(s.command).toEqual([command]);
      expect(Object.keys(s.depends_on ?? {}).sort()).toEqual(['bucket', 'postgres']);
      const vars = s.environment ?? {};
      expect(Object.keys(vars).filter((n) => !known.has(n))).toEqual([]);
      expect(vars).toMatchObject({ SELLO_BLOB_STORE: 's3', SELLO_S3_BUCKET: 'sello', SELLO_MASTER_KEY: 'k' });
    }
    expect(services.worker.environment?.SELLO_WORKER_HEALTH_PORT).toBe('3001');
  });

  it('refuses to start without the master key', () => {
    const { SELLO_MASTER_KEY: _omitted, ...without } = env;
    expect(() =>
      execFileSync('docker-compose', ['-f', join(ROOT, 'compose.cluster.yaml'), 'config', '-q'], { env: without, stdio: 'pipe' }),
    ).toThrow(/SELLO_MASTER_KEY/);
  });
});
