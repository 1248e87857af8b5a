import { Injectable } from '@nestjs/common';
import { skillCurationSet, skillModeStreamId, type EventData, type SkillCurationMode } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';

/** Seed 000 §7's default: every proposal waits for an approval. */
export const DEFAULT_SKILL_CURATION: SkillCurationMode = 'approval';

/** A team's skill curation mode: the last `skill.curation-set` on `skillmode-<team>`, else `approval`. */
@Injectable()
export class SkillCurationModes {
  constructor(private readonly store: EventStore) {}

  async of(team: string): Promise<SkillCurationMode> {
    const events = await this.store.readStream(skillModeStreamId(team));
    const last = events.at(-1)?.data as EventData<typeof skillCurationSet> | undefined;
    return last?.mode ?? DEFAULT_SKILL_CURATION;
  }

  async set(team: string, mode: SkillCurationMode, setBy: string, commandId?: string): Promise<SkillCurationMode> {
    await this.store.append(
      skillModeStreamId(team),
      [{ type: skillCurationSet.type, data: { team, mode, setBy, at: new Date().toISOString() } satisfies EventData<typeof skillCurationSet> }],
      { expected: 'any', ...(commandId ? { commandId } : {}) },
    );
    return mode;
  }
}
