import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EventData, sessionStarted } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../config';
import { giveLearnings, learningsGivenTo } from './learning-recorder';
import { LearningSearch } from './learning-search';
import { renderLearningsForPrompt } from './learning-prompt';
import { sessionOrigin } from './session-origin';

type Started = EventData<typeof sessionStarted>;

/**
 * What a session's learnings are ranked against: the first paragraph of its first user message,
 * where asks (`Request: …`), runs and loops state the task — the boilerplate after it would match
 * every learning that happens to share its words.
 */
export const taskText = (prompt: string): string => (prompt.trim().split(/\n\s*\n/)[0] ?? '').slice(0, 2_000);

/**
 * The learnings block of every session's system prompt (seed 003 Req 21.3): the team's learnings
 * most relevant to the session's task text, for its project and persona, top-K within the token
 * budget — recorded as `learning.given` for the session before the model sees them, so its outcome
 * moves the confidence of exactly those. A resumed session is given the same ones again (the first
 * list recorded wins), never a newer pick.
 */
@Injectable()
export class SessionLearningsRetrieval {
  private readonly logger = new Logger('SessionLearnings');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: EventStore,
    private readonly search: LearningSearch,
  ) {}

  async forSession(started: Started): Promise<string> {
    if (this.config.HS_LEARNINGS_STORE === 'off') return '';
    try {
      const [{ project }, already] = await Promise.all([sessionOrigin(this.store, started), learningsGivenTo(this.store, started.sessionId)]);
      const q = taskText(started.prompt);
      // No task text, nothing to be relevant to: an unranked list would be everything the team learned.
      const ranked = !q ? [] : await this.search.search({
        team: started.team,
        q,
        ...(project ? { project } : {}),
        persona: started.persona,
        limit: this.config.HS_LEARNINGS_TOP_K,
        match: 'any',
      });
      const pick = already ? ranked.filter((l) => already.includes(l.learningId)) : ranked;
      const { text, learningIds } = renderLearningsForPrompt(pick, this.config.HS_LEARNINGS_TOKEN_BUDGET);
      if (!already) await giveLearnings(this.store, { type: 'give-learnings', sessionId: started.sessionId, team: started.team, learningIds, now: new Date().toISOString() });
      return text;
    } catch (error) {
      // Learnings help a session; their store being unreachable must not stop it.
      this.logger.warn(`learnings for session ${started.sessionId}: ${(error as Error).message}`);
      return '';
    }
  }
}
