import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which webhook targets the gateway may reach (SSRF guard): only public unicast addresses, unless
 * the operator allows private ones (`HS_WEBHOOK_ALLOW_PRIVATE`) or names hosts and networks
 * (`HS_WEBHOOK_ALLOWED_HOSTS`). Loopback, link-local (the cloud metadata address 169.254.169.254
 * among them), private, carrier-grade NAT, unique-local, multicast and reserved ranges are refused.
 */
export interface WebhookUrlPolicy {
  allowPrivate: boolean;
  /** Host names (exact, lower case) and addresses or CIDR ranges the operator trusts. */
  allowedHosts: readonly string[];
}

export class WebhookTargetRefused extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export class WebhookUrlGuard {
  private readonly names: ReadonlySet<string>;
  private readonly networks: ReadonlyArray<[Address, number]>;

  constructor(private readonly policy: WebhookUrlPolicy) {
    this.names = new Set(policy.allowedHosts.filter((h) => !isNetwork(h)).map((h) => h.toLowerCase()));
    this.networks = policy.allowedHosts.filter(isNetwork).map(parseNetwork);
  }

  /** Why `address` may not be a webhook target, or undefined when it may. */
  refusal(address: string): string | undefined {
    if (this.policy.allowPrivate) return undefined;
    let ip: Address = ipaddr.parse(address);
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    if (this.networks.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits))) return undefined;
    const range = ip.range();
    return range === 'unicast' ? undefined : `${address} is a ${range} address`;
  }

  /**
   * Checked when a subscription is created or its URL changed: an address literal or a host name
   * that resolves to a refused address. A name that does not resolve (yet) passes: the send-time
   * check decides when it does.
   */
  async checkUrl(url: string): Promise<string | undefined> {
    if (this.policy.allowPrivate) return undefined;
    const host = hostOf(url);
    if (this.names.has(host)) return undefined;
    if (isIP(host)) return this.refusal(host);
    const addresses = await new Promise<string[]>((resolve) =>
      dnsLookup(host, { all: true }, (error, found) => resolve(error ? [] : found.map((a) => a.address))),
    );
    for (const address of addresses) {
      const why = this.refusal(address);
      if (why) return `${host} resolves to ${why}`;
    }
    return undefined;
  }

  /**
   * Checked at send time for address literals (no lookup happens for them); names go through
   * {@link lookup}, so the address checked is the one connected to (a name re-pointed at a private
   * address after the subscription was made — DNS rebinding — is refused there).
   */
  literalRefusal(url: string): string | undefined {
    if (this.policy.allowPrivate) return undefined;
    const host = hostOf(url);
    return isIP(host) && !this.names.has(host) ? this.refusal(host) : undefined;
  }

  /** A `net` lookup that resolves like the default one and fails for a refused address. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, '', 0);
      const trusted = this.policy.allowPrivate || this.names.has(hostname.toLowerCase());
      const refused = trusted ? undefined : found.map((a) => this.refusal(a.address)).find(Boolean);
      if (refused) return callback(new WebhookTargetRefused(`${hostname} resolves to ${refused}`), '', 0);
      if (options.all) return (callback as unknown as (e: null, all: typeof found) => void)(null, found);
      callback(null, found[0]!.address, found[0]!.family);
    });
  };
}

/** The URL's host as `net` sees it: lower case, IPv6 without brackets. */
function hostOf(url: string): string {
  const host = new URL(url).hostname.toLowerCase();
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function isNetwork(entry: string): boolean {
  return ipaddr.isValid(entry) || ipaddr.isValidCIDR(entry);
}

function parseNetwork(entry: string): [Address, number] {
  if (ipaddr.isValidCIDR(entry)) return ipaddr.parseCIDR(entry);
  const ip = ipaddr.parse(entry);
  return [ip, ip.kind() === 'ipv4' ? 32 : 128];
}

/** `HS_WEBHOOK_ALLOWED_HOSTS`: comma-separated host names, addresses and CIDR ranges. */
export function parseAllowedHosts(value: string): string[] {
  return value
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
}
