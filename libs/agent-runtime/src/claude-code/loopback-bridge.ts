import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One forwarded port: inside the sandbox 127.0.0.1:port, on the host the socket, then host:port. */
export interface ForwardedPort {
  port: number;
  socket: string;
}

export interface LoopbackBridge {
  /** The directory of the sockets: mount it into the sandbox. */
  dir: string;
  ports: ForwardedPort[];
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The loopback port of a URL (the simulator, the hook endpoint); undefined for any other host. */
export function loopbackPort(url: string): number | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (!LOOPBACK.has(u.hostname)) return undefined;
  return Number(u.port || (u.protocol === 'https:' ? 443 : 80));
}

/**
 * The host side of the sandbox's loopback bridge: a unix socket per port in a fresh 0700 directory,
 * each connection piped to 127.0.0.1:port here. Inside, sandbox-forwarder.mjs listens on the same
 * ports and connects to these sockets; a port not listed stays unreachable from the sandbox.
 */
export async function bridgeLoopbackPorts(ports: readonly number[]): Promise<LoopbackBridge> {
  const dir = await mkdtemp(join(tmpdir(), 'hs-claude-net-'));
  const servers: Server[] = [];
  const open = new Set<Socket>();
  const forwarded: ForwardedPort[] = [];
  try {
    for (const port of [...new Set(ports)]) {
      const socket = join(dir, `${port}.sock`);
      const server = createServer((inside) => {
        const host = connect(port, '127.0.0.1');
        for (const s of [inside, host]) {
          open.add(s);
          s.on('close', () => open.delete(s));
        }
        inside.on('error', () => host.destroy());
        host.on('error', () => inside.destroy());
        inside.pipe(host).pipe(inside);
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socket, () => resolve());
      });
      servers.push(server);
      forwarded.push({ port, socket });
    }
  } catch (error) {
    await closeAll(servers, open, dir);
    throw error;
  }
  return { dir, ports: forwarded, close: () => closeAll(servers, open, dir) };
}

async function closeAll(servers: Server[], open: Set<Socket>, dir: string): Promise<void> {
  for (const s of open) s.destroy();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  await rm(dir, { recursive: true, force: true });
}

/** The shipped forwarder: the .mjs beside this module in src, the compiled .js in the build output. */
export function sandboxForwarderPath(): string {
  const candidates = [join(__dirname, 'sandbox-forwarder.mjs'), join(__dirname, 'sandbox-forwarder.js'), join(process.cwd(), 'libs/agent-runtime/src/claude-code/sandbox-forwarder.mjs')];
  return candidates.find((p) => existsSync(p)) ?? candidates[0];
}
