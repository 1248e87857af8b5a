import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * Three "hosts" on this machine: Linux network namespaces `hs-mh-1..3`, each with loopback and one
 * veth into the bridge `hs-mh-br` of the root namespace, on a private /24. The root namespace holds
 * the bridge's address, so the test itself (the load, the checks) reaches every host as a client
 * from outside would. Everything is named `hs-mh-*`, so a run interrupted even by SIGKILL is swept
 * by the next one (sweepHosts).
 */
export const SUBNET = '10.213.47';
export const BRIDGE = 'hs-mh-br';
export const BRIDGE_ADDRESS = `${SUBNET}.254`;
export const HOST_COUNT = 3;

export interface Host {
  index: number;
  namespace: string;
  address: string;
  /** The veth end on the bridge: down = this host is partitioned off. */
  link: string;
}

export const hosts: Host[] = Array.from({ length: HOST_COUNT }, (_, i) => ({
  index: i + 1,
  namespace: `hs-mh-${i + 1}`,
  address: `${SUBNET}.${i + 1}`,
  link: `hs-mh-v${i + 1}`,
}));

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function quietly(fn: () => unknown): void {
  try {
    fn();
  } catch {
    // already gone
  }
}

/** Pids of every process in a namespace (processes an `ip netns exec` started, and their children). */
export function pidsIn(host: Host): number[] {
  try {
    return ip('netns', 'pids', host.namespace)
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => Number.isInteger(pid) && pid > 0);
  } catch {
    return [];
  }
}

/** SIGKILL to every process in the namespace except `spare`: the host's power is cut. */
export function killEverythingOn(host: Host, spare: number[] = []): number {
  const pids = pidsIn(host).filter((pid) => !spare.includes(pid));
  for (const pid of pids) quietly(() => process.kill(pid, 'SIGKILL'));
  return pids.length;
}

/** Removes what an earlier run left: processes in the namespaces, the namespaces, the veths, the bridge. */
export function sweepHosts(): void {
  const existing = quietlyList();
  for (const host of hosts) {
    if (!existing.includes(host.namespace)) continue;
    killEverythingOn(host);
    quietly(() => ip('netns', 'del', host.namespace));
  }
  for (const host of hosts) quietly(() => ip('link', 'del', host.link));
  quietly(() => ip('link', 'del', BRIDGE));
}

function quietlyList(): string[] {
  try {
    return ip('netns', 'list')
      .split('\n')
      .map((line) => line.split(' ')[0]);
  } catch {
    return [];
  }
}

export function createHosts(): void {
  sweepHosts();
  ip('link', 'add', BRIDGE, 'type', 'bridge');
  ip('addr', 'add', `${BRIDGE_ADDRESS}/24`, 'dev', BRIDGE);
  ip('link', 'set', BRIDGE, 'up');
  for (const host of hosts) {
    ip('netns', 'add', host.namespace);
    const inner = `hs-mh-i${host.index}`;
    ip('link', 'add', host.link, 'type', 'veth', 'peer', 'name', inner);
    ip('link', 'set', host.link, 'master', BRIDGE);
    ip('link', 'set', host.link, 'up');
    ip('link', 'set', inner, 'netns', host.namespace);
    const inside = (...args: string[]) => ip('-n', host.namespace, ...args);
    inside('link', 'set', inner, 'name', 'eth0');
    inside('addr', 'add', `${host.address}/24`, 'dev', 'eth0');
    inside('link', 'set', 'eth0', 'up');
    inside('link', 'set', 'lo', 'up');
  }
}

/** Cuts the host off the bridge (its processes keep running, unreachable) or joins it again. */
export function setPartitioned(host: Host, partitioned: boolean): void {
  ip('link', 'set', host.link, partitioned ? 'down' : 'up');
}

/** Starts `command` inside the host's namespace (`ip netns exec` execs it: the child's pid is the command's). */
export function spawnOn(host: Host, command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  return spawn('ip', ['netns', 'exec', host.namespace, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...options });
}
