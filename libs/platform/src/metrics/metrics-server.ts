import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { metricsRequestHandler } from '@headspace/telemetry';

/** METRICS_PORT when set, else HTTP_PORT + 1000 (gateway 3000 → 4000, …). */
export function metricsPortOf(config: { HTTP_PORT: number; METRICS_PORT?: number }): number {
  return config.METRICS_PORT ?? config.HTTP_PORT + 1000;
}

/**
 * `GET /metrics` (Prometheus text) on its own internal listener, `METRICS_HOST:METRICS_PORT`
 * (default 127.0.0.1, HTTP_PORT + 1000), never on the service's public HTTP port: what the
 * metrics say (token, persona and team names, spend) is for the operator's scraper, not for
 * whoever can reach the API. Anything else on this port is 404. Started by bootstrapService
 * after the app listens; tests call `listen` themselves.
 */
@Injectable()
export class MetricsServer implements OnApplicationShutdown {
  private server?: Server;

  async listen(host: string, port: number): Promise<AddressInfo> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?', 1)[0];
      if ((req.method === 'GET' || req.method === 'HEAD') && path === '/metrics') return metricsRequestHandler(req, res);
      res.statusCode = 404;
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end('Not found: this port serves GET /metrics only\n');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return server.address() as AddressInfo;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
