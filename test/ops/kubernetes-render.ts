import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';

/**
 * Renders a kustomization the way `kustomize build` does for the subset deploy/kubernetes uses:
 * `resources:` only (files of YAML documents, or directories with their own kustomization.yaml,
 * in order). Any other field is refused, so the manifests cannot grow a feature this renderer
 * would silently skip.
 */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources']);

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
  const seen = new Set<string>();
  for (const object of objects) {
    const id = `${object.kind}/${object.metadata?.name}`;
    if (seen.has(id)) throw new Error(`${dir}: ${id} twice`);
    seen.add(id);
  }
  return objects;
}

// Each model takes its own shape; the rendered YAML is checked by validate(), not by the compiler.
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/Job': Job,
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
