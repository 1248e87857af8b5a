import { ErrorCodes, HeadspaceError, teamManifestSchema, type TeamManifest } from '@headspace/contracts';
import { Document, isSeq, parseDocument } from 'yaml';
import type { z } from 'zod';

/**
 * `team.yaml` text ⇄ a validated manifest. Every refusal is MANIFEST.INVALID naming the field as a
 * path into the manifest (`members.2.tools.0`), or `yaml` for text that is not one YAML mapping.
 */
export function parseManifestYaml(text: string): TeamManifest {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) {
    const error = doc.errors[0];
    throw new HeadspaceError(ErrorCodes.manifestInvalid, `team.yaml is not valid YAML: ${error.message.split('\n')[0]}`, {
      field: 'yaml',
      details: { line: error.linePos?.[0]?.line, col: error.linePos?.[0]?.col },
    });
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 50 });
  } catch (error) {
    throw new HeadspaceError(ErrorCodes.manifestInvalid, `team.yaml cannot be read: ${(error as Error).message}`, { field: 'yaml' });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HeadspaceError(ErrorCodes.manifestInvalid, 'team.yaml must be a mapping with team, description and members', { field: 'yaml' });
  }
  const result = teamManifestSchema.safeParse(value);
  if (!result.success) throw manifestError(result.error);
  return result.data;
}

function manifestError(error: z.ZodError): HeadspaceError {
  const issues = error.issues.map((issue) =>
    issue.code === 'unrecognized_keys'
      ? { field: [...issue.path.map(String), issue.keys[0]].join('.'), message: `unknown field "${issue.keys[0]}"` }
      : { field: issue.path.map(String).join('.') || '(root)', message: issue.message },
  );
  return new HeadspaceError(ErrorCodes.manifestInvalid, `Invalid team manifest: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, {
    field: issues[0].field,
    details: { issues },
  });
}

/** The manifest as `team.yaml`, in the seed's layout (tool and glob lists inline). */
export function stringifyManifest(manifest: TeamManifest): string {
  const doc = new Document(manifest);
  manifest.members.forEach((_, i) => {
    for (const key of ['tools', 'owns']) {
      const node = doc.getIn(['members', i, key], true);
      if (isSeq(node)) node.flow = true;
    }
  });
  return doc.toString({ lineWidth: 0 });
}

/** Members with the defaults applied (what the spawn protocol passes on). */
export function resolveMembers(manifest: TeamManifest) {
  return manifest.members.map((m) => ({
    name: m.name,
    role: m.role,
    model: m.model ?? manifest.defaults.model,
    budget: m.budget ?? manifest.defaults.budget,
    permissionMode: m['permission-mode'] ?? manifest.defaults['permission-mode'],
    ...((m.runtime ?? manifest.defaults.runtime) ? { runtime: m.runtime ?? manifest.defaults.runtime } : {}),
    tools: m.tools,
    owns: m.owns,
  }));
}
