import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, getRequest, HeadspaceError } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadRequest } from '../request-recorder';

/** `hs.qry.orchestrator.get-request`: the topology chosen for a request, its reasons and what it started. */
@Controller()
export class GetRequestHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(getRequest)
  async handle({ requestId }: z.output<typeof getRequest.request>) {
    const { chosen } = await loadRequest(this.store, requestId);
    if (!chosen) throw new HeadspaceError(ErrorCodes.requestNotFound, `No request "${requestId}"`, { field: 'requestId' });
    return chosen;
  }
}
