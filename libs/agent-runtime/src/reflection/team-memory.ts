import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../context/atomic-write';
import { assertPersonaName, DEFAULT_HEADSPACE_HOME, LearningsStore, type RoutedLearning } from './learnings-store';
import { renderLearnings } from './learnings-file';

/**
 * Shared team memory (seed 001): cross-cutting decisions in `decisions.md` and retrospective
 * summaries appended to `retro-history.md`, under `<home>/teams/<team>/`. Plus lifecycle step 5
 * (transfer): seed a new member from related members, hand a leaving member's cross-agent notes on.
 */
export interface TeamDecision {
  section: string;
  text: string;
  decided: string;
  by: string;
}

const DECISION = /^- (.*) \(decided: (\d{4}-\d{2}-\d{2}), by: ([a-z0-9-]+)\)\s*$/;

export class TeamMemoryStore {
  readonly home: string;
  private readonly now: () => Date;
  private readonly memoryDir?: string;
  private queue: Promise<unknown> = Promise.resolve();

  /** `memoryDir`: a project's `memory/` folder — the team's files at its root (`memory/decisions.md`, `memory/retros/`) instead of under `<home>/teams/<team>/`. */
  constructor(opts: { home?: string; now?: () => Date; memoryDir?: string } = {}) {
    this.home = opts.home ?? DEFAULT_HEADSPACE_HOME;
    this.now = opts.now ?? (() => new Date());
    this.memoryDir = opts.memoryDir;
  }

  private dir(team: string): string {
    assertPersonaName(team, 'team');
    return this.memoryDir ?? join(this.home, 'teams', team);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async read(path: string): Promise<string | undefined> {
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Lifecycle step 1: `decisions.md` with its empty sections. */
  async seed(team: string): Promise<void> {
    await this.serial(async () => {
      const path = join(this.dir(team), 'decisions.md');
      if ((await this.read(path)) === undefined) await writeFileAtomic(path, '# Team Decisions\n\n## Architecture\n\n## Conventions\n');
    });
  }

  async recordDecision(team: string, d: { section: string; text: string; by: string }): Promise<TeamDecision> {
    assertPersonaName(d.by, 'by');
    return this.serial(async () => {
      const path = join(this.dir(team), 'decisions.md');
      const lines = ((await this.read(path)) ?? '# Team Decisions\n').trimEnd().split('\n');
      const decided = this.now().toISOString().slice(0, 10);
      const entry = `- ${d.text.replace(/\s+/g, ' ').trim()} (decided: ${decided}, by: ${d.by})`;
      const head = lines.findIndex((l) => l === `## ${d.section}`);
      if (head < 0) lines.push('', `## ${d.section}`, entry);
      else {
        let end = head + 1;
        while (end < lines.length && !lines[end].startsWith('## ')) end++;
        while (end > head + 1 && lines[end - 1].trim() === '') end--;
        lines.splice(end, 0, entry);
      }
      await writeFileAtomic(path, lines.join('\n') + '\n');
      return { section: d.section, text: d.text.replace(/\s+/g, ' ').trim(), decided, by: d.by };
    });
  }

  async readDecisions(team: string): Promise<TeamDecision[]> {
    const text = (await this.read(join(this.dir(team), 'decisions.md'))) ?? '';
    const out: TeamDecision[] = [];
    let section = '';
    for (const line of text.split('\n')) {
      if (line.startsWith('## ')) section = line.slice(3).trim();
      const m = DECISION.exec(line);
      if (m && section) out.push({ section, text: m[1], decided: m[2], by: m[3] });
    }
    return out;
  }

  async appendRetro(team: string, retro: { title: string; summary: string }): Promise<void> {
    await this.serial(async () => {
      const path = join(this.dir(team), 'retro-history.md');
      const existing = (await this.read(path)) ?? '# Retro History\n';
      const date = this.now().toISOString().slice(0, 10);
      await writeFileAtomic(path, `${existing.trimEnd()}\n\n## ${date} — ${retro.title.replace(/\s+/g, ' ').trim()}\n${retro.summary.trim()}\n`);
    });
  }

  /** A retrospective of its own, `retros/<id>.md` (one per run), written whole (again: replaced). */
  async writeRetro(team: string, id: string, markdown: string): Promise<string> {
    if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(id)) throw new HeadspaceError(ErrorCodes.validationFailed, `retro id "${id}" must be lowercase letters, digits and hyphens`, { field: 'id' });
    const path = join(this.dir(team), 'retros', `${id}.md`);
    await this.serial(() => writeFileAtomic(path, markdown.endsWith('\n') ? markdown : `${markdown}\n`));
    return path;
  }

  async readRetroHistory(team: string): Promise<string> {
    return (await this.read(join(this.dir(team), 'retro-history.md'))) ?? '';
  }
}

/**
 * Learnings kept in a project (seed 001 "Learnings Files"): `<memoryDir>/agents/<name>/learnings.md`,
 * version-controlled with the work, instead of the agent home's `personas/<name>/`. Same file format,
 * routing and consolidation as the agent-home store.
 */
export class ProjectLearningsStore extends LearningsStore {
  constructor(memoryDir: string, opts: { now?: () => Date } = {}) {
    super({ home: memoryDir, ...opts });
  }

  override personaDir(persona: string): string {
    return join(this.home, 'agents', assertPersonaName(persona));
  }
}

/** Lifecycle step 5: a new member starts with the core lines of related members (not their cross-agent notes). */
export async function seedFromRelatedMembers(store: LearningsStore, persona: string, related: readonly string[]): Promise<RoutedLearning[]> {
  const learnings: RoutedLearning[] = [];
  for (const r of related) {
    const file = await store.readLearnings(r);
    for (const e of file.entries) if (e.tier === 'core' && e.section !== 'Cross-Agent Notes') learnings.push({ persona, section: e.section, content: e.content });
  }
  if (learnings.length === 0) {
    await store.seed(persona);
    return [];
  }
  return (await store.addLearnings(persona, learnings)).added;
}

/** Lifecycle step 5: a leaving member's cross-agent notes move to the member taking over. */
export async function redistributeCrossAgentNotes(store: LearningsStore, leaving: string, to: string): Promise<number> {
  const file = await store.readLearnings(leaving);
  const notes = file.entries.filter((e) => e.section === 'Cross-Agent Notes');
  if (notes.length === 0) return 0;
  await store.addLearnings(to, notes.map((n) => ({ persona: to, section: n.section, content: n.content, from: n.from })));
  await store.exclusive(leaving, async () => {
    const fresh = await store.readLearnings(leaving);
    fresh.entries = fresh.entries.filter((e) => e.section !== 'Cross-Agent Notes');
    await writeFileAtomic(store.path(leaving, 'learnings.md'), renderLearnings(fresh));
  });
  return notes.length;
}
