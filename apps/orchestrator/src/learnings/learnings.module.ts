import { Module } from '@nestjs/common';
import { GetLearningHandler } from './get-learning/get-learning.handler';
import { LearningSearch } from './learning-search';
import { LearningsFromSessionsProcess } from './learnings-from-sessions.process';
import { LearningsProjection } from './learnings.projection';
import { RecordLearningHandler } from './record-learning/record-learning.handler';
import { SearchLearningsHandler } from './search-learnings/search-learnings.handler';
import { SessionLearningsRetrieval } from './session-learnings-retrieval';

/**
 * The learning store (issue 25 scope 5, seed 003 Req 21, ADR 0048): learnings as event-sourced
 * records with full-text ranked retrieval, injected into every session's prompt and moved in
 * confidence by the outcomes of the sessions given them.
 */
@Module({
  providers: [LearningSearch, LearningsProjection, LearningsFromSessionsProcess, SessionLearningsRetrieval],
  controllers: [RecordLearningHandler, SearchLearningsHandler, GetLearningHandler],
  exports: [LearningSearch, LearningsProjection, LearningsFromSessionsProcess, SessionLearningsRetrieval],
})
export class LearningsModule {}
