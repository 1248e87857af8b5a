/** Stable codes of the SDK's errors, for programs that branch on them. */
export const SubscriberErrorCodes = {
  streamRefused: 'SUBSCRIBER.STREAM_REFUSED',
  signatureMissing: 'SUBSCRIBER.SIGNATURE_MISSING',
  signatureMalformed: 'SUBSCRIBER.SIGNATURE_MALFORMED',
  signatureExpired: 'SUBSCRIBER.SIGNATURE_EXPIRED',
  signatureMismatch: 'SUBSCRIBER.SIGNATURE_MISMATCH',
  bodyNotCloudEvent: 'SUBSCRIBER.BODY_NOT_CLOUD_EVENT',
} as const;

export type SubscriberErrorCode = (typeof SubscriberErrorCodes)[keyof typeof SubscriberErrorCodes];

export class SubscriberError extends Error {
  constructor(
    readonly code: SubscriberErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The gateway answered the stream request with an error that retrying will not fix (401, 403, 400…). */
export class StreamRefusedError extends SubscriberError {
  constructor(
    readonly status: number,
    /** The problem+json body (or text) the gateway sent. */
    readonly body: unknown,
  ) {
    const detail = body && typeof body === 'object' && 'detail' in body ? String((body as { detail: unknown }).detail) : '';
    super(SubscriberErrorCodes.streamRefused, `The event stream was refused with HTTP ${status}${detail ? `: ${detail}` : ''}`);
  }
}

export type WebhookRejection = 'missing' | 'malformed' | 'expired' | 'mismatch' | 'not-a-cloud-event';

const codeOf: Record<WebhookRejection, SubscriberErrorCode> = {
  missing: SubscriberErrorCodes.signatureMissing,
  malformed: SubscriberErrorCodes.signatureMalformed,
  expired: SubscriberErrorCodes.signatureExpired,
  mismatch: SubscriberErrorCodes.signatureMismatch,
  'not-a-cloud-event': SubscriberErrorCodes.bodyNotCloudEvent,
};

/** A webhook request that must not be trusted; answer it with a 4xx. */
export class WebhookVerificationError extends SubscriberError {
  constructor(
    readonly reason: WebhookRejection,
    message: string,
  ) {
    super(codeOf[reason], message);
  }
}
