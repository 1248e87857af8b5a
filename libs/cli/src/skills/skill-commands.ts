import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import pc from 'picocolors';
import { CliError, ExitCode } from '../exit-codes';
import { printRecord, success } from '../output';
import type { RunCommandKit } from '../run/run-commands';

interface SkillView {
  persona: string;
  text: string;
  coreTokens: number;
  experienceTokens: number;
  budget: { coreTokens: number; experienceTokens: number };
  pending: string[];
  shippedDefault: boolean;
}

const enc = encodeURIComponent;
const curationModes = ['approval', 'pending', 'auto'] as const;

/** The new text of `skill edit`: the file given, else the current text through $VISUAL / $EDITOR. */
async function editedText(current: string, o: { file?: string }, env: NodeJS.ProcessEnv): Promise<string> {
  if (o.file) return readFile(o.file, 'utf8');
  const editor = env.VISUAL || env.EDITOR;
  if (!editor) throw new CliError(ExitCode.usage, 'No editor: set $EDITOR (or $VISUAL), or pass --file <path>');
  const dir = await mkdtemp(join(tmpdir(), 'hs-skill-'));
  try {
    const path = join(dir, 'skill.md');
    await writeFile(path, current);
    const done = spawnSync(editor, [path], { stdio: 'inherit', shell: true, env });
    if (done.status !== 0) throw new CliError(ExitCode.usage, `The editor (${editor}) exited with ${String(done.status ?? done.signal)}: nothing saved`);
    return await readFile(path, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `headspace skill show|edit <persona>` and `headspace skill mode [mode]`: personas' skill.md files and a team's curation mode. */
export function addSkillCommands(program: Command, kit: RunCommandKit & { env: NodeJS.ProcessEnv }): void {
  const { io } = kit;
  const skill = program.command('skill').description('Skill files: what each persona knows and has learned (in every session’s prompt)');

  skill
    .command('show')
    .argument('<persona>', 'persona id')
    .description('Print a persona’s skill.md, with its token counts against the budget and the lines pending curation')
    .action(async (persona: string, _o: unknown, cmd: Command) => {
      const view = await kit.client(cmd).get<SkillView>(`/api/v1/personas/${enc(persona)}/skill`);
      kit.show(cmd, view, () => {
        io.out.write(view.text.endsWith('\n') ? view.text : `${view.text}\n`);
        io.out.write(
          pc.dim(
            `core ${view.coreTokens}/${view.budget.coreTokens} tokens · learned experience ${view.experienceTokens}/${view.budget.experienceTokens} tokens` +
              `${view.pending.length ? ` · ${view.pending.length} pending` : ''}${view.shippedDefault ? ' · shipped default' : ''}\n`,
          ),
        );
      });
    });

  skill
    .command('edit')
    .argument('<persona>', 'persona id')
    .option('--file <path>', 'the new skill.md (default: edit the current one in $EDITOR)')
    .description('Replace a persona’s skill.md (curate its Pending lines, rewrite its core); its next session’s prompt carries it')
    .action(async (persona: string, o: { file?: string }, cmd: Command) => {
      const client = kit.client(cmd);
      const current = await client.get<SkillView>(`/api/v1/personas/${enc(persona)}/skill`);
      const text = await editedText(current.text, o, kit.env);
      if (text === current.text) {
        kit.show(cmd, current, () => success(io, `No change to ${persona}'s skill.md`));
        return;
      }
      const saved = await client.request<SkillView>('PUT', `/api/v1/personas/${enc(persona)}/skill`, { body: { text } });
      kit.show(cmd, saved, () => success(io, `Saved ${persona}'s skill.md (core ${saved.coreTokens} tokens, learned experience ${saved.experienceTokens} tokens)`));
    });

  skill
    .command('mode')
    .argument('[mode]', `set it: ${curationModes.join(' | ')}`)
    .addOption(new Option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)'))
    .description('Show or set how the team’s skill_updates are handled: approval (default), pending (curated in skill.md) or auto (merged within budget)')
    .action(async (mode: string | undefined, _o: unknown, cmd: Command) => {
      const team = kit.teamOf(cmd);
      if (mode !== undefined && !(curationModes as readonly string[]).includes(mode)) {
        throw new CliError(ExitCode.usage, `mode must be one of ${curationModes.join(', ')} (got "${mode}")`);
      }
      const path = `/api/v1/teams/${enc(team)}/skill-curation`;
      const result = mode ? await kit.client(cmd).request<{ team: string; mode: string }>('PUT', path, { body: { mode } }) : await kit.client(cmd).get<{ team: string; mode: string }>(path);
      kit.show(cmd, result, () => printRecord(io, result));
    });
}
