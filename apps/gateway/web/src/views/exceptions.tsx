import { useMemo, useState } from 'react';
import { api, q } from '../api/client';
import type { ExceptionGroup, ExceptionGroupDetail, ExceptionTransitions } from '../api/types';
import { Empty, Loaded } from '../components/states';
import { TraceLink } from '../components/trace-link';
import { useHistory } from '../live/history';
import { useLive, useSession } from '../live/hooks';

/** Leon's remediation path, in order; a group leaves it when dismissed, escalated or regressed. */
const FIX_STEPS = ['NEW', 'ANALYSING', 'FIX_PROPOSED', 'FIX_IN_PROGRESS', 'FIX_COMMITTED', 'VERIFIED', 'RESOLVED'] as const;

const SEVERITIES = ['critical', 'error', 'warning', 'noise', 'untriaged'] as const;
const ACTIONS = ['fix', 'resolve', 'dismiss', 'escalate', 'reopen'] as const;

export function Exceptions() {
  const groups = useLive(() => api<{ items: ExceptionGroup[] }>('/api/v1/ops/groups?limit=200&sort=last-seen').then((r) => r.items), ['group.', 'exception.'], []);
  const [open, setOpen] = useState<string>();
  return (
    <Loaded resource={groups}>
      {(items) =>
        items.length === 0 ? (
          <Empty title="No exceptions">Leon groups exceptions your services report here (create a project and ingest key under /api/v1/ops/projects, then point a Sentry SDK at it).</Empty>
        ) : (
          <div className="split">
            <div>
              {SEVERITIES.map((severity) => {
                const inSeverity = items.filter((g) => (g.severity ?? 'untriaged') === severity);
                if (inSeverity.length === 0) return null;
                return (
                  <section key={severity} aria-labelledby={`sev-${severity}`}>
                    <h3 id={`sev-${severity}`}>
                      {severity} <span className="count">{inSeverity.length}</span>
                    </h3>
                    <ul className="list">
                      {inSeverity.map((g) => (
                        <li key={g.groupId} data-group={g.groupId} data-state={g.state}>
                          <button type="button" className="link" aria-expanded={open === g.groupId} onClick={() => setOpen(g.groupId)}>
                            {g.title}
                          </button>
                          <span className={`badge state-${g.state}`}>{g.state}</span>
                          <span className="muted">
                            {' '}
                            {g.project} · {g.count}× · last {new Date(g.lastSeen).toLocaleTimeString()}
                          </span>
                        </li>
                      ))}
                    </ul>
                  </section>
                );
              })}
            </div>
            {open && <GroupDetail groupId={open} />}
          </div>
        )
      }
    </Loaded>
  );
}

function GroupDetail({ groupId }: { groupId: string }) {
  const { role } = useSession();
  const [error, setError] = useState<string>();
  const [reason, setReason] = useState('');
  const { team } = useSession();
  const [since] = useState(() => new Date(Date.now() - 86_400_000).toISOString());
  const events = useHistory({ types: 'exception.received,group.opened', since });
  const traceId = useMemo(() => events.find((e) => e.data.groupId === groupId && e.traceId)?.traceId, [events, groupId]);
  const detail = useLive(
    () =>
      Promise.all([
        api<ExceptionGroupDetail>(`/api/v1/ops/groups/${q(groupId)}`),
        api<ExceptionTransitions>(`/api/v1/ops/groups/${q(groupId)}/transitions`),
      ]),
    ['group.', 'exception.', 'run.'],
    [groupId],
  );
  const act = async (action: (typeof ACTIONS)[number]) => {
    setError(undefined);
    try {
      await api(`/api/v1/ops/groups/${q(groupId)}/transitions`, { method: 'POST', body: { action, actor: 'dashboard', ...(reason.trim() ? { reason: reason.trim() } : {}) } });
      setReason('');
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <section className="card detail" aria-labelledby="group-title">
      <Loaded resource={detail}>
        {([group, transitions]) => {
          const sample = group.samples[0];
          return (
            <>
              <h3 id="group-title">{group.title}</h3>
              <p>
                <span className={`badge state-${group.state}`} data-testid="group-state">
                  {group.state}
                </span>{' '}
                {group.culprit} · {group.domain ?? 'domain unknown'} · {group.persona ? `owner ${group.persona}` : 'no owner yet'}
              </p>
              {role !== 'viewer' && (
                <div className="actions" aria-label="Group actions" role="group">
                  <label htmlFor="group-reason">Reason (needed to dismiss)</label>
                  <input id="group-reason" value={reason} onChange={(e) => setReason(e.target.value)} />
                  {ACTIONS.map((a) => (
                    <button type="button" key={a} className="secondary" onClick={() => void act(a)}>
                      {a}
                    </button>
                  ))}
                </div>
              )}
              {error && <p role="alert">{error}</p>}
              {sample?.stack && (
                <details open>
                  <summary>Stack</summary>
                  <pre>{sample.stack}</pre>
                </details>
              )}
              <p>
                <TraceLink traceId={traceId} what="the first report" />
              </p>
              <h4>Fix lifecycle</h4>
              <ol className="phases" aria-label="Fix lifecycle" data-fix-state={group.state}>
                {FIX_STEPS.map((step, i) => {
                  const at = FIX_STEPS.indexOf(group.state as (typeof FIX_STEPS)[number]);
                  return (
                    <li key={step} className={i < at ? 'done' : i === at ? 'current' : ''} aria-current={i === at ? 'step' : undefined}>
                      {step.toLowerCase().replaceAll('_', ' ')}
                    </li>
                  );
                })}
              </ol>
              {!FIX_STEPS.includes(group.state as (typeof FIX_STEPS)[number]) && <p className="notice">Off the fix path: {group.state.toLowerCase()}.</p>}
              <ol className="events" aria-label="Lifecycle">
                {transitions.transitions.map((t) => {
                  const runId = typeof t.details.runId === 'string' ? t.details.runId : undefined;
                  const runTeam = typeof t.details.team === 'string' ? t.details.team : team;
                  return (
                    <li key={t.seq} data-transition={t.type}>
                      <time dateTime={t.at}>{new Date(t.at).toLocaleTimeString()}</time> {t.from ?? '∅'} → {t.to} by {t.by}
                      {t.reason ? `: ${t.reason}` : ''}
                      {runId && runTeam && (
                        <>
                          {' '}
                          <a href={`/run?team=${encodeURIComponent(runTeam)}&run=${encodeURIComponent(runId)}`} data-fix-run={runId}>
                            fix run {runId}
                          </a>
                        </>
                      )}
                      {typeof t.details.commit === 'string' ? <code> {t.details.commit.slice(0, 10)}</code> : null}
                    </li>
                  );
                })}
              </ol>
              <h4>Events ({group.count})</h4>
              <ul className="list" aria-label="Latest events">
                {group.samples.map((e) => (
                  <li key={e.eventId} data-sample={e.eventId}>
                    <time dateTime={e.receivedAt}>{new Date(e.receivedAt).toLocaleString()}</time> {e.type}: {e.message}
                    <span className="muted">
                      {[e.environment, e.release, e.serverName].filter(Boolean).join(' · ') || e.source}
                    </span>
                  </li>
                ))}
              </ul>
            </>
          );
        }}
      </Loaded>
    </section>
  );
}
