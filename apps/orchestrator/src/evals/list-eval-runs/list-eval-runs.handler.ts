import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listEvalRuns } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { EvalRunRow } from '../eval-run.entity';

/** `hs.qry.orchestrator.list-eval-runs`: the team's eval runs from the read model, newest first. */
@Controller()
export class ListEvalRunsHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listEvalRuns)
  async handle({ team, limit }: z.output<typeof listEvalRuns.request>) {
    const rows = await this.reads.em().find(EvalRunRow, { team }, { orderBy: { startedAt: 'desc', evalRunId: 'desc' }, limit });
    return {
      runs: rows.map((r) => ({
        evalRunId: r.evalRunId,
        team: r.team,
        status: r.status,
        suite: r.suite,
        model: r.model ?? null,
        score: r.score ?? null,
        passed: r.passed,
        total: r.total,
        startedAt: r.startedAt.toISOString(),
        endedAt: r.endedAt ? r.endedAt.toISOString() : null,
      })),
    };
  }
}
