import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listAsks } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { AskRow } from '../ask.entity';

/** `hs.qry.orchestrator.list-asks`: the team's asks from the asks read model, newest first. */
@Controller()
export class ListAsksHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listAsks)
  async handle({ team, limit }: z.output<typeof listAsks.request>) {
    const rows = await this.reads.em().find(AskRow, { team }, { orderBy: { startedAt: 'desc', askId: 'desc' }, limit });
    return {
      asks: rows.map((r) => ({
        askId: r.askId,
        team: r.team,
        status: r.status,
        persona: r.persona,
        model: r.model,
        costUsd: r.costUsd ?? null,
        startedAt: r.startedAt.toISOString(),
        endedAt: r.endedAt ? r.endedAt.toISOString() : null,
      })),
    };
  }
}
