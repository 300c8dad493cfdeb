import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';

/**
 * Renders a kustomization the way `kustomize build` does for the subset deploy/kubernetes uses:
 * `resources:` (files of YAML documents, or directories with their own kustomization.yaml,
 * in order) and `configMapGenerator:` (envs files and options.labels; the name gets kustomize's
 * content hash and every reference to it is rewritten). Any other field is refused, so the
 * manifests cannot grow a feature this renderer would silently skip.
 */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'configMapGenerator']);
const SUPPORTED_GENERATOR = new Set(['name', 'envs', 'options']);

interface ConfigMapGenerator {
  name: string;
  envs?: string[];
  options?: { labels?: Record<string, string> };
}

function parseFile(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS();
  }).filter((value) => value !== null);
}

export function renderKustomization(dir: string): K8sObject[] {
  const [kustomization] = parseFile(path.join(dir, 'kustomization.yaml')) as Array<Record<string, unknown>>;
  if (!kustomization || kustomization.kind !== 'Kustomization') throw new Error(`${dir}: not a Kustomization`);
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length) throw new Error(`${dir}/kustomization.yaml: ${unsupported.join(', ')} not rendered by this test; keep to resources:`);
  const objects: K8sObject[] = [];
  for (const resource of (kustomization.resources ?? []) as string[]) {
    const target = path.resolve(dir, resource);
    if (statSync(target).isDirectory()) objects.push(...renderKustomization(target));
    else objects.push(...(parseFile(target) as K8sObject[]));
  }
  const renamed = new Map<string, string>();
  for (const generator of (kustomization.configMapGenerator ?? []) as ConfigMapGenerator[]) {
    const configMap = generateConfigMap(dir, generator);
    renamed.set(generator.name, configMap.metadata.name);
    objects.push(configMap);
  }
  for (const object of objects) renameConfigMapReferences(object, renamed);
  const seen = new Set<string>();
  for (const object of objects) {
    const id = `${object.kind}/${object.metadata?.name}`;
    if (seen.has(id)) throw new Error(`${dir}: ${id} twice`);
    seen.add(id);
  }
  return objects;
}

/** An env file as kustomize reads it: KEY=VALUE lines, the value as is (no unquoting); blank and # lines skipped. */
export function parseEnvFile(text: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trimStart())) {
    if (!line || line.startsWith('#')) continue;
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`env file line without KEY=: ${JSON.stringify(line)}`);
    data[line.slice(0, at)] = line.slice(at + 1);
  }
  return data;
}

function generateConfigMap(dir: string, generator: ConfigMapGenerator): K8sObject {
  const unsupported = Object.keys(generator).filter((key) => !SUPPORTED_GENERATOR.has(key));
  const optionKeys = Object.keys(generator.options ?? {}).filter((key) => key !== 'labels');
  if (unsupported.length || optionKeys.length) throw new Error(`${dir}: configMapGenerator ${[...unsupported, ...optionKeys].join(', ')} not rendered by this test`);
  const data: Record<string, string> = {};
  for (const file of generator.envs ?? []) Object.assign(data, parseEnvFile(readFileSync(path.join(dir, file), 'utf8')));
  const labels = generator.options?.labels;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${generator.name}-${configMapHash(generator.name, data)}`, ...(labels ? { labels } : {}) },
    data,
  };
}

/**
 * kustomize's name suffix (api/hasher): sha256 of the JSON of {data, kind, name} (keys sorted, as
 * Go's encoding/json writes a map), its first 10 hex digits with 0 1 3 a e swapped for g h k m t.
 */
export function configMapHash(name: string, data: Record<string, string>): string {
  const sorted = Object.fromEntries(Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  // Go escapes these three in JSON strings; JSON.stringify does not.
  const json = JSON.stringify({ data: sorted, kind: 'ConfigMap', name }).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  const hex = createHash('sha256').update(json).digest('hex').slice(0, 10);
  return hex.replace(/[013ae]/g, (c) => ({ '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' })[c]!);
}

/** Every configMapRef / configMapKeyRef / volume configMap naming a generated ConfigMap gets its hashed name. */
function renameConfigMapReferences(value: unknown, renamed: Map<string, string>): void {
  if (Array.isArray(value)) {
    for (const item of value) renameConfigMapReferences(item, renamed);
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (['configMapRef', 'configMapKeyRef', 'configMap'].includes(key) && child && typeof child === 'object') {
        const ref = child as { name?: string };
        if (ref.name && renamed.has(ref.name)) ref.name = renamed.get(ref.name);
      }
      renameConfigMapReferences(child, renamed);
    }
  }
}

// Each model takes its own shape; the rendered YAML is checked by validate(), not by the compiler.
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

/** Validates against the Kubernetes OpenAPI schema of its kind (kubernetes-models); throws on the first problem. */
export function validateObject(object: K8sObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) throw new Error(`${object.apiVersion} ${object.kind}: no model here; add it to MODELS`);
  new Model(object).validate();
}

/**
 * The property names an interface of kubernetes-models declares (from its .d.ts): the schema
 * validation accepts unknown fields, the API server (strict field validation) does not.
 */
export function knownFields(modelPath: string, interfaceName: string): Set<string> {
  const source = readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('kubernetes-models/package.json')), `${modelPath}.d.ts`), 'utf8');
  const body = source.slice(source.indexOf(`export interface ${interfaceName} {`));
  const block = body.slice(0, body.indexOf('\n}'));
  return new Set([...block.matchAll(/^\s+"?([A-Za-z$][\w$]*)"?\??:/gm)].map((m) => m[1]!));
}
