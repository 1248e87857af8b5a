import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ErrorCodes,
  HeadspaceError,
  handoffArtefactSchema,
  issuesOf,
  type FieldIssue,
  type HandoffArtefact,
  type HandoffArtefactInput,
  type PreservedItem,
} from '@headspace/contracts';
import { composePrompt, type ComposedPrompt } from '../reflection/prompt';
import { writeFileAtomic } from './atomic-write';
import type { ContextWindow } from './context-window';

/**
 * The "end of day" handoff (seed 000 §6): the outgoing session writes the §6.3 artefact, a fresh
 * session of the same persona starts from identity + skill file + artefact + task. Preserved
 * context (PRESERVE_VERBATIM/STRUCTURED items) rides along inside fenced blocks and comes back
 * byte-identical.
 */

export class HandoffValidationError extends HeadspaceError {
  constructor(readonly issues: FieldIssue[], what = 'handoff artefact') {
    const first = issues[0] ?? { field: '(root)', message: 'invalid' };
    super(ErrorCodes.handoffInvalid, `Invalid ${what}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, {
      field: first.field,
      details: { issues },
    });
  }
}

/** Validate an artefact; a bad one is a HANDOFF.INVALID error whose `field` names the first offending path. */
export function validateHandoff(value: unknown): HandoffArtefact {
  const result = handoffArtefactSchema.safeParse(value);
  if (!result.success) throw new HandoffValidationError(issuesOf(result.error));
  return result.data;
}

export type BuildHandoffInput = Omit<HandoffArtefactInput, 'preserved' | 'sessionAt'> & {
  /** Defaults to now. */
  sessionAt?: string;
  /** Preserved items are taken from here (every PRESERVE_VERBATIM and PRESERVE_STRUCTURED item). */
  context?: ContextWindow;
  /** Extra preserved items (added after the context's). */
  preserved?: PreservedItem[];
};

export function buildHandoff(input: BuildHandoffInput): HandoffArtefact {
  const { context, preserved = [], sessionAt, ...rest } = input;
  const fromContext: PreservedItem[] = (context?.list() ?? [])
    .filter((i) => i.category === 'PRESERVE_VERBATIM' || i.category === 'PRESERVE_STRUCTURED')
    .map((i) => ({ id: i.id, category: i.category as PreservedItem['category'], kind: i.kind, content: i.content }));
  return validateHandoff({ ...rest, sessionAt: sessionAt ?? new Date().toISOString(), preserved: [...fromContext, ...preserved] });
}

const NONE = '_none_';

function fenceFor(content: string): string {
  const longest = Math.max(0, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

const list = (items: string[]) => (items.length === 0 ? [NONE] : items.map((i) => `- ${i}`));

/** Render the artefact as the seed's markdown (§6.3), with a Preserved Context section last. */
export function renderHandoffMarkdown(h: HandoffArtefact): string {
  const out: string[] = [`# Handoff: ${h.persona} — Session ${h.sessionAt}`, ''];
  out.push('## Task', h.task, '');
  out.push('## Status', h.percentComplete === undefined ? h.status : `${h.status} — ${h.percentComplete}% complete`, '');
  out.push('## What Was Done', ...list(h.whatWasDone), '');
  out.push('## What Remains', ...list(h.whatRemains), '');
  out.push('## Blockers / Notes', ...list(h.blockersNotes), '');
  out.push('## Files Modified', ...list(h.filesModified.map((f) => `${f.path} (${f.change})`)), '');
  out.push('## Suggested Next Steps', ...h.suggestedNextSteps.map((s, i) => `${i + 1}. ${s}`), '');
  if (h.preserved.length > 0) {
    out.push('## Preserved Context', '');
    for (const p of h.preserved) {
      const fence = fenceFor(p.content);
      out.push(`### ${p.category} ${p.kind} ${p.id}`, `${fence}text`, p.content, fence, '');
    }
  }
  return out.join('\n');
}

/** Parse the markdown back into an artefact and validate it. */
export function parseHandoffMarkdown(markdown: string): HandoffArtefact {
  const lines = markdown.split('\n');
  const title = /^# Handoff: (.+) — Session (\S+)$/.exec(lines[0] ?? '');
  if (!title) throw new HandoffValidationError([{ field: '(title)', message: 'first line must be "# Handoff: <persona> — Session <ISO time>"' }]);
  const sections = new Map<string, string[]>();
  const preserved: PreservedItem[] = [];
  let current: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('## ')) {
      current = line.slice(3).trim();
      sections.set(current, []);
      continue;
    }
    if (current === 'Preserved Context') {
      const head = /^### (PRESERVE_VERBATIM|PRESERVE_STRUCTURED) (\S+) (\S+)$/.exec(line);
      if (!head) continue;
      const open = /^(`{3,})text$/.exec(lines[i + 1] ?? '');
      if (!open) throw new HandoffValidationError([{ field: `preserved.${head[3]}`, message: 'missing opening fence' }]);
      const fence = open[1];
      const body: string[] = [];
      let j = i + 2;
      while (j < lines.length && lines[j] !== fence) body.push(lines[j++]);
      if (j >= lines.length) throw new HandoffValidationError([{ field: `preserved.${head[3]}`, message: 'missing closing fence' }]);
      preserved.push({ category: head[1] as PreservedItem['category'], kind: head[2], id: head[3], content: body.join('\n') });
      i = j;
      continue;
    }
    if (current !== undefined && line.trim() !== '') sections.get(current)?.push(line);
  }
  const bullets = (name: string) =>
    (sections.get(name) ?? []).filter((l) => l.trim() !== NONE).map((l) => l.replace(/^\s*(?:- |\d+\. )/, ''));
  const statusLine = (sections.get('Status') ?? []).join(' ');
  const pct = /^(.*) — (\d{1,3})% complete$/.exec(statusLine);
  const files = bullets('Files Modified').map((l) => {
    const m = /^(.*) \((new|modified|deleted)\)$/.exec(l);
    return m ? { path: m[1], change: m[2] } : { path: l, change: 'modified' };
  });
  return validateHandoff({
    persona: title[1],
    sessionAt: title[2],
    task: (sections.get('Task') ?? []).join(' '),
    status: pct ? pct[1] : statusLine,
    percentComplete: pct ? Number(pct[2]) : undefined,
    whatWasDone: bullets('What Was Done'),
    whatRemains: bullets('What Remains'),
    blockersNotes: bullets('Blockers / Notes'),
    filesModified: files,
    suggestedNextSteps: bullets('Suggested Next Steps'),
    preserved,
  });
}

/** Seed 000 §9.4: `<home>/handoffs/{project}/{persona}-{timestamp}.md`. */
export function handoffPath(home: string, project: string, personaId: string, sessionAt: string): string {
  const safe = (s: string, field: string) => {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(s)) throw new HeadspaceError(ErrorCodes.handoffInvalid, `${field} "${s}" is not a safe file name`, { field });
    return s;
  };
  return join(home, 'handoffs', safe(project, 'project'), `${safe(personaId, 'persona')}-${sessionAt.replace(/[:.]/g, '-')}.md`);
}

export async function writeHandoffFile(path: string, handoff: HandoffArtefact): Promise<void> {
  await writeFileAtomic(path, renderHandoffMarkdown(validateHandoff(handoff)));
}

export async function readHandoffFile(path: string): Promise<HandoffArtefact> {
  return parseHandoffMarkdown(await readFile(path, 'utf8'));
}

export interface ResumePromptInput {
  identity: { name: string; description?: string };
  role?: string;
  owns?: readonly string[];
  skillFile?: string;
  learnings?: string;
  handoff: HandoffArtefact;
  /** Task context for the new session; defaults to continuing the handoff's task. */
  task?: string;
  mail?: string;
}

/** Seed 000 §6.4 step 4: the new session receives identity + skill file + handoff artefact + task context. */
export function composeResumePrompt(input: ResumePromptInput): ComposedPrompt {
  const handoff = validateHandoff(input.handoff);
  return composePrompt({
    identity: input.identity,
    role: input.role,
    owns: input.owns,
    skillFile: input.skillFile,
    learnings: input.learnings,
    handoff: renderHandoffMarkdown(handoff),
    task:
      input.task ??
      `Continue "${handoff.task}" from where your previous session stopped. Start with the suggested next steps; the preserved context above is exact — quote it, do not paraphrase it.`,
    mail: input.mail,
  });
}
