import { useState } from 'react';
import { api, q } from '../api/client';
import type { ExceptionGroup, ExceptionGroupDetail, ExceptionTransitions } from '../api/types';
import { Empty, Loaded } from '../components/states';
import { useLive, useSession } from '../live/hooks';

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
              <h4>Lifecycle</h4>
              <ol className="events">
                {transitions.transitions.map((t) => (
                  <li key={t.seq}>
                    <time dateTime={t.at}>{new Date(t.at).toLocaleTimeString()}</time> {t.from ?? '∅'} → {t.to} by {t.by}
                    {t.reason ? `: ${t.reason}` : ''}
                  </li>
                ))}
              </ol>
            </>
          );
        }}
      </Loaded>
    </section>
  );
}
