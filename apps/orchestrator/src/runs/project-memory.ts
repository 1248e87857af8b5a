import { ProjectLearningsStore, TeamMemoryStore } from '@headspace/agent-runtime';
import { HeadspaceError, reflectionSchema, renderRunRetro, sessionReflected, sessionStreamId, type EventData, type RetroReflection } from '@headspace/contracts';
import type { EventStore } from '@headspace/event-store';
import { join } from 'node:path';
import { runView } from './run-view';
import type { RunState } from './run.state';

/** The folder of a project's protocol files (seed 001), relative to its root. */
export const PROJECT_MEMORY_DIR = 'memory';

export const projectMemoryCommitMessage = (runId: string) => `Team memory of run ${runId}`;

/**
 * The run's protocol files, written into its integration checkout `dir` when it completes (seed
 * 001; committed by the caller, so they are in the result branch):
 * - `memory/agents/<persona>/learnings.md` for every persona that worked the run: the suggested
 *   learnings of its sessions' reflections, routed and consolidated as in the agent home (which
 *   keeps its own copy, SessionLearningsProcess), on top of what the project held already;
 * - `memory/decisions.md`: the spec's constraints and scope cuts, and Robbo's review verdict;
 * - `memory/retros/<runId>.md`: the run's retrospective.
 */
export async function writeProjectMemory(store: EventStore, state: RunState, dir: string, now = new Date()): Promise<{ personas: string[]; retro: string }> {
  const s = state.started!;
  const memoryDir = join(dir, PROJECT_MEMORY_DIR);
  const learnings = new ProjectLearningsStore(memoryDir, { now: () => now });
  const team = new TeamMemoryStore({ memoryDir, now: () => now });
  const sessions = Object.values(state.sessions);
  const personas = [...new Set(sessions.map((x) => x.persona))];
  for (const persona of personas) await learnings.seed(persona);

  const reflections: RetroReflection[] = [];
  for (const session of sessions) {
    const reflected = (await store.readStream(sessionStreamId(session.sessionId))).filter((e) => e.type === sessionReflected.type).at(-1);
    const data = reflected?.data as EventData<typeof sessionReflected> | undefined;
    const parsed = data && !data.malformed ? reflectionSchema.safeParse(data.reflection) : undefined;
    if (!parsed?.success) continue;
    const r = parsed.data;
    reflections.push({ persona: session.persona, purpose: session.purpose, taskKey: session.taskKey ?? null, whatWorked: r.reflection.what_worked, whatDidnt: r.reflection.what_didnt, learnings: r.suggested_learnings.map((l) => l.content) });
    if (r.suggested_learnings.length === 0) continue;
    try {
      await learnings.applyReflection(session.persona, r);
    } catch (error) {
      // A learning the store refuses (a cross-agent note for a name that is no persona) is left out, as in the agent home.
      if (!(error instanceof HeadspaceError)) throw error;
    }
  }

  await team.seed(s.team);
  const known = new Set((await team.readDecisions(s.team)).map((d) => `${d.section}\n${d.text}`));
  const decide = async (section: string, text: string, by: string) => {
    const clean = text.replace(/\s+/g, ' ').trim();
    if (!clean || known.has(`${section}\n${clean}`)) return;
    known.add(`${section}\n${clean}`);
    await team.recordDecision(s.team, { section, text: clean, by });
  };
  const specBy = sessions.find((x) => x.purpose === 'workshop')?.persona ?? 'operator';
  for (const c of state.spec?.constraints ?? []) await decide('Conventions', c, specBy);
  for (const c of state.spec?.outOfScope ?? []) await decide('Out of Scope', c, specBy);
  if (state.review) {
    const by = [...sessions].reverse().find((x) => x.purpose === 'review')?.persona ?? 'robbo';
    const issues = state.review.issues.length ? `; issues: ${state.review.issues.join('; ')}` : '';
    await decide('Reviews', `Run ${s.runId} '${s.title}': ${state.review.verdict}${issues}`, by);
  }

  const view = { ...runView(state), phase: 'completed' as const, verdict: state.review?.verdict ?? 'done', endedAt: now.toISOString() };
  const retro = await team.writeRetro(s.team, s.runId, renderRunRetro(view, reflections));
  return { personas, retro };
}
