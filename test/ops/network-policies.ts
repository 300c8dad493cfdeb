import { BlockList, isIPv6 } from 'node:net';
import type { K8sObject } from './kubernetes-render.js';

/**
 * What a set of NetworkPolicies allows, as the API defines it (networking.k8s.io/v1): a pod
 * selected by no policy of a direction is open in that direction; once selected, a connection
 * passes when some rule of some selecting policy matches its peer and its port. Enough of the
 * semantics to ask "may A reach B on port P" of deploy/kubernetes without a cluster.
 */
export interface Pod {
  namespace: string;
  /** The labels of the pod's namespace (kubernetes.io/metadata.name is always there). */
  namespaceLabels?: Record<string, string>;
  labels: Record<string, string>;
  /** Named container ports, for rules that name one. */
  ports?: Record<string, number>;
}
/** A pod, or an address outside the cluster. */
export type Peer = Pod | { ip: string };

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}
interface PolicyPeer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: Array<{ protocol?: string; port?: number | string }>;
}
interface PolicySpec {
  podSelector: Selector;
  policyTypes: Array<'Ingress' | 'Egress'>;
  ingress?: Rule[];
  egress?: Rule[];
}

export function selects(selector: Selector, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return byLabels && (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    if (operator === 'In') return key in labels && values.includes(labels[key]!);
    if (operator === 'NotIn') return !(key in labels) || !values.includes(labels[key]!);
    return operator === 'Exists' ? key in labels : !(key in labels);
  });
}

const namespaceLabelsOf = (pod: Pod) => ({ 'kubernetes.io/metadata.name': pod.namespace, ...pod.namespaceLabels });

function inBlock(ip: string, block: { cidr: string; except?: string[] }): boolean {
  const subnets = (cidrs: string[]) => {
    const list = new BlockList();
    for (const cidr of cidrs) {
      const [network, prefix] = cidr.split('/');
      list.addSubnet(network!, Number(prefix), isIPv6(network!) ? 'ipv6' : 'ipv4');
    }
    return list;
  };
  const type = isIPv6(ip) ? 'ipv6' : 'ipv4';
  // An IPv4 address never matches an IPv6 block (BlockList would compare it as ::ffff:a.b.c.d).
  if (isIPv6(block.cidr.split('/')[0]!) !== (type === 'ipv6')) return false;
  return subnets([block.cidr]).check(ip, type) && !subnets(block.except ?? []).check(ip, type);
}

function peerMatches(rulePeer: PolicyPeer, peer: Peer, policyNamespace: string): boolean {
  if ('ip' in peer) return rulePeer.ipBlock !== undefined && inBlock(peer.ip, rulePeer.ipBlock);
  if (rulePeer.ipBlock) return false;
  const namespaceOk = rulePeer.namespaceSelector ? selects(rulePeer.namespaceSelector, namespaceLabelsOf(peer)) : peer.namespace === policyNamespace;
  return namespaceOk && (!rulePeer.podSelector || selects(rulePeer.podSelector, peer.labels));
}

function portMatches(rule: Rule, port: number, protocol: string, target: Peer): boolean {
  if (!rule.ports) return true;
  return rule.ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== protocol) return false;
    if (p.port === undefined) return true;
    if (typeof p.port === 'number') return p.port === port;
    return !('ip' in target) && target.ports?.[p.port] === port;
  });
}

/** May `from` open a connection to `to` on port/protocol? Both directions are checked: from's egress, to's ingress. */
export function allows(policies: K8sObject[], namespace: string, from: Peer, to: Peer, port: number, protocol = 'TCP'): boolean {
  const direction = (pod: Peer, type: 'Ingress' | 'Egress', other: Peer, target: Peer) => {
    if ('ip' in pod || pod.namespace !== namespace) return true;
    const selecting = policies.map((p) => p.spec as PolicySpec).filter((spec) => spec.policyTypes.includes(type) && selects(spec.podSelector, pod.labels));
    if (!selecting.length) return true;
    return selecting.some((spec) =>
      (type === 'Ingress' ? spec.ingress : spec.egress)?.some((rule) => {
        const peers = type === 'Ingress' ? rule.from : rule.to;
        return (!peers || peers.some((peer) => peerMatches(peer, other, namespace))) && portMatches(rule, port, protocol, target);
      }),
    );
  };
  return direction(from, 'Egress', to, to) && direction(to, 'Ingress', from, to);
}
