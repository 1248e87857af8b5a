import { useState } from 'react';
import { api, q } from '../api/client';
import type { Approval } from '../api/types';
import { Empty, Loaded, NoTeam } from '../components/states';
import { useLive, useSession } from '../live/hooks';

export function Approvals() {
  const { team, role } = useSession();
  const approvals = useLive(
    () => api<{ items: Approval[] }>(`/api/v1/teams/${q(team ?? '')}/approvals?status=pending&limit=100`).then((r) => r.items),
    ['approval.', 'budget.approval'],
    [team],
  );
  if (!team) return <NoTeam />;
  return (
    <Loaded resource={approvals}>
      {(items) =>
        items.length === 0 ? (
          <Empty title="Nothing waiting for approval">Plan approvals, permission requests and budget overruns appear here when a persona asks.</Empty>
        ) : (
          <ul className="cards wide" aria-label="Pending approvals">
            {items.map((a) => (
              <ApprovalCard key={a.approvalId} approval={a} canAnswer={role !== 'viewer'} team={team} />
            ))}
          </ul>
        )
      }
    </Loaded>
  );
}

function ApprovalCard({ approval: a, canAnswer, team }: { approval: Approval; canAnswer: boolean; team: string }) {
  const [reason, setReason] = useState('');
  const [state, setState] = useState<{ busy: boolean; error?: string; done?: string }>({ busy: false });
  const answer = async (decision: 'approve' | 'deny') => {
    setState({ busy: true });
    try {
      await api(`/api/v1/teams/${q(team)}/approvals/${q(a.approvalId)}/answer`, {
        method: 'POST',
        body: { decision, answeredBy: 'dashboard', ...(reason.trim() ? { reason: reason.trim() } : {}) },
        idempotencyKey: `dashboard-${a.approvalId}-${decision}`,
      });
      setState({ busy: false, done: decision === 'approve' ? 'Approved' : 'Denied' });
    } catch (error) {
      setState({ busy: false, error: error instanceof Error ? error.message : String(error) });
    }
  };
  const reasonId = `reason-${a.approvalId}`;
  return (
    <li className="card approval" data-approval={a.approvalId} data-approval-kind={a.kind}>
      <h2>{a.summary}</h2>
      <p className="muted">
        {a.kind} · asked by {a.requester} · times out {new Date(a.expiresAt).toLocaleTimeString()} (then {a.defaultAnswer})
      </p>
      {a.kind === 'plan-approval' && <PlanTasks payload={a.payload} />}
      {Object.keys(a.payload).length > 0 && (
        <details>
          <summary>Context</summary>
          <pre>{JSON.stringify(a.payload, null, 2)}</pre>
        </details>
      )}
      {canAnswer && !state.done && (
        <div className="actions">
          <label htmlFor={reasonId}>Reason (optional)</label>
          <input id={reasonId} value={reason} onChange={(e) => setReason(e.target.value)} />
          <button type="button" disabled={state.busy} onClick={() => void answer('approve')}>
            Approve
          </button>
          <button type="button" className="secondary" disabled={state.busy} onClick={() => void answer('deny')}>
            Deny
          </button>
        </div>
      )}
      {state.done && <p role="status">{state.done}.</p>}
      {state.error && <p role="alert">Could not answer: {state.error}</p>}
    </li>
  );
}

/** Gavin's plan, as the run put it into the approval's payload: what approving it starts building. */
function PlanTasks({ payload }: { payload: Record<string, unknown> }) {
  const tasks = Array.isArray(payload.tasks) ? (payload.tasks as Array<{ key: string; subject: string; dependsOn?: string[] }>) : [];
  if (tasks.length === 0) return null;
  return (
    <ol className="plan" aria-label="Planned tasks">
      {tasks.map((t) => (
        <li key={t.key} data-plan-task={t.key}>
          <strong>{t.key}</strong> {t.subject}
          {t.dependsOn?.length ? <span className="muted"> (after {t.dependsOn.join(', ')})</span> : null}
        </li>
      ))}
    </ol>
  );
}
