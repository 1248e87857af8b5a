import type { TriageFacts } from './triage-rules';

/** The group as the model sees it (the user message): facts only, the instructions are the system prompt's. */
export interface GroupBrief extends TriageFacts {
  culprit: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
  releases: string[];
  environments: string[];
}

const MAX_FRAMES = 15;

export const LIGHT_SYSTEM = [
  'You are Leon, the operations lead of a team of AI coding agents. Triage one production exception group.',
  'Answer with one JSON object and nothing else:',
  '{"severity": "critical"|"error"|"warning"|"noise", "domain": "backend"|"frontend"|"database"|"infrastructure",',
  ' "complex": boolean (architectural, or needs a root-cause investigation), "autoFixable": boolean (one agent can fix it with a test),',
  ' "hypothesis": "the likely root cause, one or two sentences", "approach": "how to fix it, one or two sentences"}',
].join('\n');

export const DEEP_SYSTEM = [
  'You are Leon, the operations lead of a team of AI coding agents. A first look called this production exception group complex.',
  'Find the root cause. Answer with one JSON object and nothing else:',
  '{"hypothesis": "the root cause, up to five sentences", "approach": "the fix approach, up to five sentences", "autoFixable": boolean}',
].join('\n');

/** The user message of both calls: the group's facts, the rules' verdict, and for the deep call the first look. */
export function groupPrompt(g: GroupBrief, ruleReasons: string[], firstLook?: string): string {
  const frames = g.frames.slice(-MAX_FRAMES).map((f) => `  ${[f.module ?? f.filename, f.function].filter(Boolean).join(' in ')}`);
  return [
    `Exception: ${g.type}`,
    `Title: ${g.title}`,
    `Culprit: ${g.culprit || '(unknown)'}`,
    `Message: ${g.message.slice(0, 2_000)}`,
    `Level: ${g.level}; handled: ${g.handled === undefined ? 'unknown' : g.handled}; platform: ${g.platform ?? 'unknown'}`,
    `Events: ${g.count} (first ${g.firstSeen}, last ${g.lastSeen}; ${g.eventsInWindow} in the last ${g.windowSeconds} s)${g.spiked ? '; spiking' : ''}`,
    `Releases: ${g.releases.join(', ') || '(none)'}; environments: ${g.environments.join(', ') || '(none)'}`,
    'In-app frames (innermost last):',
    ...(frames.length ? frames : ['  (none)']),
    'Rules:',
    ...ruleReasons.map((r) => `  ${r}`),
    ...(firstLook ? ['First look:', `  ${firstLook}`] : []),
  ].join('\n');
}
