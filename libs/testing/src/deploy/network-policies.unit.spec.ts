import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { k8sDeployDir, renderKustomization, type K8sObject } from './kustomize-render';
import { allowed, type Endpoint } from './network-policy-reach';

const SERVICES = { gateway: 3000, 'team-manager': 3001, orchestrator: 3002, 'cost-governor': 3003, 'ops-leon': 3004 } as const;
type Service = keyof typeof SERVICES;

/** What is around the headspace namespace: the dependencies ARCHITECTURE.md names, and things no service may reach. */
const world = {
  dns: { endpoint: { name: 'dns', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } }, port: 53, protocol: 'UDP' },
  postgres: { endpoint: { name: 'postgres', namespace: 'db', labels: { 'cnpg.io/cluster': 'headspace-pg', 'cnpg.io/instanceRole': 'primary' } }, port: 5432 },
  nats: { endpoint: { name: 'nats', namespace: 'nats', labels: { 'app.kubernetes.io/name': 'nats' } }, port: 4222 },
  'nats-routes': { endpoint: { name: 'nats-routes', namespace: 'nats', labels: { 'app.kubernetes.io/name': 'nats' } }, port: 6222 },
  otel: { endpoint: { name: 'otel', namespace: 'observability', labels: { 'app.kubernetes.io/name': 'opentelemetry-collector' } }, port: 4318 },
  grafana: { endpoint: { name: 'grafana', namespace: 'observability', labels: { 'app.kubernetes.io/name': 'grafana' } }, port: 3000 },
  'llm-api': { endpoint: { name: 'llm-api', ip: '160.79.104.10' }, port: 443 },
  'cloud-metadata': { endpoint: { name: 'cloud-metadata', ip: '169.254.169.254' }, port: 80 },
  'private-network': { endpoint: { name: 'private-network', ip: '10.20.30.40' }, port: 443 },
  'kube-api': { endpoint: { name: 'kube-api', ip: '10.96.0.1' }, port: 443 },
} satisfies Record<string, { endpoint: Endpoint; port: number; protocol?: string }>;

const sources = {
  'ingress-controller': { name: 'ingress-controller', namespace: 'ingress-nginx', labels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
  prometheus: { name: 'prometheus', namespace: 'observability', labels: { 'app.kubernetes.io/name': 'prometheus' } },
  'other-namespace': { name: 'other-namespace', namespace: 'default', labels: { app: 'curious' } },
  'internet-client': { name: 'internet-client', ip: '198.51.100.7' },
} satisfies Record<string, Endpoint>;

const podOf = (objects: K8sObject[], name: string) => {
  const workload = objects.find((o) => (o.kind === 'Deployment' || o.kind === 'Job') && o.metadata.name === name)!;
  const template = (workload.spec as { template: { metadata: { labels: Record<string, string> } } }).template;
  return { namespace: workload.metadata.namespace!, labels: template.metadata.labels };
};

function reach(objects: K8sObject[], workload: string) {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const pod = podOf(objects, workload);
  const egress = Object.entries(world)
    .filter(([, t]) => allowed(policies, pod, 'egress', t.endpoint, t.port, 'protocol' in t ? t.protocol : 'TCP'))
    .map(([name]) => name);
  const peersOut = (Object.keys(SERVICES) as Service[]).filter(
    (other) => other !== workload && allowed(policies, pod, 'egress', { name: other, ...podOf(objects, other) }, SERVICES[other]),
  );
  return { egress: [...egress, ...peersOut].sort() };
}

function reachableFrom(objects: K8sObject[], service: Service) {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const pod = podOf(objects, service);
  const out: string[] = [];
  const candidates: Endpoint[] = [...Object.values(sources), ...(Object.keys(SERVICES) as Service[]).filter((s) => s !== service).map((s) => ({ name: s, ...podOf(objects, s) }))];
  for (const source of candidates) {
    for (const [portName, port] of [['http', SERVICES[service]], ['metrics', SERVICES[service] + 1000]] as const) {
      if (allowed(policies, pod, 'ingress', source, port)) out.push(`${source.name}→${portName}`);
    }
  }
  return out.sort();
}

const BASE_EGRESS = ['dns', 'nats', 'otel', 'postgres'];

describe.each(['base', 'overlays/dev', 'overlays/prod'])('NetworkPolicies of %s', (dir) => {
  const objects = renderKustomization(join(k8sDeployDir(), dir));

  it.each(Object.keys(SERVICES) as Service[])('%s reaches only DNS, PostgreSQL, NATS clients and the OTel collector (and the orchestrator the LLM API), never another service', (service) => {
    expect(reach(objects, service).egress).toEqual(service === 'orchestrator' ? [...BASE_EGRESS, 'llm-api'].sort() : BASE_EGRESS);
  });

  it('the migration Job reaches only DNS and PostgreSQL', () => {
    expect(reach(objects, 'headspace-migrate').egress).toEqual(['dns', 'postgres']);
  });

  it.each(Object.keys(SERVICES) as Service[])('%s is reached only by Prometheus on its metrics port (the gateway also by the ingress controller)', (service) => {
    const expected = ['prometheus→metrics', ...(service === 'gateway' ? ['ingress-controller→http'] : [])].sort();
    expect(reachableFrom(objects, service)).toEqual(expected);
  });
});

describe('the PostgreSQL side (postgres/cluster.yaml)', () => {
  const policies = parseAllDocuments(readFileSync(join(k8sDeployDir(), 'postgres/cluster.yaml'), 'utf8'))
    .map((d) => d.toJS() as K8sObject)
    .filter((o) => o.kind === 'NetworkPolicy');
  const primary = world.postgres.endpoint;

  it('accepts the headspace pods of both overlays and refuses other namespaces and other pods', () => {
    for (const dir of ['overlays/dev', 'overlays/prod']) {
      const gateway = { name: 'gateway', ...podOf(renderKustomization(join(k8sDeployDir(), dir)), 'gateway') };
      expect(allowed(policies, primary, 'ingress', gateway, 5432)).toBe(true);
    }
    expect(allowed(policies, primary, 'ingress', sources['other-namespace'], 5432)).toBe(false);
    expect(allowed(policies, primary, 'ingress', { name: 'stray', namespace: 'headspace', labels: { app: 'stray' } }, 5432)).toBe(false);
    expect(allowed(policies, primary, 'ingress', sources.prometheus, 5432)).toBe(false);
  });
});

describe('the reachability reader', () => {
  it('allows everything when no policy selects a pod, so a deleted default-deny would show in the specs above', () => {
    const objects = renderKustomization(join(k8sDeployDir(), 'base')).filter((o) => o.kind !== 'NetworkPolicy');
    expect(reach(objects, 'gateway').egress).toContain('cloud-metadata');
    expect(reachableFrom(objects, 'team-manager')).toContain('internet-client→http');
  });
});
