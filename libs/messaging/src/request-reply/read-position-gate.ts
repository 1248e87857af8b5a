import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import type { LogPosition } from '@headspace/event-store';

/** How a service tells whether its read models have passed a position of its own log. */
export interface ReadPositionGate {
  /** Resolves true once every read model of the service has passed `position`, false when `timeoutMs` ran out first. */
  waitFor(position: LogPosition, timeoutMs: number): Promise<boolean>;
  /** The longest this service lets a query wait, whatever the caller asks. */
  readonly maxWaitMs: number;
  /** The furthest position this process appended to the service's log (for commands whose appends ran outside their own async context). */
  appended(): LogPosition | undefined;
}

/**
 * One gate per service name in this process (tests boot several services in one process). A
 * service without one (no read models) answers queries at once: there is nothing to wait for.
 */
const gates = new Map<string, ReadPositionGate>();

export function registerReadPositionGate(service: string, gate: ReadPositionGate): () => void {
  gates.set(service, gate);
  return () => {
    if (gates.get(service) === gate) gates.delete(service);
  };
}

export function readPositionGate(service: string): ReadPositionGate | undefined {
  return gates.get(service);
}

export function readModelTimeout(service: string, waitedMs: number): HeadspaceError {
  return new HeadspaceError(
    ErrorCodes.readModelTimeout,
    `The ${service} read models did not reach the requested position within ${waitedMs} ms (a long transaction on the database may hold them back); retry`,
    { details: { service, waitedMs } },
  );
}
