import type { K8sObject } from './kustomize-render';

type Labels = Record<string, string>;
interface LabelSelector {
  matchLabels?: Labels;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}
interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface PolicyPort {
  protocol?: string;
  port?: number | string;
}
interface Rule {
  to?: Peer[];
  from?: Peer[];
  ports?: PolicyPort[];
}
interface PolicySpec {
  podSelector: LabelSelector;
  policyTypes?: ('Ingress' | 'Egress')[];
  ingress?: Rule[];
  egress?: Rule[];
}

/** Something traffic can come from or go to: a pod (namespace + labels) or an address outside the cluster. */
export type Endpoint = { name: string; namespace: string; labels: Labels; ip?: undefined } | { name: string; ip: string; namespace?: undefined; labels?: undefined };

export function selects(selector: LabelSelector | undefined, labels: Labels): boolean {
  if (!selector) return true;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpression = (selector.matchExpressions ?? []).every((e) => {
    const has = e.key in labels;
    if (e.operator === 'Exists') return has;
    if (e.operator === 'DoesNotExist') return !has;
    const inValues = has && (e.values ?? []).includes(labels[e.key]);
    return e.operator === 'In' ? inValues : !inValues;
  });
  return byLabel && byExpression;
}

const ipToInt = (ip: string) => ip.split('.').reduce((n, octet) => (n << 8) + Number(octet), 0) >>> 0;
export function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return (ipToInt(ip) & mask) === (ipToInt(base) & mask);
}

function peerMatches(peer: Peer, endpoint: Endpoint, policyNamespace: string): boolean {
  if (peer.ipBlock) return endpoint.ip !== undefined && inCidr(endpoint.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c) => inCidr(endpoint.ip!, c));
  if (endpoint.ip !== undefined) return false;
  const nsOk = peer.namespaceSelector ? selects(peer.namespaceSelector, { 'kubernetes.io/metadata.name': endpoint.namespace }) : endpoint.namespace === policyNamespace;
  return nsOk && selects(peer.podSelector, endpoint.labels);
}

const portMatches = (ports: PolicyPort[] | undefined, port: number, protocol: string) =>
  !ports?.length || ports.some((p) => (p.protocol ?? 'TCP') === protocol && (p.port === undefined || Number(p.port) === port));

/**
 * Whether the NetworkPolicies let `pod` (a pod's namespace and labels) send to `endpoint` on a port
 * (direction 'egress'), or receive from it ('ingress'): Kubernetes semantics — no policy of that
 * type selecting the pod means allowed; otherwise some rule of a selecting policy must allow it.
 */
export function allowed(
  policies: K8sObject[],
  pod: { namespace: string; labels: Labels },
  direction: 'egress' | 'ingress',
  endpoint: Endpoint,
  port: number,
  protocol = 'TCP',
): boolean {
  const type = direction === 'egress' ? 'Egress' : 'Ingress';
  const applying = policies.filter((p) => {
    const spec = p.spec as PolicySpec;
    const types = spec.policyTypes ?? (spec.egress ? ['Ingress', 'Egress'] : ['Ingress']);
    return p.metadata.namespace === pod.namespace && types.includes(type) && selects(spec.podSelector, pod.labels);
  });
  if (!applying.length) return true;
  return applying.some((p) => {
    const rules = ((p.spec as PolicySpec)[direction] ?? []) as Rule[];
    return rules.some((rule) => {
      const peers = direction === 'egress' ? rule.to : rule.from;
      return (!peers?.length || peers.some((peer) => peerMatches(peer, endpoint, p.metadata.namespace!))) && portMatches(rule.ports, port, protocol);
    });
  });
}
