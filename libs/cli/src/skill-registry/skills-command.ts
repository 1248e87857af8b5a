import type { Command } from 'commander';
import { printIssues, sourceArgument } from '../agents/agent-commands';
import { printTable } from '../output';
import type { RunCommandKit } from '../run/run-commands';

interface SkillListing {
  skills: Array<{ name: string; description: string; origin: string; plugin?: string; file: string }>;
  invalid: Array<{ file: string; field: string; message: string }>;
}

/** `headspace skills list`: SKILL.md skills (ADR 0046). `headspace skill …` is the persona skill files (ADR 44). */
export function addSkillsRegistryCommands(program: Command, kit: RunCommandKit): void {
  const skills = program.command('skills').description('SKILL.md skills (project, user, plugins) sessions can load with the Skill tool or as /<skill> in an ask');

  skills
    .command('list')
    .description('Skills a session in the workspace is offered (on a name clash user > project; plugin skills as plugin:name), and SKILL.md files skipped')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .option('-w, --workspace <dir>', 'the workspace: a directory under the orchestrator’s HS_SOURCE_ROOTS (default: user and plugin skills only)')
    .action(async (o: { workspace?: string }, cmd: Command) => {
      const listing = await kit.client(cmd).get<SkillListing>(`/api/v1/teams/${encodeURIComponent(kit.teamOf(cmd))}/skills`, o.workspace ? { workspace: sourceArgument(o.workspace) } : undefined);
      kit.show(cmd, listing, () => {
        printTable(
          kit.io,
          listing.skills,
          [
            ['name', (s) => s.name],
            ['origin', (s) => s.origin],
            ['description', (s) => (s.description.length > 80 ? `${s.description.slice(0, 79)}…` : s.description)],
            ['file', (s) => s.file],
          ],
          'No skills.',
        );
        printIssues(kit.io, listing.invalid, []);
      });
    });
}
