import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  agentModeSchema,
  agentRuntimeSchema,
  DEFAULT_MAX_CONCURRENT_AGENTS,
  ErrorCodes,
  HeadspaceError,
  issuesOf,
  personaIdSchema,
  personaRoleTypeSchema,
  poolNameSchema,
} from '@headspace/contracts';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import type { PersonaConfig } from './persona.decider';

/**
 * The shipped defaults live beside the app (apps/team-manager/config/personas.yaml). From the source
 * tree (src/personas) and from the build (dist/apps/team-manager/src/personas, where build.sh's
 * --copy-files puts the YAML at dist/apps/team-manager/config) the file is two folders up.
 */
export const DEFAULT_PERSONAS_FILE = join(__dirname, '..', '..', 'config', 'personas.yaml');

const personaEntry = z.strictObject({
  name: z.string().min(1).max(64),
  description: z.string().max(2_000).default(''),
  role_type: personaRoleTypeSchema.default('execution'),
  mode: agentModeSchema.optional(),
  pools: z.array(poolNameSchema).max(32).default([]),
  runtime: agentRuntimeSchema.optional(),
});

const fileSchema = z
  .strictObject({
    max_concurrent_agents: z.number().int().min(1).max(1_000).default(DEFAULT_MAX_CONCURRENT_AGENTS),
    personas: z.record(personaIdSchema, personaEntry),
    pools: z.record(poolNameSchema, z.strictObject({ personas: z.array(personaIdSchema).max(64) })).default({}),
  })
  .superRefine((file, ctx) => {
    for (const [pool, { personas }] of Object.entries(file.pools)) {
      personas.forEach((id, i) => {
        if (!(id in file.personas)) ctx.addIssue({ code: 'custom', path: ['pools', pool, 'personas', i], message: `unknown persona "${id}"` });
        else if (personas.indexOf(id) !== i) ctx.addIssue({ code: 'custom', path: ['pools', pool, 'personas', i], message: `"${id}" is listed twice` });
      });
    }
  });

function configError(source: string, field: string, message: string): HeadspaceError {
  return new HeadspaceError(ErrorCodes.personaConfigInvalid, `Invalid personas config ${source}: ${field}: ${message}`, {
    field,
    details: { source },
  });
}

/** Parses and validates a personas YAML document; the error names the first bad field (e.g. `personas.con.role_type`). */
export function parsePersonasConfig(text: string, source = 'personas.yaml'): { config: PersonaConfig; hash: string } {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length) throw configError(source, '(yaml)', doc.errors[0].message);
  const result = fileSchema.safeParse(doc.toJS() ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const field =
      issue.code === 'unrecognized_keys' ? [...issue.path.map(String), issue.keys[0]].join('.') : (issuesOf(result.error)[0]?.field ?? '(root)');
    throw configError(source, field, issue.message);
  }
  const file = result.data;
  const config: PersonaConfig = {
    maxConcurrentAgents: file.max_concurrent_agents,
    personas: Object.entries(file.personas).map(([personaId, p]) => ({
      personaId,
      name: p.name,
      description: p.description,
      roleType: p.role_type,
      mode: p.mode ?? (p.role_type === 'workshop' ? 'workshop' : 'execution'),
      pools: p.pools,
      ...(p.runtime ? { runtime: p.runtime } : {}),
    })),
    pools: Object.entries(file.pools).map(([pool, { personas }]) => ({ pool, personas })),
  };
  // Hash of the parsed content: comment or formatting edits do not re-apply the file.
  return { config, hash: createHash('sha256').update(JSON.stringify(config)).digest('hex') };
}

export function loadPersonasFile(path: string): { config: PersonaConfig; hash: string; source: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw configError(path, '(file)', `cannot be read: ${(error as Error).message}`);
  }
  return { ...parsePersonasConfig(text, path), source: path };
}
