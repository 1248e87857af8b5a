import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listLoops } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { LoopRow } from '../loop.entity';

/** `hs.qry.orchestrator.list-loops`: the team's loops from the loops read model, newest first. */
@Controller()
export class ListLoopsHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listLoops)
  async handle({ team, limit }: z.output<typeof listLoops.request>) {
    const rows = await this.reads.em().find(LoopRow, { team }, { orderBy: { startedAt: 'desc', loopId: 'desc' }, limit });
    return {
      loops: rows.map((r) => ({
        loopId: r.loopId,
        team: r.team,
        status: r.status,
        stopReason: r.stopReason ?? null,
        persona: r.persona,
        model: r.model,
        iterations: r.iterations,
        startedAt: r.startedAt.toISOString(),
        endedAt: r.endedAt ? r.endedAt.toISOString() : null,
      })),
    };
  }
}
