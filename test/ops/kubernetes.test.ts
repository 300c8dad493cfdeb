import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig, type Config, type ProcessName } from '../../lib/config.js';
import { generatePrivateKey } from '../../lib/tokens/keys.js';
import { MYSQL_POOL_MAX } from '../../lib/db.js';
import { createLogger } from '../../lib/logger.js';
import { startGateway, type RunningGateway } from '../../gateway/server.js';
import { configKeys, readCompose, ROOT } from './compose-file.js';
import { configMapHash, knownFields, parseEnvFile, renderKustomization, validateObject, type K8sObject } from './kubernetes-render.js';
import { SHUTDOWN_OVERRUN_MS } from '../../lib/process/shutdown.js';
import { allows, type Peer, type Pod } from './network-policies.js';
import { freePort } from '../support/redis-server.js';
import { request } from '../support/http.js';

/**
 * deploy/kubernetes without a cluster: the kustomization rendered (kubernetes-render.ts), every
 * object checked against the Kubernetes schemas (kubernetes-models), and held against the code:
 * the environment of each workload is what lib/config.ts reads, the probes hit real ports and
 * paths, the commands run entrypoints the Dockerfile builds.
 */
const BASE = path.join(ROOT, 'deploy/kubernetes');
const base = renderKustomization(BASE);
const trial = renderKustomization(path.join(BASE, 'trial'));
const exampleSecret = readYamlObjects(path.join(BASE, 'secret.example.yaml'))[0]!;

function readYamlObjects(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => doc.toJS() as K8sObject);
}

interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
  [key: string]: unknown;
}
interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path: string; port: number | string };
  tcpSocket?: { port: number | string };
  exec?: { command: string[] };
  timeoutSeconds?: number;
  [key: string]: unknown;
}
interface PodSpec {
  containers: Container[];
  securityContext?: Record<string, unknown>;
  terminationGracePeriodSeconds?: number;
  [key: string]: unknown;
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

const ofKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
/** The settings ConfigMap, whatever its content hash (kustomize names it ticketing-config-<hash>). */
const CONFIG_MAP = /^ticketing-config-[a-z0-9]{10}$/;
const named = (objects: K8sObject[], kind: string, name: string | RegExp) => {
  const found = objects.find((o) => o.kind === kind && (typeof name === 'string' ? o.metadata.name === name : name.test(o.metadata.name)));
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found;
};
const templateOf = (workload: K8sObject) => (workload.spec as { template: PodTemplate }).template;
const containerOf = (workload: K8sObject) => templateOf(workload).spec.containers[0]!;
/** The Deployments and the migration Job: every workload that runs the image. */
const workloads = (objects: K8sObject[]) => objects.filter((o) => (o.kind === 'Deployment' || o.kind === 'Job') && containerOf(o).image === IMAGE);
const IMAGE = 'ticketing:local';

/** The environment a container of the image sees: its ConfigMaps (envFrom) and its env, secrets from the example Secret. */
function environmentOf(objects: K8sObject[], container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  const secretData = exampleSecret.stringData as Record<string, string>;
  for (const from of container.envFrom ?? []) {
    expect(from.secretRef, 'secrets are taken key by key (env), never whole').toBeUndefined();
    Object.assign(env, named(objects, 'ConfigMap', from.configMapRef!.name).data as Record<string, string>);
  }
  for (const variable of container.env ?? []) {
    const secret = variable.valueFrom?.secretKeyRef;
    const configMap = variable.valueFrom?.configMapKeyRef;
    if (secret) {
      expect(secret.name, `${variable.name}: the Secret secret.example.yaml describes`).toBe(exampleSecret.metadata.name);
      expect(Object.keys(secretData), `${variable.name}: a key of the Secret`).toContain(secret.key);
      env[variable.name] = operatorValue(secret.key, secretData[secret.key]!);
    } else if (configMap) {
      env[variable.name] = (named(objects, 'ConfigMap', configMap.name).data as Record<string, string>)[configMap.key]!;
    } else {
      env[variable.name] = variable.value!;
    }
  }
  return env;
}

/** The example Secret's placeholder for the signing key, as an operator fills it in (a key is checked by its parser). */
const exampleSigningKey = generatePrivateKey();
function operatorValue(key: string, value: string): string {
  return key === 'AUTH_SIGNING_KEY' && value.startsWith('<') ? exampleSigningKey : value;
}

const PROCESSES: Record<string, ProcessName> = { gateway: 'gateway', auth: 'auth', ticket: 'ticket', webhooks: 'webhooks', 'ticketing-migrate': 'migrate' };

function configOf(objects: K8sObject[], workload: K8sObject): Config {
  return loadConfig(environmentOf(objects, containerOf(workload)), PROCESSES[workload.metadata.name]);
}

/** The worker runs as its own Deployment, never inside `npm start`'s one process. AUTH_JWT_SECRET: only an install from before signing keys has it (docs/operations.md, "Upgrading"). */
const NOT_FOR_KUBERNETES = ['WEBHOOK_WORKER_IN_STACK', 'AUTH_JWT_SECRET'];
/**
 * Which secrets each process holds, beyond the ConfigMap everyone gets (issue 21): only the auth
 * service can sign tokens; the gateway has no database credentials; each service has its own
 * database user; the migration Job alone may create users.
 */
const NEEDS: Record<string, { script: string; secrets: string[] }> = {
  gateway: { script: 'dist/gateway/main.js', secrets: ['INTERNAL_API_KEY'] },
  auth: { script: 'dist/services/auth/main.js', secrets: ['AUTH_SIGNING_KEY', 'AUTH_RATE_LIMIT_SECRET', 'INTERNAL_API_KEY', 'AUTH_DATABASE_URL'] },
  ticket: { script: 'dist/services/ticket/main.js', secrets: ['TICKET_DATABASE_URL'] },
  webhooks: { script: 'dist/services/webhooks/worker.js', secrets: ['WEBHOOK_DATABASE_URL'] },
  'ticketing-migrate': { script: 'dist/services/migrate.js', secrets: ['AUTH_DATABASE_URL', 'TICKET_DATABASE_URL', 'WEBHOOK_DATABASE_URL', 'DATABASE_ADMIN_URL'] },
};

describe('deploy/kubernetes', () => {
  it('renders the base and the trial overlay, and every object passes the Kubernetes schema of its kind', () => {
    expect(base.length).toBeGreaterThan(10);
    for (const object of [...trial, exampleSecret]) {
      expect(() => validateObject(object), `${object.kind}/${object.metadata.name}`).not.toThrow();
    }
    // A broken object is refused, so the check above can fail.
    const broken = structuredClone(named(base, 'Deployment', 'gateway')) as K8sObject & { spec: { template: PodTemplate } };
    (broken.spec.template.spec.containers[0]!.ports![0] as { containerPort: unknown }).containerPort = 'http';
    expect(() => validateObject(broken)).toThrow(/containerPort must be integer/);
  });

  it('uses no field the API server does not know (the schema check lets unknown ones through)', () => {
    const fields = {
      deploymentSpec: knownFields('apps/v1/DeploymentSpec', 'IDeploymentSpec'),
      podSpec: knownFields('v1/PodSpec', 'IPodSpec'),
      container: knownFields('v1/Container', 'IContainer'),
      probe: knownFields('v1/Probe', 'IProbe'),
    };
    expect(fields.container.has('readinessProbe')).toBe(true);
    for (const workload of trial.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))) {
      const id = `${workload.kind}/${workload.metadata.name}`;
      if (workload.kind === 'Deployment') for (const key of Object.keys(workload.spec as object)) expect(fields.deploymentSpec.has(key), `${id}: spec.${key}`).toBe(true);
      const pod = templateOf(workload).spec;
      for (const key of Object.keys(pod)) expect(fields.podSpec.has(key), `${id}: pod spec ${key}`).toBe(true);
      for (const container of pod.containers) {
        for (const key of Object.keys(container)) expect(fields.container.has(key), `${id}: container ${key}`).toBe(true);
        for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe].filter(Boolean)) {
          for (const key of Object.keys(probe!)) expect(fields.probe.has(key), `${id}: probe ${key}`).toBe(true);
        }
      }
    }
  });

  it('has Deployments for gateway, auth, ticket and the webhooks worker, a migration Job, the ConfigMap; the Secret is not applied with placeholders', () => {
    expect(ofKind(base, 'Deployment').map((d) => d.metadata.name).sort()).toEqual(['auth', 'gateway', 'ticket', 'webhooks']);
    expect(ofKind(base, 'Job').map((d) => d.metadata.name)).toEqual(['ticketing-migrate']);
    expect(ofKind(base, 'ConfigMap').map((d) => d.metadata.name)).toEqual([expect.stringMatching(CONFIG_MAP)]);
    expect(ofKind(base, 'Secret')).toEqual([]);
    expect(ofKind(base, 'StatefulSet')).toEqual([]);
    expect(exampleSecret.kind).toBe('Secret');
    // Deployments select their own pods.
    for (const deployment of ofKind(base, 'Deployment')) {
      const selector = (deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      expect(templateOf(deployment).metadata.labels, deployment.metadata.name).toMatchObject(selector);
    }
  });

  it('sets in each workload only settings lib/config.ts reads, every one of them, and the secrets it needs; production config loads', () => {
    const keys = configKeys();
    for (const workload of workloads(base)) {
      const name = workload.metadata.name;
      const container = containerOf(workload);
      const env = environmentOf(base, container);
      expect(Object.keys(env).filter((key) => !keys.includes(key)), `${name}: variables lib/config.ts does not read (typos?)`).toEqual([]);
      // Every setting but the secrets this process has no use for (each gets only its own).
      const withheld = Object.keys(exampleSecret.stringData as object);
      expect(keys.filter((key) => !(key in env) && !NOT_FOR_KUBERNETES.includes(key) && !withheld.includes(key)), `${name}: settings not passed on`).toEqual([]);
      const secrets = (container.env ?? []).filter((v) => v.valueFrom?.secretKeyRef).map((v) => v.name).sort();
      expect(secrets, `${name}: exactly the secrets it needs`).toEqual([...NEEDS[name]!.secrets].sort());
      const config = configOf(base, workload);
      expect(config.NODE_ENV).toBe('production');
      // Each database URL is its service's own user, the admin URL the Job's alone.
      const users = { AUTH_DATABASE_URL: 'ticketing_auth', TICKET_DATABASE_URL: 'ticketing_tickets', WEBHOOK_DATABASE_URL: 'ticketing_webhooks', DATABASE_ADMIN_URL: 'root' } as const;
      for (const [key, user] of Object.entries(users)) {
        const url = config[key as keyof typeof users];
        if (url) expect(new URL(url.replace(/<[^>]+>/, 'x')).username, `${name} ${key}`).toBe(user);
      }
      expect(config.BIND_HOST, `${name} listens on the pod's addresses`).toBe('0.0.0.0');
    }
    // The ConfigMap and the Secret between them hold every setting.
    const configMap = named(base, 'ConfigMap', CONFIG_MAP).data as Record<string, string>;
    const secret = exampleSecret.stringData as Record<string, string>;
    expect(keys.filter((key) => !(key in configMap) && !(key in secret) && !NOT_FOR_KUBERNETES.includes(key))).toEqual([]);
    expect(Object.keys(configMap).filter((key) => key in secret), 'a secret in the ConfigMap').toEqual([]);
    // Every key of the example Secret is used by some workload.
    const used = new Set(workloads(base).flatMap((w) => (containerOf(w).env ?? []).map((v) => v.valueFrom?.secretKeyRef?.key)));
    expect(Object.keys(exampleSecret.stringData as object).filter((key) => !used.has(key))).toEqual([]);
  });

  it('runs entrypoints the Dockerfile builds, from the image docker compose builds, as in compose', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const copied = [...dockerfile.matchAll(/^COPY (\S+) \.\/\1$/gm)].map((m) => m[1]!);
    expect(readCompose().services.gateway!.image).toContain(IMAGE);
    for (const workload of workloads(base)) {
      const name = workload.metadata.name;
      const command = containerOf(workload).command!;
      expect(command, name).toEqual(['node', NEEDS[name]!.script]);
      const source = command[1]!.replace(/^dist\//, '').replace(/\.js$/, '.ts');
      expect(existsSync(path.join(ROOT, source)), `${name}: ${source}`).toBe(true);
      expect(copied, `${name}: the Dockerfile copies ${source.split('/')[0]} into the build`).toContain(source.split('/')[0]);
    }
  });

  it('probes the real ports: native gRPC readiness on the services, /readyz and /livez on the gateway port, within their deadlines', () => {
    for (const [name, portOf] of [
      ['auth', (c: Config) => c.AUTH_GRPC_PORT],
      ['ticket', (c: Config) => c.TICKET_GRPC_PORT],
    ] as const) {
      const deployment = named(base, 'Deployment', name);
      const port = portOf(configOf(base, deployment));
      const container = containerOf(deployment);
      expect(container.ports).toContainEqual({ name: 'grpc', containerPort: port });
      expect(container.readinessProbe!.grpc, name).toEqual({ port });
      expect(container.startupProbe!.grpc, name).toEqual({ port });
      // Liveness: the port answers (gRPC health is NOT_SERVING during a database outage: not a reason to restart).
      expect(container.livenessProbe!.tcpSocket, name).toEqual({ port });
    }
    const gateway = named(base, 'Deployment', 'gateway');
    const container = containerOf(gateway);
    expect(container.ports).toContainEqual({ name: 'http', containerPort: configOf(base, gateway).PORT });
    expect(container.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.livenessProbe!.httpGet).toEqual({ path: '/livez', port: 'http' });
    // Every process serves Prometheus /metrics on the configured port, announced to Prometheus.
    for (const name of ['auth', 'ticket', 'gateway', 'webhooks']) {
      const deployment = named(base, 'Deployment', name);
      const metricsPort = Number(configOf(base, deployment).METRICS_PORT);
      expect(containerOf(deployment).ports, name).toContainEqual({ name: 'metrics', containerPort: metricsPort });
      expect(templateOf(deployment).metadata.annotations, name).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(metricsPort) });
    }
    // The webhooks worker serves nothing else: alive while its delivery rounds reach the database, as in compose.
    const worker = containerOf(named(base, 'Deployment', 'webhooks'));
    expect(worker.ports).toHaveLength(1);
    expect(worker.livenessProbe!.exec!.command).toEqual(['node', 'dist/services/healthcheck.js', 'webhooks']);
    expect(readCompose().services.webhooks!.healthcheck!.test).toEqual(['CMD', 'ticketing-secrets', ...worker.livenessProbe!.exec!.command]);
  });

  it('headless Services for auth and ticket are what AUTH_GRPC_ADDRESS / TICKET_GRPC_ADDRESS resolve; a ClusterIP Service for the gateway', () => {
    const gatewayConfig = configOf(base, named(base, 'Deployment', 'gateway'));
    const ticketConfig = configOf(base, named(base, 'Deployment', 'ticket'));
    for (const [name, address, port] of [
      ['auth', gatewayConfig.authGrpcAddress, gatewayConfig.AUTH_GRPC_PORT],
      ['auth', ticketConfig.authGrpcAddress, gatewayConfig.AUTH_GRPC_PORT],
      ['ticket', gatewayConfig.ticketGrpcAddress, gatewayConfig.TICKET_GRPC_PORT],
    ] as const) {
      const match = /^dns:\/\/\/([^:]+):(\d+)$/.exec(address);
      expect(match, `${address}: a dns:/// target, balanced over every pod`).not.toBeNull();
      const service = named(base, 'Service', match![1]!);
      const spec = service.spec as { clusterIP?: string; selector: Record<string, string>; ports: Array<{ port: number; targetPort: string }> };
      expect(spec.clusterIP, `${service.metadata.name} is headless`).toBe('None');
      expect(spec.ports).toEqual([{ name: 'grpc', port: Number(match![2]), targetPort: 'grpc' }]);
      expect(Number(match![2])).toBe(port);
      expect(templateOf(named(base, 'Deployment', name)).metadata.labels).toMatchObject(spec.selector);
    }
    const service = named(base, 'Service', 'gateway').spec as { clusterIP?: string; type: string; selector: Record<string, string>; ports: Array<{ targetPort: string }> };
    expect(service.type).toBe('ClusterIP');
    expect(service.clusterIP).toBeUndefined();
    expect(service.ports.map((p) => p.targetPort)).toEqual(['http']);
    expect(templateOf(named(base, 'Deployment', 'gateway')).metadata.labels).toMatchObject(service.selector);
    // Reached through an Ingress only: the client address is the one it forwards (per-address rate limits).
    expect(gatewayConfig.TRUST_PROXY).toBe('1');
  });

  it('each Deployment has a PodDisruptionBudget over its pods and a HorizontalPodAutoscaler of at least 2 replicas', () => {
    for (const deployment of ofKind(base, 'Deployment')) {
      const name = deployment.metadata.name;
      const labels = templateOf(deployment).metadata.labels;
      const pdbs = ofKind(base, 'PodDisruptionBudget').filter((p) => {
        const match = (p.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
        return Object.entries(match).every(([k, v]) => labels[k] === v);
      });
      expect(pdbs.length, `${name}: one PDB`).toBe(1);
      const hpas = ofKind(base, 'HorizontalPodAutoscaler').filter((h) => (h.spec as { scaleTargetRef: { kind: string; name: string } }).scaleTargetRef.name === name);
      expect(hpas.length, `${name}: one HPA`).toBe(1);
      const spec = hpas[0]!.spec as { minReplicas: number; maxReplicas: number; scaleTargetRef: { kind: string; apiVersion: string } };
      expect(spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', apiVersion: 'apps/v1' });
      expect(spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(spec.maxReplicas).toBeGreaterThan(spec.minReplicas);
    }
  });

  it('runs every container non-root, read-only root filesystem (the image), no privilege escalation, with requests and limits', () => {
    for (const workload of trial.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))) {
      const id = `${workload.kind}/${workload.metadata.name}`;
      const pod = templateOf(workload).spec;
      expect(pod.securityContext?.runAsNonRoot, id).toBe(true);
      expect(pod.automountServiceAccountToken, id).toBe(false);
      for (const container of pod.containers) {
        expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
        // MySQL writes its socket and pid outside the volume: the one exception.
        if (container.image !== 'mysql:8.4') expect(container.securityContext!.readOnlyRootFilesystem, id).toBe(true);
        for (const what of ['requests', 'limits'] as const) {
          expect(container.resources?.[what], `${id} ${what}`).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
        }
      }
    }
  });

  it('leaves the replica count to the HorizontalPodAutoscaler: no replicas: where one scales the Deployment', () => {
    const scaled = new Set(ofKind(base, 'HorizontalPodAutoscaler').map((h) => (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name));
    expect(scaled.size).toBeGreaterThan(0);
    for (const deployment of ofKind(base, 'Deployment').filter((d) => scaled.has(d.metadata.name))) {
      expect((deployment.spec as { replicas?: number }).replicas, `${deployment.metadata.name}: an apply would reset the autoscaled count`).toBeUndefined();
    }
  });

  it('names the ConfigMap after its content (kustomize configMapGenerator), so a changed setting changes every pod template that reads it', () => {
    // kustomize's own test vector (api/hasher/hasher_test.go, "one key").
    expect(configMapHash('', { one: '' })).toBe('9g67k2htb6');
    const configMap = named(base, 'ConfigMap', CONFIG_MAP);
    expect(configMap.data).toEqual(parseEnvFile(readFileSync(path.join(BASE, 'config.env'), 'utf8')));
    for (const workload of workloads(base)) {
      expect(containerOf(workload).envFrom, workload.metadata.name).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
    }
    // The same manifests with one setting changed: every workload's pod template differs.
    const copy = mkdtempSync(path.join(tmpdir(), 'k8s-'));
    try {
      cpSync(BASE, copy, { recursive: true });
      const env = readFileSync(path.join(copy, 'config.env'), 'utf8');
      expect(env).toMatch(/^LOG_LEVEL=info$/m);
      writeFileSync(path.join(copy, 'config.env'), env.replace(/^LOG_LEVEL=info$/m, 'LOG_LEVEL=debug'));
      const changed = renderKustomization(copy);
      for (const workload of workloads(base)) {
        const after = changed.find((o) => o.kind === workload.kind && o.metadata.name === workload.metadata.name)!;
        expect(JSON.stringify(templateOf(after)), `${workload.metadata.name} rolls`).not.toEqual(JSON.stringify(templateOf(workload)));
        expect(configOf(changed, after).LOG_LEVEL).toBe('debug');
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('gives every pod a grace period covering preStop, the drain and the shutdown overrun, plus margin; the serving ones a preStop pause', () => {
    const MARGIN_MS = 5000;
    for (const deployment of ofKind(base, 'Deployment')) {
      const name = deployment.metadata.name;
      const preStop = (containerOf(deployment).lifecycle as { preStop?: { exec: { command: string[] } } } | undefined)?.preStop;
      const serves = (containerOf(deployment).ports ?? []).some((p) => p.name !== 'metrics');
      // A pod that takes traffic keeps serving while the endpoints forget it.
      if (serves) expect(preStop?.exec.command, `${name}: preStop`).toEqual(['sleep', expect.stringMatching(/^\d+$/)]);
      const preStopMs = preStop ? Number(preStop.exec.command[1]) * 1000 : 0;
      if (serves) expect(preStopMs, name).toBeGreaterThanOrEqual(3000);
      const needed = preStopMs + configOf(base, deployment).SHUTDOWN_GRACE_MS + SHUTDOWN_OVERRUN_MS + MARGIN_MS;
      expect(templateOf(deployment).spec.terminationGracePeriodSeconds! * 1000, `${name}: SIGKILL only after all of it`).toBeGreaterThanOrEqual(needed);
    }
  });

  it('NetworkPolicies: default deny; auth from the gateway and the ticket service only; ticket from the gateway and labelled callers; metrics from monitoring; the worker out to the internet only; DNS', () => {
    const policies = ofKind(trial, 'NetworkPolicy');
    const NS = 'ticketing';
    const podOf = (name: string): Pod => {
      const workload = workloads(trial).find((w) => w.metadata.name === name || templateOf(w).metadata.labels['app.kubernetes.io/name'] === name)!;
      const ports = Object.fromEntries((containerOf(workload).ports ?? []).map((p) => [p.name!, p.containerPort]));
      return { namespace: NS, labels: templateOf(workload).metadata.labels, ports };
    };
    const [gateway, auth, ticket, webhooks, migrate] = ['gateway', 'auth', 'ticket', 'webhooks', 'migrate'].map(podOf) as [Pod, Pod, Pod, Pod, Pod];
    const stranger: Pod = { namespace: NS, labels: { app: 'something-else' } };
    const ticketClient: Pod = { namespace: NS, labels: { app: 'reports', 'ticketing/ticket-client': 'true' } };
    const prometheus: Pod = { namespace: 'monitoring', labels: { app: 'prometheus' } };
    const elsewhere: Pod = { namespace: 'default', labels: { app: 'prometheus' } };
    const kubeDns: Pod = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };
    const mysql: Pod = { namespace: NS, labels: { 'app.kubernetes.io/name': 'mysql' } };
    const redis: Pod = { namespace: NS, labels: { 'app.kubernetes.io/name': 'redis' } };
    const may = (from: Peer, to: Peer, port: number, protocol?: string) => allows(policies, NS, from, to, port, protocol);
    const [AUTH, TICKET, HTTP, METRICS] = [50052, 50051, 8080, 9464];

    // Default deny: a pod no other policy names gets nothing and reaches nothing but DNS.
    const ingressController: Pod = { namespace: 'ingress-nginx', labels: { 'app.kubernetes.io/name': 'ingress-nginx' } };
    expect(may(ingressController, gateway, HTTP), 'the public entry point').toBe(true);
    expect(may(ingressController, auth, AUTH)).toBe(false);
    expect(may(stranger, gateway, HTTP), 'its own egress is denied').toBe(false);
    expect(may(stranger, auth, AUTH)).toBe(false);
    expect(may(stranger, { ip: '93.184.216.34' }, 443)).toBe(false);
    expect(may(stranger, kubeDns, 53, 'UDP')).toBe(true);
    for (const pod of [gateway, auth, ticket, webhooks, migrate]) {
      expect(may(pod, kubeDns, 53, 'UDP')).toBe(true);
      expect(may(pod, kubeDns, 53, 'TCP')).toBe(true);
    }
    // auth: the gateway and the ticket service only.
    expect(may(gateway, auth, AUTH)).toBe(true);
    expect(may(ticket, auth, AUTH)).toBe(true);
    for (const caller of [webhooks, migrate, ticketClient, stranger, prometheus]) expect(may(caller, auth, AUTH)).toBe(false);
    // ticket: the gateway and pods labelled ticketing/ticket-client=true.
    expect(may(gateway, ticket, TICKET)).toBe(true);
    expect(may(ticketClient, ticket, TICKET)).toBe(true);
    for (const caller of [auth, webhooks, migrate, stranger, prometheus]) expect(may(caller, ticket, TICKET)).toBe(false);
    // Metrics: from the monitoring namespace only, on the metrics port only.
    for (const pod of [gateway, auth, ticket, webhooks]) {
      expect(may(prometheus, pod, METRICS)).toBe(true);
      expect(may(elsewhere, pod, METRICS)).toBe(false);
      expect(may(stranger, pod, METRICS)).toBe(false);
    }
    expect(may(prometheus, auth, AUTH)).toBe(false);
    // The webhook worker: public addresses on any port, never the cluster, private networks or the metadata service.
    for (const ip of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111']) expect(may(webhooks, { ip }, 443), ip).toBe(true);
    for (const ip of ['10.96.0.1', '10.244.1.7', '172.17.0.2', '192.168.1.1', '169.254.169.254', '127.0.0.1', '100.64.0.1', 'fd00:ec2::254', 'fe80::1', '::1']) {
      expect(may(webhooks, { ip }, 443), ip).toBe(false);
      expect(may(webhooks, { ip }, 80), ip).toBe(false);
    }
    expect(may(webhooks, auth, AUTH)).toBe(false);
    expect(may(webhooks, ticket, TICKET)).toBe(false);
    expect(may(webhooks, gateway, HTTP)).toBe(false);
    // Nothing else dials out to the internet.
    for (const pod of [gateway, auth, ticket, migrate]) expect(may(pod, { ip: '93.184.216.34' }, 443)).toBe(false);
    // The trial's database and Redis: from the processes that use them.
    for (const pod of [auth, ticket, webhooks, migrate]) expect(may(pod, mysql, 3306)).toBe(true);
    expect(may(gateway, mysql, 3306)).toBe(false);
    for (const pod of [gateway, auth]) expect(may(pod, redis, 6379)).toBe(true);
    for (const pod of [ticket, webhooks]) expect(may(pod, redis, 6379)).toBe(false);
  });

  it('the trial overlay adds MySQL and Redis under the names the URLs use; the migration Job creates the services\' users on it as root', () => {
    const added = trial.filter((o) => !base.some((b) => b.kind === o.kind && b.metadata.name === o.metadata.name));
    expect(added.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(['NetworkPolicy/mysql', 'NetworkPolicy/redis', 'Service/mysql', 'Service/redis', 'StatefulSet/mysql', 'StatefulSet/redis']);
    const migrate = configOf(trial, named(trial, 'Job', 'ticketing-migrate'));
    const auth = configOf(trial, named(trial, 'Deployment', 'auth'));
    const hostOf = (url: string) => new URL(url.replace(/<[^>]+>/, 'x')).host;
    for (const url of [migrate.AUTH_DATABASE_URL!, migrate.TICKET_DATABASE_URL!, migrate.WEBHOOK_DATABASE_URL!, migrate.DATABASE_ADMIN_URL!]) expect(hostOf(url)).toBe(`mysql:${(named(trial, 'Service', 'mysql').spec as { ports: Array<{ port: number }> }).ports[0]!.port}`);
    expect(hostOf(auth.REDIS_URL!)).toBe(`redis:${(named(trial, 'Service', 'redis').spec as { ports: Array<{ port: number }> }).ports[0]!.port}`);
    const mysql = containerOf(named(trial, 'StatefulSet', 'mysql'));
    expect(mysql.env!.map((v) => v.name), 'the image makes its root account only').toEqual(['MYSQL_ROOT_PASSWORD']);
    expect(new URL(migrate.DATABASE_ADMIN_URL!.replace(/<[^>]+>/, 'x')).username).toBe('root');
    // Every pool at the autoscalers' maxima fits, with room for the migrations and an operator.
    const maxReplicas = (name: string) =>
      (ofKind(trial, 'HorizontalPodAutoscaler').map((h) => h.spec as { scaleTargetRef: { name: string }; maxReplicas: number }).find((h) => h.scaleTargetRef.name === name)!).maxReplicas;
    const withDatabase = ofKind(trial, 'Deployment').filter((d) => Object.values(configOf(trial, d)).some((v) => typeof v === 'string' && v.startsWith('mysql:')));
    expect(withDatabase.map((d) => d.metadata.name).sort()).toEqual(['auth', 'ticket', 'webhooks']);
    const pools = withDatabase.reduce((sum, d) => sum + maxReplicas(d.metadata.name) * MYSQL_POOL_MAX, 0);
    const maxConnections = Number(/^--max-connections=(\d+)$/.exec(mysql.args!.find((a) => a.startsWith('--max-connections='))!)![1]);
    expect(pools + 2 * MYSQL_POOL_MAX).toBeLessThanOrEqual(maxConnections);
  });
});

describe('the gateway probes Kubernetes uses', () => {
  let gateway: RunningGateway;
  let baseUrl: string;
  beforeAll(async () => {
    // The gateway Deployment's own settings, with nothing behind the backend addresses.
    const env = environmentOf(base, containerOf(named(base, 'Deployment', 'gateway')));
    const config = loadConfig({ ...env, PORT: '0', BIND_HOST: '127.0.0.1', LOG_LEVEL: 'silent', AUTH_GRPC_ADDRESS: `127.0.0.1:${await freePort()}`, TICKET_GRPC_ADDRESS: `127.0.0.1:${await freePort()}` });
    gateway = await startGateway(config, createLogger('test', 'silent'));
    baseUrl = `http://127.0.0.1:${gateway.port}`;
  });
  afterAll(async () => gateway?.shutdown(1000));

  it('liveness and readiness answer 200 while the backends are down: the gateway stays in the Service and answers 503 + Retry-After itself', async () => {
    const container = containerOf(named(base, 'Deployment', 'gateway'));
    expect((await request(`${baseUrl}${container.livenessProbe!.httpGet!.path}`)).status).toBe(200);
    expect((await request(`${baseUrl}${container.readinessProbe!.httpGet!.path}`)).status).toBe(200);
    const answer = await request(`${baseUrl}/event`, { headers: { authorization: 'Bearer x' } });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
