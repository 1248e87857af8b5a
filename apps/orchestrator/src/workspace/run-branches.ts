import { ErrorCodes, HeadspaceError, personaIdSchema, runIdSchema } from '@headspace/contracts';

/**
 * Run ids and persona ids become branch names and directory names, so only the shapes the
 * contracts allow get this far (no `..`, `/`, spaces or option-like names).
 */
export function checkRunId(runId: string): string {
  if (!runIdSchema.safeParse(runId).success) throw new HeadspaceError(ErrorCodes.workspaceNameInvalid, `Run id "${runId}" cannot name a workspace`, { field: 'runId' });
  return runId;
}

export function checkPersona(persona: string): string {
  if (!personaIdSchema.safeParse(persona).success) throw new HeadspaceError(ErrorCodes.workspaceNameInvalid, `Persona "${persona}" cannot name a worktree`, { field: 'persona' });
  return persona;
}

/**
 * `headspace/<runId>/main`. Not plain `headspace/<runId>`: git cannot hold a branch and branches
 * below it (`headspace/<runId>/<persona>`) at once.
 */
export function integrationBranch(runId: string): string {
  return `headspace/${checkRunId(runId)}/main`;
}

/** `headspace/<runId>/<persona>`; persona `main` gets `main.persona`, which no persona id can spell (ids have no dot). */
export function personaBranch(runId: string, persona: string): string {
  const name = checkPersona(persona) === 'main' ? 'main.persona' : persona;
  return `headspace/${checkRunId(runId)}/${name}`;
}
