import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, getPersonaRequest, HeadspaceError } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { PersonaRequestRow } from '../persona-board.entity';

/** `get-persona-request`: where a persona request stands (queued, granted with its lease, released), from the projection. */
@Controller()
export class GetPersonaRequestHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(getPersonaRequest)
  async handle(@Payload() request: z.output<typeof getPersonaRequest.request>) {
    const row = await this.reads.one(PersonaRequestRow, { requestId: request.requestId });
    if (!row) throw new HeadspaceError(ErrorCodes.personaRequestNotFound, `No persona request "${request.requestId}"`, { field: 'requestId' });
    const { requestId, pool, status, personaId, leaseId } = row;
    return { requestId, pool, status, ...(personaId ? { personaId } : {}), ...(leaseId ? { leaseId } : {}) };
  }
}
