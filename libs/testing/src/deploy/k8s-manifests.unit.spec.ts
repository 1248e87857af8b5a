import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, k8sDeployDir, renderKustomization, strategicMerge, type K8sObject } from './kustomize-render';

const SERVICES = ['gateway', 'team-manager', 'orchestrator', 'cost-governor', 'ops-leon'];

interface Container {
  name: string;
  image: string;
  env?: { name: string; value?: string }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  startupProbe?: { httpGet?: { path: string } };
  readinessProbe?: { httpGet?: { path: string } };
  livenessProbe?: { httpGet?: { path: string } };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  automountServiceAccountToken?: boolean;
  containers: Container[];
  volumes?: { name: string; emptyDir?: object; persistentVolumeClaim?: { claimName: string } }[];
  topologySpreadConstraints?: { topologyKey: string; whenUnsatisfiable: string }[];
}
const podSpec = (o: K8sObject) => (o.spec as { template: { spec: PodSpec } }).template.spec;
const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const render = (dir: string) => renderKustomization(join(k8sDeployDir(), dir));

describe.each(['base', 'overlays/dev', 'overlays/prod'])('the rendered %s', (dir) => {
  const objects = render(dir);

  it('has no two objects of one kind and name, and every namespaced object in one namespace', () => {
    const keys = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(objects.map((o) => o.metadata.namespace)).size).toBe(1);
  });

  it.each(SERVICES)('%s runs hardened with resources, startup/readiness/liveness probes, a zone and host spread, a Service and a disruption budget', (service) => {
    const deployment = find(objects, 'Deployment', service)!;
    const pod = podSpec(deployment);
    const container = pod.containers[0];
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
    expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
    expect(container.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources?.limits?.memory).toBeDefined();
    expect(container.startupProbe?.httpGet?.path).toBe('/health/live');
    expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
    expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
    expect(pod.topologySpreadConstraints?.map((t) => t.topologyKey).sort()).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
    expect(find(objects, 'Service', service)).toBeDefined();
    const pdb = find(objects, 'PodDisruptionBudget', service)!;
    expect((pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).toEqual({ 'app.kubernetes.io/name': service });
  });

  it('mounts the orchestrator work volume where the image keeps run checkouts and agent homes', () => {
    const pod = podSpec(find(objects, 'Deployment', 'orchestrator')!);
    const claim = (pod.volumes ?? []).find((v) => v.persistentVolumeClaim);
    expect(find(objects, 'PersistentVolumeClaim', claim?.persistentVolumeClaim?.claimName ?? '')).toBeDefined();
    expect(pod.containers[0].volumeMounts).toContainEqual({ name: claim?.name, mountPath: '/var/lib/headspace' });
    expect(pod.containers[0].env).toEqual(expect.arrayContaining([{ name: 'HS_WORKSPACES_DIR', value: '/var/lib/headspace/runs' }]));
  });

  it('serves the gateway, and only the gateway, through an Ingress with TLS', () => {
    const ingresses = objects.filter((o) => o.kind === 'Ingress');
    expect(ingresses).toHaveLength(1);
    const spec = ingresses[0].spec as { tls: { hosts: string[]; secretName: string }[]; rules: { host: string; http: { paths: { backend: { service: { name: string } } }[] } }[] };
    expect(spec.tls[0].secretName).toBeTruthy();
    expect(spec.rules.map((r) => r.host)).toEqual(spec.tls[0].hosts);
    expect(spec.rules.flatMap((r) => r.http.paths.map((p) => p.backend.service.name))).toEqual(['gateway']);
  });
});

describe('the overlays', () => {
  it('dev: one replica each in headspace-dev, R1 streams for its single nats-server, a ReadWriteOnce work volume', () => {
    const objects = render('overlays/dev');
    for (const s of SERVICES) expect((find(objects, 'Deployment', s)!.spec as { replicas: number }).replicas).toBe(1);
    expect(objects[0].metadata.namespace).toBe('headspace-dev');
    expect((find(objects, 'ConfigMap', 'headspace-config')!.data as Record<string, string>).HS_JETSTREAM_REPLICAS).toBe('1');
    expect((find(objects, 'PersistentVolumeClaim', 'orchestrator-work')!.spec as { accessModes: string[] }).accessModes).toEqual(['ReadWriteOnce']);
  });

  it('prod: R3 streams, several replicas, a pinned image, zone spread required, the orchestrator sized up', () => {
    const objects = render('overlays/prod');
    expect((find(objects, 'ConfigMap', 'headspace-config')!.data as Record<string, string>).HS_JETSTREAM_REPLICAS).toBe('3');
    for (const s of SERVICES) {
      const deployment = find(objects, 'Deployment', s)!;
      expect((deployment.spec as { replicas: number }).replicas).toBeGreaterThanOrEqual(2);
      expect(podSpec(deployment).containers[0].image).toBe('registry.example.com/headspace:1.0.0');
      expect(podSpec(deployment).topologySpreadConstraints?.every((t) => t.whenUnsatisfiable === 'DoNotSchedule')).toBe(true);
    }
    const orchestrator = podSpec(find(objects, 'Deployment', 'orchestrator')!).containers[0];
    expect(orchestrator.resources).toEqual({ requests: { cpu: '1', memory: '1Gi' }, limits: { memory: '4Gi' } });
    expect(orchestrator.readinessProbe).toBeDefined(); // the patch merged into the container, not replaced it
  });
});

describe('the NATS values and the PostgreSQL cluster', () => {
  it('NATS: a 3-node cluster with JetStream on file storage', () => {
    const [values] = parseAllDocuments(readFileSync(join(k8sDeployDir(), 'nats/values.yaml'), 'utf8')).map((d) => d.toJS());
    expect(values.config).toMatchObject({ cluster: { enabled: true, replicas: 3 }, jetstream: { enabled: true, fileStore: { enabled: true } } });
  });

  it('PostgreSQL: three CloudNativePG instances with synchronous commit and backups, named as DATABASE_URL expects', () => {
    const docs = parseAllDocuments(readFileSync(join(k8sDeployDir(), 'postgres/cluster.yaml'), 'utf8')).map((d) => d.toJS() as K8sObject);
    const cluster = docs.find((d) => d.kind === 'Cluster')!;
    expect(cluster.spec).toMatchObject({ instances: 3, postgresql: { synchronous: { number: 1 } }, backup: { barmanObjectStore: expect.any(Object) } });
    const secret = find(render('base'), 'Secret', 'headspace-secrets')!;
    expect((secret.stringData as Record<string, string>).DATABASE_URL).toContain(`${cluster.metadata.name}-rw.${cluster.metadata.namespace}.svc`);
  });
});

describe('the renderer', () => {
  it('refuses a kustomization field it does not implement rather than ignore it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hs-kustomize-'));
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: []\nconfigMapGenerator: []\n');
    expect(() => renderKustomization(dir)).toThrow(/configMapGenerator not supported/);
  });

  it('merges lists of named items by name and replaces other lists; JSON patches fail on a missing path', () => {
    expect(strategicMerge({ c: [{ name: 'a', x: 1 }, { name: 'b' }], l: [1, 2] }, { c: [{ name: 'a', y: 2 }], l: [3] })).toEqual({
      c: [{ name: 'a', x: 1, y: 2 }, { name: 'b' }],
      l: [3],
    });
    expect(() => applyJsonPatch({ a: [] }, [{ op: 'replace', path: '/a/0', value: 1 }])).toThrow(/does not exist/);
  });
});
