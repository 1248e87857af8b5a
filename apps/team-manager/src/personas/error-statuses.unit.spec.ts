import { describe, expect, it } from 'vitest';
import { ErrorCodes, httpStatusForCode } from '@headspace/contracts';

describe('HTTP statuses of the persona, pool, manifest and approval errors', () => {
  it.each([
    [ErrorCodes.personaNotFound, 404],
    [ErrorCodes.personaAlreadyExists, 409],
    [ErrorCodes.personaLeaseNotFound, 404],
    [ErrorCodes.personaRequestNotFound, 404],
    [ErrorCodes.personaConfigInvalid, 500],
    [ErrorCodes.poolNotFound, 404],
    [ErrorCodes.manifestInvalid, 400],
    [ErrorCodes.manifestNotFound, 404],
    [ErrorCodes.approvalNotFound, 404],
    [ErrorCodes.approvalAlreadyAnswered, 409],
    [ErrorCodes.approvalAlreadyTimedOut, 409],
    [ErrorCodes.approvalUnknownTeam, 404],
  ])('%s is HTTP %i', (code, status) => {
    expect(httpStatusForCode(code)).toBe(status);
  });
});
