import { meter } from '@headspace/telemetry';

const ingested = meter.createCounter('headspace.ops.exceptions_ingested', { description: 'Exceptions recorded by ingest, by project and level' });
const refused = meter.createCounter('headspace.ops.exceptions_refused', { description: 'Exceptions refused by ingest, by project and reason (key, rate)' });
const resolveTime = meter.createHistogram('headspace.ops.time_to_resolve', {
  description: 'From a group opening to its resolution',
  unit: 's',
  advice: { explicitBucketBoundaries: [60, 300, 900, 3_600, 4 * 3_600, 86_400, 3 * 86_400, 7 * 86_400, 30 * 86_400] },
});
const triaged = meter.createCounter('headspace.ops.groups_triaged', { description: 'Triage verdicts, by severity and source (rules or model)' });
const triageTime = meter.createHistogram('headspace.ops.triage_duration', {
  description: 'From picking a group up for triage to its recorded verdict (rules and model calls)',
  unit: 's',
  advice: { explicitBucketBoundaries: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120] },
});
const fixes = meter.createCounter('headspace.ops.fixes', { description: 'Remediation steps taken: fixes proposed (by approval or trusted), started and committed, by project' });
const openGroups = meter.createObservableGauge('headspace.ops.groups_open', { description: 'Exception groups by lifecycle state (from the groups read model)' });

let byState = new Map<string, number>();
openGroups.addCallback((result) => {
  for (const [state, count] of byState) result.observe(count, { state });
});

export const opsMetrics = {
  ingested: (project: string, level: string) => ingested.add(1, { project, level }),
  refused: (project: string, reason: 'key' | 'rate' | 'project') => refused.add(1, { project, reason }),
  triaged: (severity: string, source: 'rules' | 'model', seconds: number) => {
    triaged.add(1, { severity, source });
    triageTime.record(seconds, { source });
  },
  fixProposed: (project: string, via: 'approval' | 'trusted') => fixes.add(1, { project, step: 'proposed', via }),
  fixStarted: (project: string) => fixes.add(1, { project, step: 'started' }),
  fixCommitted: (project: string) => fixes.add(1, { project, step: 'committed' }),
  resolved: (openedAt: string, resolvedAt: string) => resolveTime.record(Math.max(0, (Date.parse(resolvedAt) - Date.parse(openedAt)) / 1_000)),
  /** States absent from `counts` are observed as 0 once they were seen, so a drained state drops to 0 instead of freezing. */
  groupsByState: (counts: Map<string, number>) => {
    byState = new Map([...[...byState.keys()].map((state) => [state, 0] as const), ...counts]);
  },
};
