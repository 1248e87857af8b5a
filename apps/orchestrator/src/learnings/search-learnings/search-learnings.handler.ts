import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { searchLearnings } from '@headspace/contracts';
import type { z } from 'zod';
import { LearningSearch } from '../learning-search';

/** `hs.qry.orchestrator.search-learnings`: the team's learnings ranked by relevance to `q` × confidence. */
@Controller()
export class SearchLearningsHandler {
  constructor(private readonly learnings: LearningSearch) {}

  @MessagePattern(searchLearnings)
  async handle(input: z.output<typeof searchLearnings.request>) {
    return { learnings: await this.learnings.search({ ...input, match: 'all' }) };
  }
}
