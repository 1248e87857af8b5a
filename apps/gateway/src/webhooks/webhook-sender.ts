import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { AttemptOutcome } from './delivery.decider';
import { WebhookTargetRefused, WebhookUrlGuard } from './webhook-url-guard';

/**
 * POSTs one signed CloudEvent. A 2xx is a success; anything else, a redirect (not followed: the
 * signature is for the subscribed URL, and a redirect could point inside the network), a timeout,
 * a connection error or a target the URL guard refuses is a failure to retry. `node:http` rather
 * than fetch: its `lookup` hook lets the guard check the very address the socket connects to.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly httpAgent = new HttpAgent({ keepAlive: true });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true });

  constructor(private readonly guard: WebhookUrlGuard) {}

  onModuleDestroy(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  async send(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<AttemptOutcome & { durationMs: number }> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const refused = this.guard.literalRefusal(url);
    if (refused) return { ok: false, error: `target refused: ${refused}`, durationMs: elapsed() };
    const secure = url.startsWith('https:');
    const request = secure ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      const req = request(
        url,
        {
          method: 'POST',
          headers: { 'content-type': 'application/cloudevents+json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Headspace-Webhooks/1', ...headers },
          lookup: this.guard.lookup,
          signal: AbortSignal.timeout(timeoutMs),
          agent: secure ? this.httpsAgent : this.httpAgent,
        },
        (res) => {
          res.resume();
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          resolve(ok ? { ok, responseStatus: status, durationMs: elapsed() } : { ok, responseStatus: status, error: `HTTP ${status} ${res.statusMessage ?? ''}`.trim(), durationMs: elapsed() });
        },
      );
      req.on('error', (error: Error & { code?: string }) => {
        const why =
          error.name === 'AbortError' || error.name === 'TimeoutError'
            ? `timed out after ${timeoutMs} ms`
            : error instanceof WebhookTargetRefused
              ? `target refused: ${error.message}`
              : (error.code ?? error.message);
        resolve({ ok: false, error: why, durationMs: elapsed() });
      });
      req.end(body);
    });
  }
}
