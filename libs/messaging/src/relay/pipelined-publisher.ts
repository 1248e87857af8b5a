import type { PubAck } from '@nats-io/jetstream';
import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import { MessagingError, MessagingErrorCodes } from '../messaging-error';

export interface PipelinedPublish {
  msgID: string;
  /** The stream that must store the message (Nats-Expected-Stream): a message captured by another is refused. */
  expectStream: string;
  /** The message's headers; Nats-Msg-Id and Nats-Expected-Stream are set on them. */
  headers: MsgHdrs;
}

interface Pending {
  subject: string;
  deadline: number;
  resolve(ack: PubAck): void;
  reject(error: Error): void;
}

interface PubAckBody {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  domain?: string;
  error?: { code?: number; err_code?: number; description?: string };
}

/**
 * JetStream publishes with their acks collected on ONE reply subscription: each message is a core
 * publish whose reply subject is `<inbox>.<n>`, and the PubAck (or JetStream's refusal, or the
 * server's 503 when no stream captures the subject) settles the promise of message n. This is
 * JetStream's asynchronous publish, as nats.go's PublishAsync does it; nats.js's `js.publish` makes a
 * request of each message instead: a request object, a timer and an error with a captured stack per
 * message, several times the client CPU of this path (figures: bench/README.md, docs/adr/0003).
 *
 * Timeouts are swept by one timer, in publish order (every message gets the same timeout).
 */
export class PipelinedPublisher {
  /** Under the connection's inbox prefix: a service's credentials may read only its own inbox. */
  private readonly inbox: string;
  private readonly pending = new Map<string, Pending>();
  private readonly subscription: Subscription;
  private sweeper: NodeJS.Timeout | undefined;
  private next = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {
    this.inbox = createInbox((nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix);
    this.subscription = nc.subscribe(`${this.inbox}.*`, { callback: (error, msg) => (error ? this.failAll(error) : this.settle(msg)) });
  }

  publish(subject: string, data: Uint8Array, options: PipelinedPublish): Promise<PubAck> {
    if (this.subscription.isClosed()) return Promise.reject(new MessagingError(MessagingErrorCodes.disconnected, 'The publisher is closed'));
    const key = String(this.next++);
    options.headers.set('Nats-Msg-Id', options.msgID);
    options.headers.set('Nats-Expected-Stream', options.expectStream);
    const acked = new Promise<PubAck>((resolve, reject) => {
      this.pending.set(key, { subject, deadline: Date.now() + this.timeoutMs, resolve, reject });
    });
    try {
      this.nc.publish(subject, data, { reply: `${this.inbox}.${key}`, headers: options.headers });
    } catch (error) {
      this.pending.delete(key);
      return Promise.reject(error as Error);
    }
    this.sweeper ??= setInterval(() => this.sweep(), Math.max(10, this.timeoutMs / 4)).unref();
    return acked;
  }

  /** Stops listening for acks; whatever still waits for one fails. */
  close(): void {
    this.subscription.unsubscribe();
    this.failAll(new MessagingError(MessagingErrorCodes.disconnected, 'The publisher was closed before JetStream acknowledged'));
  }

  private settle(msg: Msg): void {
    const key = msg.subject.slice(this.inbox.length + 1);
    const waiting = this.pending.get(key);
    if (!waiting) return; // timed out already
    this.pending.delete(key);
    if (msg.headers?.code === 503) {
      waiting.reject(new MessagingError(MessagingErrorCodes.noResponders, `No JetStream stream captures ${waiting.subject}`, { details: { subject: waiting.subject } }));
      return;
    }
    let body: PubAckBody;
    try {
      body = msg.json<PubAckBody>();
    } catch (error) {
      waiting.reject(new MessagingError(MessagingErrorCodes.badReply, `JetStream answered a publish on ${waiting.subject} with something that is not a PubAck`, { cause: error }));
      return;
    }
    if (body.error || typeof body.seq !== 'number' || !body.stream) {
      const description = body.error?.description ?? 'no sequence in the PubAck';
      waiting.reject(
        new MessagingError(MessagingErrorCodes.publishRejected, `JetStream refused a publish on ${waiting.subject}: ${description}`, {
          details: { subject: waiting.subject, code: body.error?.code, errCode: body.error?.err_code },
        }),
      );
      return;
    }
    waiting.resolve({ stream: body.stream, seq: body.seq, duplicate: body.duplicate === true, domain: body.domain });
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, waiting] of this.pending) {
      if (waiting.deadline > now) break;
      this.pending.delete(key);
      waiting.reject(
        new MessagingError(MessagingErrorCodes.timeout, `No PubAck for a publish on ${waiting.subject} within ${this.timeoutMs} ms`, {
          details: { subject: waiting.subject, timeoutMs: this.timeoutMs },
        }),
      );
    }
    if (this.pending.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
