import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { renderRunRetro, type RunView } from '@headspace/contracts';
import { Command, Option } from 'commander';
import { success } from '../output';
import type { RunCommandKit } from '../run/run-commands';

/**
 * `headspace retro <runId>` (seed 001 `/retro`): the run's retrospective from `GET /api/v1/teams/:team/runs/:runId`,
 * printed as markdown or written to `--out`. The run commits the same (with what its sessions said) as
 * `memory/retros/<runId>.md` in its result branch when it completes.
 */
export function addRetroCommand(program: Command, kit: RunCommandKit): void {
  program
    .command('retro')
    .argument('<runId>')
    .addOption(new Option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)'))
    .option('-o, --out <file>', 'write the retrospective to this file instead of printing it')
    .description('A run’s retrospective: outcome, tasks, QA, escalations and who worked, as markdown')
    .action(async (runId: string, o: { out?: string }, cmd: Command) => {
      const view = await kit.client(cmd).get<RunView>(`/api/v1/teams/${encodeURIComponent(kit.teamOf(cmd))}/runs/${encodeURIComponent(runId)}`);
      const markdown = renderRunRetro(view);
      if (o.out) {
        const path = resolve(o.out);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, markdown);
        kit.show(cmd, { runId, path }, () => success(kit.io, `Retro of run ${runId} written to ${path}`));
        return;
      }
      kit.show(cmd, { runId, markdown }, () => kit.io.out.write(markdown));
    });
}
