import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the gateway for a browser: it tells the event-stream connection apart
 * from the page's other requests (by its request line), so `cutStreamMidFrame()` breaks exactly that
 * one, forwarding half of its next chunk as a broken network would. It records the request head of
 * every stream connection, to see what a reconnecting browser sent.
 */
export class StreamCuttingProxy {
  cuts = 0;
  readonly streamRequests: string[] = [];
  private readonly sockets = new Set<Socket>();
  private cutPending = false;
  private server?: Server;

  static async start(target: URL): Promise<StreamCuttingProxy> {
    const proxy = new StreamCuttingProxy();
    proxy.server = createServer((client) => proxy.pipe(client, target));
    await new Promise<void>((resolve) => proxy.server!.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  cutStreamMidFrame(): void {
    this.cutPending = true;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private pipe(client: Socket, target: URL): void {
    const upstream = connect(Number(target.port), target.hostname);
    let isStream = false;
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      const head = chunk.toString('latin1');
      if (head.startsWith('GET /api/v1/stream')) {
        isStream = true;
        this.streamRequests.push(head.slice(0, head.indexOf('\r\n\r\n')));
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!isStream || !this.cutPending) {
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
