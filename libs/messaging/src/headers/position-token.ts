import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import type { LogPosition } from '@headspace/event-store';

/**
 * A log position as clients carry it: `<service>:<transaction id>:<global position>`, e.g.
 * `team-manager:7412:1093`. Each service has its own log, so the token names it; a list of them
 * (one per service written to) is comma-separated. Clients treat tokens as opaque strings.
 */
export interface PositionToken {
  service: string;
  position: LogPosition;
}

const TOKEN = /^([a-z][a-z0-9-]{0,62}):(\d{1,20}):(\d{1,20})$/;
/** More tokens than services is a client bug, not something to wait on. */
const MAX_TOKENS = 16;

export function formatPositionToken(service: string, position: LogPosition): string {
  return `${service}:${position.transactionId}:${position.globalPosition}`;
}

/** Parses a comma-separated list of tokens; a malformed one is a READ_MODEL.POSITION_INVALID naming `field`. */
export function parsePositionTokens(value: string, field: string): PositionToken[] {
  const parts = value.split(',').map((part) => part.trim()).filter(Boolean);
  if (parts.length > MAX_TOKENS) throw invalid(field, `at most ${MAX_TOKENS} positions`);
  return parts.map((part) => {
    const match = TOKEN.exec(part);
    if (!match) throw invalid(field, 'positions look like "team-manager:7412:1093", as a Headspace-Position response header gave them');
    return { service: match[1], position: { transactionId: BigInt(match[2]).toString(), globalPosition: BigInt(match[3]) } };
  });
}

/** Merges token lists, keeping the furthest position per service (tokens of one service come from one log). */
export function mergePositionTokens(...lists: PositionToken[][]): PositionToken[] {
  const byService = new Map<string, PositionToken>();
  for (const token of lists.flat()) {
    const known = byService.get(token.service);
    if (!known || isAfter(token.position, known.position)) byService.set(token.service, token);
  }
  return [...byService.values()];
}

const isAfter = (a: LogPosition, b: LogPosition) =>
  BigInt(a.transactionId) > BigInt(b.transactionId) || (a.transactionId === b.transactionId && a.globalPosition > b.globalPosition);

const invalid = (field: string, message: string) =>
  new HeadspaceError(ErrorCodes.readModelPositionInvalid, `${field} is not a list of log positions: ${message}`, { field });
