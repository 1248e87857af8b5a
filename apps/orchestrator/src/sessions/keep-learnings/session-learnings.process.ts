import { Inject, Injectable, Optional } from '@nestjs/common';
import { DEFAULT_EXPERIENCE_MAX_ENTRIES, ExperienceLog, LearningsStore } from '@headspace/agent-runtime';
import { HeadspaceError, reflectionSchema, sessionReflected, sessionStreamId, type EventData, type sessionStarted } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { APP_CONFIG, EventProcessor } from '@headspace/platform';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppConfig } from '../../config';
import { SkillEvolution } from '../../skills/skill-evolution.service';

const CATCH_UP_EVERY_MS = 1_000;

type ReflectedEvent = RecordedEvent & { data: EventData<typeof sessionReflected> };

/**
 * Curates what sessions learned: each `session.reflected` with a valid reflection has its suggested
 * learnings appended to the persona's learnings.md under HS_AGENT_HOME (cross-agent ones to the
 * named teammate's), a line for the completion appended to its experience.md (pruned to
 * HS_EXPERIENCE_MAX_ENTRIES), and its `skill_updates` handed to SkillEvolution (an approval, the
 * Pending section or an automatic merge, by the team's mode) — whichever instance ran the session
 * and even if it died right after.
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
  private readonly experience: ExperienceLog;
  private readonly maxExperience: number;
  private readonly stopping = new AbortController();
  private loop?: Promise<void>;

  constructor(
    store: EventStore,
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() private readonly skills?: SkillEvolution,
  ) {
    super(store, { name: 'session-learnings', types: [sessionReflected.type] });
    this.learnings = new LearningsStore({ home: config.HS_AGENT_HOME });
    this.experience = new ExperienceLog(this.learnings);
    this.maxExperience = config.HS_EXPERIENCE_MAX_ENTRIES ?? DEFAULT_EXPERIENCE_MAX_ENTRIES;
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
    for (const { eventId, data } of events) {
      const reflection = reflectionSchema.safeParse(data.reflection);
      if (data.malformed || !reflection.success) continue;
      const [first] = await this.store.readStream(sessionStreamId(data.sessionId));
      const started = first?.data as EventData<typeof sessionStarted> | undefined;
      const persona = started?.persona;
      if (!started || !persona) continue;
      const r = reflection.data;
      // The task as the log names it: its id on the board, else the kind of work and the team (a prompt opens with boilerplate).
      const task = `${started.taskId ? `task ${started.taskId}` : (started.situation ?? started.kind)} in ${started.team}`;
      // skill_updates first: proposals by the team's curation mode (approval / pending / auto), idempotent (ids
      // derived from this event), so a team-manager out of reach retries the batch before any learning is counted.
      if (this.skills && r.skill_updates?.length) await this.skills.propose({ eventId, sessionId: data.sessionId, persona, team: started.team, reflection: r, task });
      try {
        if (r.suggested_learnings.length > 0) await this.learnings.applyReflection(persona, r);
        // experience.md: one line per completed session (its task, outcome and what was learned), pruned to the bound.
        await this.experience.record(persona, { ref: data.sessionId, task, outcome: r.task_result.status, summary: r.task_result.summary, learned: r.reflection.what_worked }, this.maxExperience);
      } catch (error) {
        // A learning the store refuses (a bad persona name) never becomes valid: skip it, do not block the log.
        if (!(error instanceof HeadspaceError)) throw error;
        this.logger.warn(`learnings of ${persona} from session ${data.sessionId}: ${error.message}`);
      }
    }
  }
}
