import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the gateway that a test can cut: `cutMidFrame()` forwards only the first
 * half of the next chunk the gateway sends, then destroys both sockets, as a broken network would.
 */
export class CuttingProxy {
  cuts = 0;
  connections = 0;
  private readonly sockets = new Set<Socket>();
  private cutPending = false;
  private server?: Server;

  static async start(target: URL): Promise<CuttingProxy> {
    const proxy = new CuttingProxy();
    proxy.server = createServer((client) => proxy.pipe(client, target));
    await new Promise<void>((resolve) => proxy.server!.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  cutMidFrame(): void {
    this.cutPending = true;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private pipe(client: Socket, target: URL): void {
    this.connections++;
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!this.cutPending) {
        client.write(chunk);
        return;
      }
      this.cutPending = false;
      this.cuts++;
      client.write(chunk.subarray(0, Math.max(1, chunk.length >> 1)), () => {
        client.destroy();
        upstream.destroy();
      });
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
  }
}
