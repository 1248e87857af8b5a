import type { LearningCategory } from '@headspace/contracts';

/**
 * The learnings file of seed 001: `# Learnings: <name>`, four category sections, one bullet per
 * learning with `(added: YYYY-MM-DD)`. Headspace adds bookkeeping inside the same parentheses —
 * `refs: N` (times the learning was confirmed/used), `last: YYYY-MM-DD` (last reference),
 * `sprints: N` (sprints it was confirmed in) — and a `[core]` marker for the 30-line core tier;
 * unmarked lines are the 30-line task-relevant tier.
 */
export const LEARNING_SECTIONS = ['Codebase Patterns', 'Gotchas', 'Preferences', 'Cross-Agent Notes'] as const;
export type LearningSection = (typeof LEARNING_SECTIONS)[number];

export const sectionForCategory: Record<LearningCategory, LearningSection> = {
  'codebase-pattern': 'Codebase Patterns',
  gotcha: 'Gotchas',
  preference: 'Preferences',
  'cross-agent': 'Cross-Agent Notes',
};

export interface LearningEntry {
  section: LearningSection;
  tier: 'core' | 'task';
  content: string;
  /** For cross-agent notes: the persona that sent it. */
  from?: string;
  /** YYYY-MM-DD; empty for a hand-written line not yet consolidated. */
  added: string;
  refs: number;
  last?: string;
  sprints: number;
}

export interface LearningsFile {
  persona: string;
  entries: LearningEntry[];
}

const ENTRY = /^- (\[core\] )?(?:\(from ([a-z0-9-]+)\) )?(.*?) \(added: (\d{4}-\d{2}-\d{2})((?:, [a-z]+: [\w-]+)*)\)\s*$/;

export function parseLearnings(text: string, persona: string): LearningsFile {
  const entries: LearningEntry[] = [];
  let section: LearningSection | undefined;
  for (const line of text.split('\n')) {
    const head = /^## (.+?)\s*$/.exec(line);
    if (head) {
      section = (LEARNING_SECTIONS as readonly string[]).includes(head[1]) ? (head[1] as LearningSection) : undefined;
      continue;
    }
    if (!section || !line.startsWith('- ')) continue;
    const m = ENTRY.exec(line);
    if (!m) {
      // Hand-written line without metadata: kept; its clock starts at the next consolidation.
      entries.push({ section, tier: 'task', content: line.slice(2).trim(), added: '', refs: 0, sprints: 0 });
      continue;
    }
    const meta = Object.fromEntries([...m[5].matchAll(/, ([a-z]+): ([\w-]+)/g)].map((x) => [x[1], x[2]]));
    entries.push({
      section,
      tier: m[1] ? 'core' : 'task',
      from: m[2],
      content: m[3],
      added: m[4],
      refs: meta.refs ? Number(meta.refs) : 0,
      last: meta.last,
      sprints: meta.sprints ? Number(meta.sprints) : 0,
    });
  }
  return { persona, entries };
}

export function renderEntry(e: LearningEntry): string {
  if (!e.added) return `- ${e.content}`;
  const meta = [`added: ${e.added}`];
  if (e.refs > 0) meta.push(`refs: ${e.refs}`);
  if (e.last) meta.push(`last: ${e.last}`);
  if (e.sprints > 0) meta.push(`sprints: ${e.sprints}`);
  return `- ${e.tier === 'core' ? '[core] ' : ''}${e.from ? `(from ${e.from}) ` : ''}${e.content} (${meta.join(', ')})`;
}

export function renderLearnings(file: LearningsFile): string {
  const out = [`# Learnings: ${file.persona}`];
  for (const section of LEARNING_SECTIONS) {
    out.push('', `## ${section}`);
    const inSection = file.entries.filter((e) => e.section === section);
    // core first, so the always-injected lines lead each section
    for (const e of [...inSection.filter((x) => x.tier === 'core'), ...inSection.filter((x) => x.tier === 'task')]) out.push(renderEntry(e));
  }
  return out.join('\n') + '\n';
}

/** Lowercased word set, for "says the same thing in different ways". */
export function learningWords(s: string): Set<string> {
  return new Set(s.toLowerCase().replace(/\(added:[^)]*\)/g, '').split(/[^a-z0-9_.]+/).filter((w) => w.length > 2));
}

export function learningSimilarity(a: string, b: string): number {
  const wa = learningWords(a);
  const wb = learningWords(b);
  if (wa.size === 0 || wb.size === 0) return a.trim().toLowerCase() === b.trim().toLowerCase() ? 1 : 0;
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared += 1;
  return shared / (wa.size + wb.size - shared);
}
