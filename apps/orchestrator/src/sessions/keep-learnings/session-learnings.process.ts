import { Inject, Injectable } from '@nestjs/common';
import { LearningsStore } from '@headspace/agent-runtime';
import { HeadspaceError, reflectionSchema, sessionReflected, sessionStreamId, type EventData, type sessionStarted } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { APP_CONFIG, EventProcessor } from '@headspace/platform';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppConfig } from '../../config';

const CATCH_UP_EVERY_MS = 1_000;

type ReflectedEvent = RecordedEvent & { data: EventData<typeof sessionReflected> };

/**
 * Curates what sessions learned: each `session.reflected` with a valid reflection has its suggested
 * learnings appended to the persona's learnings.md under HS_AGENT_HOME (cross-agent ones to the
 * named teammate's), whichever instance ran the session and even if it died right after.
 *
 * At least once: the checkpoint commits after the file is written, so a crash between the two
 * applies the reflection again — LearningsStore then counts each repeated learning as one more
 * reference to its line instead of adding a line. No reset: a rebuild would re-apply everything.
 *
 * It catches up once a second instead of tailing the log: a running processor is woken by every
 * append and moves its checkpoint past every session event in a transaction of its own, which cost
 * each agent turn ~2 ms for a file nobody reads before the persona's next session.
 */
@Injectable()
export class SessionLearningsProcess extends EventProcessor<ReflectedEvent> {
  private readonly learnings: LearningsStore;
  private readonly stopping = new AbortController();
  private loop?: Promise<void>;

  constructor(store: EventStore, @Inject(APP_CONFIG) config: AppConfig) {
    super(store, { name: 'session-learnings', types: [sessionReflected.type] });
    this.learnings = new LearningsStore({ home: config.HS_AGENT_HOME });
  }

  override onApplicationBootstrap(): void {
    this.loop = this.keepUp();
  }

  override async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.runner.stop(); // releases a catch-up waiting on it
    await this.loop;
  }

  /** Applies every reflection recorded so far (another instance may be the one doing it), then stops. */
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
      await this.catchUp().catch((error: Error) => this.logger.warn(`session-learnings: ${error.message}`));
      await sleep(CATCH_UP_EVERY_MS, undefined, { signal: this.stopping.signal }).catch(() => undefined);
    }
  }

  protected async handle(events: ReflectedEvent[]): Promise<void> {
    for (const { data } of events) {
      const reflection = reflectionSchema.safeParse(data.reflection);
      if (data.malformed || !reflection.success || reflection.data.suggested_learnings.length === 0) continue;
      const [first] = await this.store.readStream(sessionStreamId(data.sessionId));
      const persona = (first?.data as EventData<typeof sessionStarted> | undefined)?.persona;
      if (!persona) continue;
      try {
        await this.learnings.applyReflection(persona, reflection.data);
      } catch (error) {
        // A learning the store refuses (a bad persona name) never becomes valid: skip it, do not block the log.
        if (!(error instanceof HeadspaceError)) throw error;
        this.logger.warn(`learnings of ${persona} from session ${data.sessionId}: ${error.message}`);
      }
    }
  }
}
