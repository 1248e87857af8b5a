import { ValidationError, workflowDefinitionSchema } from '@headspace/contracts';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';

const refuse = (message: string): never => {
  throw new ValidationError('workflow file', [{ field: 'file', message }]);
};

/**
 * The definition in a file of the workspace (YAML, or JSON which YAML reads too), checked by the
 * same contract as an inline one; its problems are named as fields of `definition` (the file is
 * said in the message). Only a directory workspace (already passed by the source policy) is read.
 */
export async function readWorkflowFile(workspace: string, file: string): Promise<z.output<typeof workflowDefinitionSchema>> {
  const isDirectory = isAbsolute(workspace) && (await stat(workspace).then((s) => s.isDirectory()).catch(() => false));
  if (!isDirectory) refuse('a definition file is read from a directory workspace only (send a git workspace’s definition inline)');
  const path = resolve(workspace, file);
  if (!path.startsWith(workspace.replace(/[\\/]+$/, '') + sep)) refuse('must be a path inside the workspace');
  const text = await readFile(path, 'utf8').catch(() => refuse(`no readable file ${file} in the workspace`));
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    refuse(`${file} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = workflowDefinitionSchema.safeParse(value);
  if (!parsed.success) throw new ValidationError(`definition in ${file}`, parsed.error.issues.map((i) => ({ field: ['definition', ...i.path].join('.'), message: i.message })));
  return parsed.data;
}
