import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import { createTransport, type Transporter } from 'nodemailer';
import type { NotificationsConfig } from '../notifications.config';
import type { SendOutcome } from './webhook-sender';

/** Email over SMTP (nodemailer) to HS_SMTP_URL; one pooled transport for the process. */
@Injectable()
export class EmailSender implements OnModuleDestroy {
  private transport?: Transporter;

  constructor(@Inject(APP_CONFIG) private readonly config: NotificationsConfig) {}

  get configured(): boolean {
    return this.config.HS_SMTP_URL !== undefined;
  }

  async send(message: { to: string[]; subject: string; text: string }, timeoutMs: number): Promise<SendOutcome> {
    const started = performance.now();
    this.transport ??= createTransport({
      url: this.config.HS_SMTP_URL!,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    try {
      await this.transport.sendMail({ from: this.config.HS_SMTP_FROM, to: message.to, subject: message.subject, text: message.text });
      return { ok: true, durationMs: performance.now() - started };
    } catch (error) {
      const e = error as Error & { responseCode?: number; code?: string };
      // The server's reply or the socket error; nodemailer puts no credentials in either.
      return { ok: false, error: `${e.code ?? 'SMTP'}${e.responseCode ? ` ${e.responseCode}` : ''}: ${e.message}`.slice(0, 500), durationMs: performance.now() - started };
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}
