import { checkAgentAntiPatterns, MODEL_ALIASES, resolveToolAliases, type AgentDefinition, type AgentRegistrySnapshot } from '@headspace/agent-runtime';
import { ErrorCodes, HeadspaceError, type agentListingSchema, type agentFileIssueSchema, type validateAgent } from '@headspace/contracts';
import { parseAgentDefinition } from '@headspace/agent-runtime';
import type { z } from 'zod';

type Listing = z.output<typeof agentListingSchema>;
type FileIssue = z.output<typeof agentFileIssueSchema>;

/** A registry error as `{file, field, message}` rows: one per zod issue when the parser kept them. */
export function fileIssuesOf(error: unknown, file: string): FileIssue[] {
  if (!(error instanceof HeadspaceError)) return [{ file, field: '(file)', message: (error as Error).message }];
  const details = error.details as { file?: string; issues?: Array<{ field: string; message: string }> } | undefined;
  const at = details?.file ?? file;
  if (details?.issues?.length) return details.issues.map((i) => ({ file: at, field: i.field, message: i.message }));
  return [{ file: at, field: error.field ?? '(file)', message: error.message }];
}

export function agentSummary(def: AgentDefinition, shadows: string[]): Listing['agents'][number] {
  return {
    name: def.key,
    scope: def.scope,
    source: def.source,
    description: def.description,
    model: def.model === 'inherit' ? 'inherit' : MODEL_ALIASES[def.model],
    ...(def.tools ? { tools: resolveToolAliases(def.tools) } : {}),
    ...(def.disallowedTools ? { disallowedTools: resolveToolAliases(def.disallowedTools) } : {}),
    ...(def.maxTurns !== undefined ? { maxTurns: def.maxTurns } : {}),
    shadows,
  };
}

export function listingOf(snapshot: AgentRegistrySnapshot): Listing {
  return {
    agents: snapshot.definitions.map((d) => agentSummary(d, snapshot.shadowed.filter((s) => s.key === d.key).map((s) => s.source))),
    errors: snapshot.errors.flatMap((e) => fileIssuesOf(e, '(unknown)')),
    warnings: snapshot.warnings.map((w) => ({ code: w.code, message: w.message, ...(w.agent ? { agent: w.agent } : {}), ...(w.source ? { source: w.source } : {}) })),
    shadowed: snapshot.shadowed.map((s) => ({ name: s.key, source: s.source, by: s.by })),
  };
}

/** One file's text checked as the registry would load it from a project: errors name the field, warnings the anti-pattern. */
export function validateAgentText({ file, text }: z.output<typeof validateAgent.request>): z.output<typeof validateAgent.response> {
  let def: AgentDefinition;
  try {
    def = parseAgentDefinition(text, { source: file, scope: 'project' });
  } catch (error) {
    if (!(error instanceof HeadspaceError) || error.code !== ErrorCodes.agentDefinitionInvalid) throw error;
    return { valid: false, errors: fileIssuesOf(error, file), warnings: [] };
  }
  const warnings = checkAgentAntiPatterns(def).map((w) => ({ code: w.code, message: w.message, ...(w.agent ? { agent: w.agent } : {}), ...(w.source ? { source: w.source } : {}) }));
  return { valid: true, name: def.key, errors: [], warnings };
}
