import type { RunView } from './run.contracts';

/** What one session of the run said about itself (its reflection), for the retrospective. */
export interface RetroReflection {
  persona: string;
  purpose: string;
  taskKey?: string | null;
  whatWorked: string;
  whatDidnt: string;
  learnings: string[];
}

const line = (text: string) => text.replace(/\s+/g, ' ').trim();
const cap = (persona: string) => persona.charAt(0).toUpperCase() + persona.slice(1);

/**
 * A run's retrospective (seed 001 `/retro`) as markdown: what was asked, what each task came to,
 * QA and escalations, the verdict, and — when the caller has them — what each session said worked,
 * did not, and learned. The orchestrator commits it as `memory/retros/<runId>.md` in the result
 * branch when the run ends; `headspace retro <runId>` prints the same from GET run.
 */
export function renderRunRetro(view: RunView, reflections: RetroReflection[] = []): string {
  const out = [`# Retro: ${line(view.title)}`, '', `Run \`${view.runId}\` of team ${view.team} (${view.mode}${view.simulated ? ', simulated' : ''}), started ${view.startedAt}${view.endedAt ? `, ended ${view.endedAt}` : ''}.`];
  out.push('', '## Outcome', '', `- Phase: ${view.phase}`, `- Verdict: ${view.verdict ?? 'none yet'}`);
  if (view.failure) out.push(`- Failure: ${line(view.failure)}`);
  out.push(`- Tasks merged: ${view.progress.tasksDone} of ${view.progress.tasksTotal}`, `- QA rounds: ${view.qaRounds}`, `- Sessions: ${view.sessions.length}`);
  if (view.spec) {
    out.push('', '## Goal', '', line(view.spec.goal));
    if (view.spec.acceptanceCriteria.length) out.push('', ...view.spec.acceptanceCriteria.map((c) => `- ${line(c)}`));
  }
  out.push('', '## Tasks', '');
  if (view.tasks.length === 0) out.push('None.');
  for (const t of view.tasks) {
    const who = [t.persona ? cap(t.persona) : undefined, `${t.attempts} attempt${t.attempts === 1 ? '' : 's'}`].filter(Boolean).join(', ');
    out.push(`- ${t.key} ${line(t.subject)}: ${t.status} (${who})`);
  }
  out.push('', '## Escalations', '');
  if (view.escalations.length === 0) out.push('None.');
  for (const e of view.escalations) out.push(`- ${e.escalationId} from ${e.from} to ${e.to}: ${line(e.subject)}${e.answered ? '' : ' (unanswered)'}`);
  const byPersona = new Map<string, number>();
  for (const s of view.sessions) byPersona.set(s.persona, (byPersona.get(s.persona) ?? 0) + 1);
  out.push('', '## Who worked', '', ...[...byPersona].map(([p, n]) => `- ${cap(p)}: ${n} session${n === 1 ? '' : 's'}`));
  if (reflections.length) {
    out.push('', '## What the sessions said');
    for (const r of reflections) {
      out.push('', `### ${cap(r.persona)} — ${r.purpose}${r.taskKey ? ` ${r.taskKey}` : ''}`);
      if (line(r.whatWorked)) out.push(`- Worked: ${line(r.whatWorked)}`);
      if (line(r.whatDidnt)) out.push(`- Did not: ${line(r.whatDidnt)}`);
      for (const l of r.learnings) out.push(`- Learned: ${line(l)}`);
    }
  }
  return out.join('\n') + '\n';
}
