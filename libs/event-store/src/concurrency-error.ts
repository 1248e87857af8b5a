import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import type { ExpectedVersion } from './types';

export class ConcurrencyError extends HeadspaceError {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: bigint | null,
  ) {
    super(
      ErrorCodes.wrongExpectedVersion,
      `Stream ${streamId} is at version ${actual ?? 'none (no stream)'}, expected ${String(expected)}`,
      { details: { streamId, expected: String(expected), actual: actual === null ? null : actual.toString() } },
    );
  }
}
