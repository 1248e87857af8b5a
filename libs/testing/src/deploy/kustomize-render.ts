import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../infra/util';

/** A rendered Kubernetes object. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
  replicas?: { name: string; count: number }[];
  patches?: { path: string; target?: { kind?: string; name?: string } }[];
}

type JsonPatchOp = { op: 'add' | 'replace' | 'remove'; path: string; value?: unknown };

const SUPPORTED = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'images', 'replicas', 'patches']);
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PersistentVolume', 'StorageClass', 'IngressClass']);

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readYaml(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
    return doc.toJS();
  }).filter((doc) => doc !== null && doc !== undefined);
}

/** Strategic merge as far as these manifests need it: maps merge, null deletes, lists of named items merge by name, other lists are replaced. */
export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (isMap(base) && isMap(patch)) {
    const out: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete out[key];
      else out[key] = key in base ? strategicMerge(base[key], value) : value;
    }
    return out;
  }
  const named = (list: unknown[]) => list.every((item) => isMap(item) && typeof item.name === 'string');
  if (Array.isArray(base) && Array.isArray(patch) && base.length && named(base) && named(patch)) {
    const out = [...base] as Record<string, unknown>[];
    for (const item of patch as Record<string, unknown>[]) {
      const at = out.findIndex((existing) => existing.name === item.name);
      if (at >= 0) out[at] = strategicMerge(out[at], item) as Record<string, unknown>;
      else out.push(item);
    }
    return out;
  }
  return patch;
}

/** RFC 6902 add/replace/remove (the ops the overlays use). */
export function applyJsonPatch(target: unknown, ops: JsonPatchOp[]): unknown {
  const doc = structuredClone(target);
  for (const op of ops) {
    const parts = op.path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = parts.pop();
    if (last === undefined) throw new Error(`JSON patch path ${op.path} is empty`);
    let parent: unknown = doc;
    for (const part of parts) {
      parent = Array.isArray(parent) ? parent[Number(part)] : isMap(parent) ? parent[part] : undefined;
      if (parent === undefined) throw new Error(`JSON patch path ${op.path} does not exist`);
    }
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op.op !== 'add' && index >= parent.length) throw new Error(`JSON patch path ${op.path} does not exist`);
      if (op.op === 'add') parent.splice(index, 0, op.value);
      else if (op.op === 'replace') parent[index] = op.value;
      else parent.splice(index, 1);
    } else if (isMap(parent)) {
      if (op.op !== 'add' && !(last in parent)) throw new Error(`JSON patch path ${op.path} does not exist`);
      if (op.op === 'remove') delete parent[last];
      else parent[last] = op.value;
    } else {
      throw new Error(`JSON patch path ${op.path} does not exist`);
    }
  }
  return doc;
}

function podSpecs(obj: K8sObject): Record<string, unknown>[] {
  const spec = obj.spec as Record<string, unknown> | undefined;
  const template = (spec?.template ?? (spec?.jobTemplate as Record<string, unknown> | undefined)?.spec) as Record<string, unknown> | undefined;
  const pod = (obj.kind === 'Pod' ? spec : (template?.spec ?? (template?.template as Record<string, unknown> | undefined)?.spec)) as Record<string, unknown> | undefined;
  return pod ? [pod] : [];
}

function setImages(objects: K8sObject[], images: NonNullable<Kustomization['images']>): void {
  for (const obj of objects) {
    for (const pod of podSpecs(obj)) {
      for (const container of [...((pod.containers as Record<string, string>[]) ?? []), ...((pod.initContainers as Record<string, string>[]) ?? [])]) {
        const [name, tag] = container.image.split(/:(?=[^/]*$)/);
        const rule = images.find((i) => i.name === name);
        if (rule) container.image = `${rule.newName ?? name}:${rule.newTag ?? tag ?? 'latest'}`;
      }
    }
  }
}

const matches = (obj: K8sObject, target: { kind?: string; name?: string }) =>
  (!target.kind || obj.kind === target.kind) && (!target.name || obj.metadata.name === target.name);

/**
 * Renders a kustomization directory the way `kustomize build` does for the features these manifests
 * use (resources, namespace, images, replicas, strategic-merge and JSON 6902 patches); any other
 * field is an error, so a manifest never silently depends on what this renderer does not do.
 */
export function renderKustomization(dir: string): K8sObject[] {
  const file = ['kustomization.yaml', 'kustomization.yml'].map((f) => join(dir, f)).find(existsSync);
  if (!file) throw new Error(`${dir} has no kustomization.yaml`);
  const k = readYaml(file)[0] as Kustomization;
  const unsupported = Object.keys(k).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length) throw new Error(`${file}: ${unsupported.join(', ')} not supported by the renderer`);

  let objects: K8sObject[] = [];
  for (const entry of k.resources ?? []) {
    const path = resolve(dir, entry);
    objects.push(...(statSync(path).isDirectory() ? renderKustomization(path) : (readYaml(path) as K8sObject[])));
  }
  for (const patch of k.patches ?? []) {
    const path = resolve(dir, patch.path);
    const [doc] = readYaml(path);
    if (Array.isArray(doc)) {
      if (!patch.target) throw new Error(`${path}: a JSON patch needs a target`);
      const hits = objects.filter((o) => matches(o, patch.target!));
      if (!hits.length) throw new Error(`${path}: no resource matches the target`);
      objects = objects.map((o) => (matches(o, patch.target!) ? (applyJsonPatch(o, doc as JsonPatchOp[]) as K8sObject) : o));
    } else {
      const p = doc as K8sObject;
      const target = patch.target ?? { kind: p.kind, name: p.metadata?.name };
      if (!objects.some((o) => matches(o, target))) throw new Error(`${path}: no ${target.kind}/${target.name} to patch`);
      objects = objects.map((o) => (matches(o, target) ? (strategicMerge(o, p) as K8sObject) : o));
    }
  }
  for (const { name, count } of k.replicas ?? []) {
    const hits = objects.filter((o) => ['Deployment', 'StatefulSet', 'ReplicaSet'].includes(o.kind) && o.metadata.name === name);
    if (!hits.length) throw new Error(`${file}: replicas for ${name}, which is not rendered`);
    for (const o of hits) (o.spec as Record<string, unknown>).replicas = count;
  }
  if (k.images) setImages(objects, k.images);
  if (k.namespace) {
    objects = objects.map((o) => (CLUSTER_SCOPED.has(o.kind) ? o : { ...o, metadata: { ...o.metadata, namespace: k.namespace } }));
  }
  return objects;
}

export const k8sDeployDir = (): string => join(repoRoot(), 'deploy', 'k8s');
