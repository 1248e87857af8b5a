import { Injectable } from '@nestjs/common';

export interface SendOutcome {
  ok: boolean;
  httpStatus?: number;
  /** A status line or transport error; never the receiver's body. */
  error?: string;
  durationMs: number;
}

/**
 * POSTs one signed webhook body. A 2xx is a success; anything else, a redirect (not followed: the
 * signature is for the configured URL), a timeout or a connection error is a failure to retry.
 */
@Injectable()
export class WebhookSender {
  async send(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendOutcome> {
    const started = performance.now();
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Headspace-Leon/1', ...headers },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.body?.cancel().catch(() => undefined);
      const durationMs = performance.now() - started;
      return res.ok ? { ok: true, httpStatus: res.status, durationMs } : { ok: false, httpStatus: res.status, error: `HTTP ${res.status} ${res.statusText}`.trim(), durationMs };
    } catch (error) {
      const e = error as Error & { cause?: { code?: string; message?: string } };
      const why = e.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
      return { ok: false, error: why, durationMs: performance.now() - started };
    }
  }
}
