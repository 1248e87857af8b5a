import { Injectable } from '@nestjs/common';
import type { AttemptOutcome } from './delivery.decider';

/**
 * POSTs one signed CloudEvent. A 2xx is a success; anything else, a redirect (not followed: the
 * signature is for the subscribed URL), a timeout or a connection error is a failure to retry.
 */
@Injectable()
export class WebhookSender {
  async send(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<AttemptOutcome & { durationMs: number }> {
    const started = performance.now();
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/cloudevents+json', 'user-agent': 'Headspace-Webhooks/1', ...headers },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.body?.cancel().catch(() => undefined);
      const durationMs = performance.now() - started;
      return res.ok ? { ok: true, responseStatus: res.status, durationMs } : { ok: false, responseStatus: res.status, error: `HTTP ${res.status} ${res.statusText}`.trim(), durationMs };
    } catch (error) {
      const e = error as Error & { cause?: { code?: string; message?: string } };
      const why = e.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
      return { ok: false, error: why, durationMs: performance.now() - started };
    }
  }
}
