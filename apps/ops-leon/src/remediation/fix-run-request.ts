import type { ExceptionReport, startRun } from '@headspace/contracts';
import type { z } from 'zod';
import { poolForDomain } from '../triage/routing';
import type { TriageFacts } from './remediation.policy';

export const REGRESSION_TASK = 'REG';
const FIX_TASK = 'FIX';
const GOAL_MAX = 20_000;
const SAMPLES_IN_GOAL = 3;

export interface FixRunInput {
  runId: string;
  groupId: string;
  project: { project: string; team: string; repository: string; testCommand: string };
  group: { type: string; title: string; culprit: string; count: string; releases: string[] };
  triage: TriageFacts;
  /** The approach that was approved (triage's, or Gavin's / Robbo's / the operator's). */
  approach: string;
  /** Newest first. */
  samples: ExceptionReport[];
}

const stackOf = (r: ExceptionReport) =>
  r.stack ?? (r.frames ?? []).map((f) => `    at ${f.function ?? '?'} (${f.filename ?? f.module ?? '?'}${f.lineno ? `:${f.lineno}` : ''})`).join('\n');

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The goal a fix run works from: the exception, where it comes from, triage's hypothesis and the approach. */
export function fixGoal(input: FixRunInput): string {
  const { group, triage, samples } = input;
  const latest = samples[0];
  const lines = [
    `Fix a production exception Leon caught in ${input.project.project} (group ${input.groupId}).`,
    `Exception: ${group.type}: ${group.title}`,
    `Culprit: ${group.culprit || 'unknown'}`,
    `Seen ${group.count} times${group.releases.length ? ` in releases ${group.releases.slice(-5).join(', ')}` : ''}; severity ${triage.severity}, domain ${triage.domain}.`,
    `Hypothesis: ${triage.hypothesis || 'none given'}`,
    `Approach: ${input.approach || 'none given'}`,
    `First a regression test that reproduces the exception and fails; then the fix, after which it and \`${input.project.testCommand}\` pass.`,
  ];
  if (latest) lines.push('', 'Stack (latest event):', clip(stackOf(latest) || '(none)', 6_000));
  if (samples.length) {
    lines.push('', 'Sample events:');
    for (const s of samples.slice(0, SAMPLES_IN_GOAL)) {
      const where = [s.release && `release ${s.release}`, s.environment, s.request?.method && s.request?.url && `${s.request.method} ${s.request.url}`].filter(Boolean).join(', ');
      lines.push(`- ${s.timestamp ?? ''} ${s.type}: ${clip(s.message, 500)}${where ? ` (${where})` : ''}`);
    }
  }
  return clip(lines.join('\n'), GOAL_MAX);
}

/** The orchestrator's start-run of a fix run: Verner's regression test first, then the routed pool's fix. */
export function fixRunRequest(input: FixRunInput): z.input<typeof startRun.request> {
  const title = clip(input.group.title, 150);
  const message = input.samples[0]?.message ?? input.group.title;
  return {
    runId: input.runId,
    team: input.project.team,
    goal: fixGoal(input),
    source: input.project.repository,
    mode: 'v1',
    operator: 'auto',
    tasks: [
      {
        key: REGRESSION_TASK,
        subject: `Regression test: ${title}`,
        pool: 'qa',
        description: clip(
          `Write a test that reproduces ${input.group.type}: ${message}. It must fail now, on the current code, with this exception, and pass once the bug is fixed. Do not fix the code itself.`,
          10_000,
        ),
        acceptanceCriteria: ['the regression test fails on the current code, reproducing the exception', `\`${input.project.testCommand}\` runs the regression test`],
        dependsOn: [],
      },
      {
        key: FIX_TASK,
        subject: `Fix: ${title}`,
        pool: poolForDomain(input.triage.domain),
        description: clip(`Fix ${input.group.type}: ${message}. Hypothesis: ${input.triage.hypothesis || 'none'}. Approach: ${input.approach || 'none'}.`, 10_000),
        acceptanceCriteria: ['the regression test passes', `\`${input.project.testCommand}\` passes`],
        dependsOn: [REGRESSION_TASK],
      },
    ],
    fix: { groupId: input.groupId, testCommand: input.project.testCommand, regressionTaskKey: REGRESSION_TASK },
  };
}
