import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { k8sDeployDir, renderKustomization, type K8sObject } from './kustomize-render';

/** The Kubernetes JSON schemas (OpenAPI definitions, compiled) of every kind the manifests use. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Secret': Secret,
  'v1/Service': Service,
};

function validate(object: K8sObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) throw new Error(`${object.apiVersion} ${object.kind} has no schema here: add its model`);
  new Model(object as never).validate();
}

describe.each(['base', 'overlays/dev', 'overlays/prod'])('the rendered %s against the Kubernetes schemas', (dir) => {
  const objects = renderKustomization(join(k8sDeployDir(), dir));

  it.each(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o] as const))('%s is valid', (_name, object) => {
    expect(() => validate(object)).not.toThrow();
  });
});

describe('the schema validation', () => {
  it('rejects a Deployment without a selector and a container port that is not a number', () => {
    const deployment = renderKustomization(join(k8sDeployDir(), 'base')).find((o) => o.kind === 'Deployment')!;
    const { selector: _selector, ...withoutSelector } = deployment.spec as Record<string, unknown>;
    expect(() => validate({ ...deployment, spec: withoutSelector })).toThrow(/selector/);
    const broken = structuredClone(deployment) as K8sObject & { spec: { template: { spec: { containers: { ports: { containerPort: unknown }[] }[] } } } };
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    expect(() => validate(broken)).toThrow(/containerPort/);
  });
});
