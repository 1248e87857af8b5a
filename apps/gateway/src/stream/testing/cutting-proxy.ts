import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

export interface CuttingProxyOptions {
  /**
   * Only connections whose first request line passes are cut (a browser's event stream among its
   * page's other requests); their request heads are kept in `cuttableRequests`. None: every one.
   */
  cutOnly?: (requestLine: string) => boolean;
}

/**
 * A TCP proxy in front of the gateway that a test can cut: `cutMidFrame()` forwards only the first
 * half of the next chunk the gateway sends on a cuttable connection, then destroys both sockets, as
 * a broken network would.
 */
export class CuttingProxy {
  cuts = 0;
  connections = 0;
  /** The request head of every cuttable connection, to see what a reconnecting client sent. */
  readonly cuttableRequests: string[] = [];
  private readonly sockets = new Set<Socket>();
  private cutPending = false;
  private server?: Server;

  private constructor(private readonly options: CuttingProxyOptions) {}

  static async start(target: URL, options: CuttingProxyOptions = {}): Promise<CuttingProxy> {
    const proxy = new CuttingProxy(options);
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
    const { cutOnly } = this.options;
    let cuttable = !cutOnly;
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    if (cutOnly) {
      client.on('data', (chunk: Buffer) => {
        const head = chunk.toString('latin1');
        if (cutOnly(head.slice(0, head.indexOf('\r\n')))) {
          cuttable = true;
          this.cuttableRequests.push(head.slice(0, head.indexOf('\r\n\r\n')));
        }
        upstream.write(chunk);
      });
    } else {
      client.pipe(upstream);
    }
    upstream.on('data', (chunk: Buffer) => {
      if (!cuttable || !this.cutPending) {
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
