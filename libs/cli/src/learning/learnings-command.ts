import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { CliError, ExitCode } from '../exit-codes';
import { printTable, success } from '../output';
import type { RunCommandKit } from '../run/run-commands';

const enc = encodeURIComponent;
const categories = ['codebase-pattern', 'gotcha', 'preference', 'cross-agent'] as const;

/** What the CLI reads of a learning (the API's LearningView / RankedLearning). */
export interface LearningLike {
  learningId: string;
  project: string | null;
  persona: string | null;
  category: string;
  pattern: string;
  resolution: string;
  confidence: number;
  source: { kind: string; id?: string; sessionId?: string; iteration?: number };
  createdAt: string;
  usedAt: string | null;
  score?: number;
  reinforced?: number;
  weakened?: number;
}

export function learningLines(l: LearningLike): string[] {
  const lines = [`learning ${l.learningId} (${l.category})`, `pattern:    ${l.pattern}`];
  if (l.resolution) lines.push(`resolution: ${l.resolution}`);
  lines.push(`confidence: ${l.confidence.toFixed(2)}${l.reinforced !== undefined ? ` (${l.reinforced} reinforced, ${l.weakened ?? 0} weakened)` : ''}`);
  lines.push(`scope:      ${l.project ?? 'every project'}, ${l.persona ?? 'every persona'}`);
  lines.push(`source:     ${l.source.kind}${l.source.id ? ` ${l.source.id}` : ''}${l.source.iteration ? ` iteration ${l.source.iteration}` : ''}`);
  return lines;
}

/** `headspace learnings search|add|show`: the team's learning store (ADR 0048). */
export function addLearningsCommands(program: Command, kit: RunCommandKit): void {
  const learnings = program.command('learnings').description('The learning store: what sessions learned, ranked for retrieval');
  const path = (team: string, id?: string) => `/api/v1/teams/${enc(team)}/learnings${id ? `/${enc(id)}` : ''}`;
  const team = '-t, --team <name>';
  const teamHelp = 'team (default: HEADSPACE_TEAM or `config set team`)';

  learnings
    .command('search')
    .description('Learnings ranked by relevance to the query times confidence')
    .argument('[query...]', 'words to search for (web-search syntax: "phrase", -word, or)')
    .option(team, teamHelp)
    .option('--project <project>', 'only this project’s learnings (and those of every project)')
    .option('--persona <persona>', 'only this persona’s learnings (and those of every persona)')
    .option('--limit <n>', 'at most this many', '20')
    .action(async (words: string[], o: { team?: string; project?: string; persona?: string; limit: string }, cmd: Command) => {
      const q = words.join(' ').trim();
      const query = { ...(q ? { q } : {}), ...(o.project ? { project: o.project } : {}), ...(o.persona ? { persona: o.persona } : {}), limit: o.limit };
      const { learnings: found } = await kit.client(cmd).get<{ learnings: LearningLike[] }>(path(o.team ?? kit.teamOf(cmd)), query);
      kit.show(cmd, found, () =>
        printTable(kit.io, found, [
          ['id', (l) => l.learningId],
          ['score', (l) => (l.score ?? 0).toFixed(3)],
          ['conf', (l) => l.confidence.toFixed(2)],
          ['pattern', (l) => l.pattern],
          ['resolution', (l) => l.resolution],
        ], 'No learnings match.'),
      );
    });

  learnings
    .command('add')
    .description('Add a learning by hand')
    .argument('<pattern>', 'what was met (the error, the situation)')
    .option('-r, --resolution <text>', 'what to do about it')
    .option(team, teamHelp)
    .option('--category <category>', `one of ${categories.join(', ')}`, 'codebase-pattern')
    .option('--project <project>', 'the project (workspace) it applies to; default every project')
    .option('--persona <persona>', 'the persona it applies to; default every persona')
    .option('--confidence <n>', 'starting confidence from 0 to 1')
    .action(async (pattern: string, o: { resolution?: string; team?: string; category: string; project?: string; persona?: string; confidence?: string }, cmd: Command) => {
      const confidence = o.confidence === undefined ? undefined : Number(o.confidence);
      if (confidence !== undefined && !(confidence >= 0 && confidence <= 1)) throw new CliError(ExitCode.usage, `--confidence must be a number from 0 to 1, got "${o.confidence}"`);
      const body = { pattern, category: o.category, ...(o.resolution ? { resolution: o.resolution } : {}), ...(o.project ? { project: o.project } : {}), ...(o.persona ? { persona: o.persona } : {}), ...(confidence !== undefined ? { confidence } : {}) };
      const added = await kit.client(cmd).post<{ learningId: string }>(path(o.team ?? kit.teamOf(cmd)), body, { 'idempotency-key': randomUUID() });
      kit.show(cmd, added, () => success(kit.io, `learning ${added.learningId} added`));
    });

  learnings
    .command('show')
    .description('One learning with its confidence and source')
    .argument('<learningId>')
    .option(team, teamHelp)
    .action(async (learningId: string, o: { team?: string }, cmd: Command) => {
      const l = await kit.client(cmd).get<LearningLike>(path(o.team ?? kit.teamOf(cmd), learningId));
      kit.show(cmd, l, () => learningLines(l).forEach((line) => kit.io.out.write(`${line}\n`)));
    });
}
