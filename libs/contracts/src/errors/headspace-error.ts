/**
 * Every error that crosses a boundary (NATS reply, HTTP response, log line) is a HeadspaceError
 * with a stable string code. Codes are `AREA.REASON` and never change meaning once shipped;
 * messages are for people and may change.
 */
export interface WireError {
  code: string;
  message: string;
  field?: string;
  details?: Record<string, unknown>;
}

export class HeadspaceError extends Error {
  readonly code: string;
  readonly field?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: string, message: string, opts: { field?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.field = opts.field;
    this.details = opts.details;
  }

  toWire(): WireError {
    const wire: WireError = { code: this.code, message: this.message };
    if (this.field !== undefined) wire.field = this.field;
    if (this.details !== undefined) wire.details = this.details;
    return wire;
  }

  static fromWire(wire: WireError): HeadspaceError {
    return new HeadspaceError(wire.code, wire.message, { field: wire.field, details: wire.details });
  }

  static isWire(value: unknown): value is WireError {
    return (
      typeof value === 'object' && value !== null &&
      typeof (value as WireError).code === 'string' && typeof (value as WireError).message === 'string'
    );
  }
}
