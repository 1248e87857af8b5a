import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_LEARNING_CONFIDENCE, HeadspaceError, learningStreamId, reflectionSchema, sessionEnded, sessionReflected, sessionStreamId, type EventData, type Reflection, type sessionStarted } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { APP_CONFIG, EventProcessor } from '@headspace/platform';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppConfig } from '../config';
import { learningsGivenTo, recordLearningStep } from './learning-recorder';
import { splitLearning } from './learning-prompt';
import { sessionOrigin } from './session-origin';

const CATCH_UP_EVERY_MS = 1_000;
/** Ends that count as a failure of the session even without a reflection. */
const FAILED_EXITS = new Set(['error', 'max_turns', 'budget_stopped']);

type Started = EventData<typeof sessionStarted>;
type SessionEvent = RecordedEvent & { data: EventData<typeof sessionReflected> | EventData<typeof sessionEnded> };

/** A learning's id from the reflection event and its position in it: applying the same reflection twice records nothing new. */
export const learningIdFor = (eventId: string, index: number) => `l-${createHash('sha256').update(`${eventId}:${index}`).digest('hex').slice(0, 16)}`;

/**
 * Feeds sessions' outcomes into the learning store: a reflection's suggested learnings become
 * records (pattern, resolution, source session/ask/run, persona, project), and the learnings the
 * session was given are reinforced when it reports `completed` and weakened when it reports
 * anything else or ends in error. At least once; each step's command id makes a repeat a no-op.
 * Like SessionLearningsProcess it catches up once a second rather than waking on every session event.
 */
@Injectable()
export class LearningsFromSessionsProcess extends EventProcessor<SessionEvent> {
  private readonly stopping = new AbortController();
  private loop?: Promise<void>;

  constructor(
    store: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super(store, { name: 'learnings-from-sessions', types: [sessionReflected.type, sessionEnded.type] });
  }

  override onApplicationBootstrap(): void {
    if (this.config.HS_LEARNINGS_STORE === 'on') this.loop = this.keepUp();
  }

  override async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.runner.stop();
    await this.loop;
  }

  /** Applies every session outcome recorded so far, then stops. */
  async catchUp(): Promise<void> {
    this.runner.start();
    try {
      await this.runner.waitUntilCaughtUp();
    } finally {
      await this.runner.stop();
    }
  }

  private async keepUp(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      await this.catchUp().catch((error: Error) => this.logger.warn(`learnings-from-sessions: ${error.message}`));
      await sleep(CATCH_UP_EVERY_MS, undefined, { signal: this.stopping.signal }).catch(() => undefined);
    }
  }

  protected async handle(events: SessionEvent[]): Promise<void> {
    for (const event of events) {
      if (event.type === sessionEnded.type) {
        const ended = event.data as EventData<typeof sessionEnded>;
        if (FAILED_EXITS.has(ended.exitReason)) await this.outcome(ended.sessionId, 'weaken-learning', ended.at);
        continue;
      }
      const data = event.data as EventData<typeof sessionReflected>;
      const reflection = reflectionSchema.safeParse(data.reflection);
      if (data.malformed || !reflection.success) continue;
      const [first] = await this.store.readStream(sessionStreamId(data.sessionId));
      const started = first?.data as Started | undefined;
      if (!started) continue;
      try {
        await this.record(event.eventId, started, reflection.data.suggested_learnings, data.at);
      } catch (error) {
        // A learning its contract refuses never becomes valid: skip it rather than block the log.
        if (!(error instanceof HeadspaceError)) throw error;
        this.logger.warn(`learnings of session ${data.sessionId}: ${error.message}`);
      }
      await this.outcome(data.sessionId, reflection.data.task_result.status === 'completed' ? 'reinforce-learning' : 'weaken-learning', data.at);
    }
  }

  private async record(eventId: string, started: Started, learnings: Reflection['suggested_learnings'], at: string) {
    if (learnings.length === 0) return;
    const origin = await sessionOrigin(this.store, started);
    // A path longer than a record holds scopes nothing (the learning then applies team-wide).
    const project = origin.project && origin.project.length <= 1_000 ? origin.project : undefined;
    for (const [i, l] of learnings.entries()) {
      const persona = (l.category === 'cross-agent' ? l.for_agent : started.persona)?.toLowerCase();
      const learningId = learningIdFor(eventId, i);
      await recordLearningStep(this.store, started.team, {
        type: 'record-learning',
        learningId,
        team: started.team,
        ...(project ? { project } : {}),
        ...(persona && /^[a-z][a-z0-9-]{0,63}$/.test(persona) ? { persona } : {}),
        category: l.category,
        ...splitLearning(l.content),
        confidence: DEFAULT_LEARNING_CONFIDENCE,
        source: origin.source,
        now: at,
      });
    }
  }

  private async outcome(sessionId: string, type: 'reinforce-learning' | 'weaken-learning', at: string) {
    const given = (await learningsGivenTo(this.store, sessionId)) ?? [];
    for (const learningId of given) {
      const [recorded] = await this.store.readStream(learningStreamId(learningId));
      const team = (recorded?.data as { team?: string } | undefined)?.team;
      if (!team) continue;
      await recordLearningStep(this.store, team, { type, learningId, sessionId, now: at });
    }
  }
}
