import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
  at: number;
}

/** An HTTP receiver for specs and the bench: records every request; `answer` picks each status (default 200). */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  answer: (path: string, body: string, seen: ReceivedRequest[]) => number = () => 200;
  /** The `Location` of 3xx answers. */
  redirectTo?: string;
  private server?: Server;
  url = '';

  /** `host`: a loopback address other than 127.0.0.1 serves as "another machine" in the SSRF specs. */
  async start(host = '127.0.0.1'): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        const status = this.answer(path, body, this.requests);
        this.requests.push({ path, headers: req.headers, body, status, at: performance.now() });
        res.writeHead(status, status >= 300 && status < 400 && this.redirectTo ? { location: this.redirectTo } : {}).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, host, resolve));
    this.url = `http://${host}:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Requests to `path` that were answered 2xx. */
  delivered(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path && r.status < 300);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
