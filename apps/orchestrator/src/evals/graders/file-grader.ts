import type { EvalGrade, EvalGrader } from '@headspace/contracts';
import { readFile, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';

type FileGrader = Extract<EvalGrader, { type: 'file' }>;

const grade = (g: FileGrader, passed: boolean, detail: string): EvalGrade => ({ type: 'file', weight: g.weight, score: passed ? 1 : 0, passed, detail });

/** The file exists inside the checkout (a link out of it counts as missing), and contains / matches what the grader asks. */
export async function gradeFile(grader: FileGrader, checkoutDir: string): Promise<EvalGrade> {
  const root = await realpath(checkoutDir);
  const real = await realpath(join(root, grader.path)).catch(() => undefined);
  if (!real || !real.startsWith(root + sep)) return grade(grader, false, `${grader.path} does not exist`);
  const text = await readFile(real, 'utf8').catch(() => undefined);
  if (text === undefined) return grade(grader, false, `${grader.path} is not a readable file`);
  if (grader.contains !== undefined && !text.includes(grader.contains)) return grade(grader, false, `${grader.path} does not contain ${JSON.stringify(grader.contains)}`);
  if (grader.matches !== undefined && !new RegExp(grader.matches, 'm').test(text)) return grade(grader, false, `${grader.path} does not match /${grader.matches}/`);
  return grade(grader, true, `${grader.path} exists${grader.contains ? ', contains the text' : ''}${grader.matches ? ', matches' : ''}`);
}
