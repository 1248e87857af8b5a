import { ErrorCodes, evalSuiteSchema, HeadspaceError, type EvalSuite } from '@headspace/contracts';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';

const invalid = (message: string, field: string) => new HeadspaceError(ErrorCodes.evalSuiteInvalid, message, { field });

/** A suite's YAML text, validated: a bad one is refused naming the field (`suite.tasks.1.graders.0.path`). */
export function parseEvalSuite(text: string, file: string): EvalSuite {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw invalid(`${file} is not YAML: ${(error as Error).message.split('\n')[0]}`, 'suite');
  }
  const parsed = evalSuiteSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = ['suite', ...issue.path.map(String)].join('.');
  throw invalid(`${file}: ${field} ${issue.message}`, field);
}

/** Reads `suitePath` of the workspace directory (the policy already admitted the directory; the path's shape keeps it inside). */
export async function readEvalSuite(workspaceDir: string, suitePath: string): Promise<EvalSuite> {
  const text = await readFile(join(workspaceDir, suitePath), 'utf8').catch(() => {
    throw invalid(`No suite file ${suitePath} in the workspace`, 'suite');
  });
  return parseEvalSuite(text, suitePath);
}

/** Every task's fixture is a directory of the workspace (the run source policy checks it again, links resolved, when its ask starts). */
export async function checkFixtures(workspaceDir: string, suite: EvalSuite): Promise<void> {
  for (const [i, task] of suite.tasks.entries()) {
    if (task.fixture === undefined) continue;
    const isDir = await stat(join(workspaceDir, task.fixture)).then((s) => s.isDirectory(), () => false);
    if (!isDir) throw invalid(`Task ${task.id}: the fixture ${task.fixture} is not a directory of the workspace`, `suite.tasks.${i}.fixture`);
  }
}
