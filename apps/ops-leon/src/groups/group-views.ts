import type { GroupSample, GroupSummary, GroupTransitionView } from '@headspace/contracts';
import type { GroupRow, SampleRow, TransitionRow } from './group.entity';

export const groupSummary = (row: GroupRow): GroupSummary => ({
  groupId: row.groupId,
  project: row.project,
  fingerprint: row.fingerprint,
  state: row.state as GroupSummary['state'],
  type: row.type,
  title: row.title,
  culprit: row.culprit,
  level: row.level,
  severity: row.severity as GroupSummary['severity'],
  domain: row.domain as GroupSummary['domain'],
  persona: row.persona ?? null,
  autoFixable: row.autoFixable ?? null,
  count: Number(row.count),
  firstSeen: row.firstSeen.toISOString(),
  lastSeen: row.lastSeen.toISOString(),
  releases: row.releases,
  environments: row.environments,
  spikedAt: row.spikedAt?.toISOString() ?? null,
  updatedAt: row.updatedAt.toISOString(),
});

export const groupSample = ({ eventId, receivedAt, report: r }: SampleRow): GroupSample => ({
  eventId,
  receivedAt: receivedAt.toISOString(),
  timestamp: r.timestamp ?? null,
  level: r.level,
  type: r.type,
  message: r.message,
  handled: r.handled ?? null,
  frames: r.frames,
  stack: r.stack ?? null,
  platform: r.platform ?? null,
  environment: r.environment ?? null,
  release: r.release ?? null,
  serverName: r.serverName ?? null,
  tags: r.tags,
  request: r.request,
  user: r.user,
  source: r.source,
});

export const groupTransition = (row: TransitionRow): GroupTransitionView => ({
  seq: Number(row.seq),
  type: row.type,
  from: row.fromState as GroupTransitionView['from'],
  to: row.toState as GroupTransitionView['to'],
  by: row.actor,
  reason: row.reason ?? null,
  details: row.details,
  at: row.at.toISOString(),
});
