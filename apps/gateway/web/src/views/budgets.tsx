import { useMemo, useState } from 'react';
import { api, ApiError, q } from '../api/client';
import type { Budget, Spend } from '../api/types';
import { Empty, Loaded, NoTeam } from '../components/states';
import { useHistory } from '../live/history';
import { useLive, useSession } from '../live/hooks';
import { SpendChart } from './budgets/spend-chart';
import { spendSeries, teamOfBudget } from './budgets/spend-series';

const BUDGET_EVENTS = ['budget.threshold-crossed', 'budget.paused', 'budget.resumed', 'budget.stopped'];
/** Usage and budget events carry no team in the stream (their team is inside the payload): filtered here. */
const HISTORY_TYPES = ['usage.recorded', ...BUDGET_EVENTS, 'session.budget-decided'].join(',');
const DAY_MS = 86_400_000;

const usd = (micros: string | undefined) => (micros === undefined ? '—' : `$${(Number(micros) / 1e6).toFixed(2)}`);

async function loadBudget(team: string): Promise<{ budget: Budget | undefined; spend: Spend | undefined }> {
  const budget = await api<Budget>(`/api/v1/budgets?team=${q(team)}`).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  });
  const spend = await api<Spend>(`/api/v1/usage/spend?team=${q(team)}&groupBy=persona`).catch(() => undefined);
  return { budget, spend };
}

export function Budgets() {
  const { team } = useSession();
  const since = useMemo(() => new Date(Date.now() - DAY_MS).toISOString(), []);
  const history = useHistory(team ? { types: HISTORY_TYPES, since } : undefined);
  const resource = useLive(() => loadBudget(team ?? ''), ['budget.', 'usage.', 'session.budget'], [team]);
  const byPersona = useMemo(() => spendSeries(history, team ?? '', 'persona'), [history, team]);
  const byModel = useMemo(() => spendSeries(history, team ?? '', 'model'), [history, team]);
  if (!team) return <NoTeam />;
  const decisions = history
    .filter((e) => (BUDGET_EVENTS.includes(e.type) && teamOfBudget(e.data.budgetId) === team) || (e.type === 'session.budget-decided' && e.team === team && e.data.decision !== 'allowed'))
    .reverse();
  return (
    <Loaded resource={resource}>
      {({ budget, spend }) => (
        <>
          {!budget ? (
            <Empty title="No budget for this team">An admin sets one with PUT /api/v1/budgets (scope team, limitUsd); spending is unlimited until then.</Empty>
          ) : (
            <BudgetGauge budget={budget} />
          )}
          <section aria-labelledby="budget-events">
            <h3 id="budget-events">Downgrades and pauses</h3>
            {decisions.length === 0 && !budget?.warned ? (
              <p className="muted">None in the last 24 hours.</p>
            ) : (
              <ul className="events">
                {budget?.warned && decisions.length === 0 && <li data-budget-event="warned">Past 80% of the limit: models are downgraded one tier.</li>}
                {decisions.map((e) => (
                  <li key={e.eventId} data-budget-event={e.type}>
                    <time dateTime={e.time}>{new Date(e.time).toLocaleTimeString()}</time> {e.summary}
                    {e.type === 'budget.threshold-crossed' ? ` (${String(e.data.action)} at ${String(e.data.percent)}%)` : ''}
                    {e.type === 'session.budget-decided' ? ` (${String(e.data.decision)}: ${String(e.data.model)})` : ''}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-labelledby="spend-over-time">
            <h3 id="spend-over-time">Spend over time (last 24 hours)</h3>
            {byPersona.length === 0 ? (
              <p className="muted">No model calls recorded for this team in the last 24 hours.</p>
            ) : (
              <div className="charts">
                <SpendChart title="By persona" series={byPersona} />
                <SpendChart title="By model" series={byModel} />
              </div>
            )}
          </section>
          {spend && spend.groups.length > 0 && (
            <section aria-labelledby="spend-by-persona">
              <h3 id="spend-by-persona">Spend by persona</h3>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Persona</th>
                    <th scope="col">Calls</th>
                    <th scope="col">Cost</th>
                  </tr>
                </thead>
                <tbody>
                  {spend.groups.map((g) => (
                    <tr key={g.key}>
                      <td>{g.key}</td>
                      <td>{g.calls}</td>
                      <td>${g.costUsd}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
        </>
      )}
    </Loaded>
  );
}

function BudgetGauge({ budget }: { budget: Budget }) {
  const { role } = useSession();
  const [error, setError] = useState<string>();
  const percent = budget.limitMicros ? Math.min(100, Math.round((Number(budget.spentMicros) / Number(budget.limitMicros)) * 100)) : 0;
  const resolve = async (decision: 'approve' | 'deny') => {
    try {
      await api(`/api/v1/budgets/${q(budget.budgetId)}/resolve`, { method: 'POST', body: { decision, resolvedBy: 'dashboard' } });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <section aria-labelledby="budget-title" className="card budget" data-budget-status={budget.status} data-warned={String(budget.warned)}>
      <h3 id="budget-title">
        Budget {budget.budgetId} <span className={`badge status-${budget.status}`}>{budget.status}</span>
      </h3>
      <div className="gauge" role="meter" aria-label="Budget used" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-valuetext={`${percent}% used`}>
        <div className="gauge-fill" style={{ width: `${percent}%` }} />
        <div className="gauge-line" style={{ left: '80%' }} title="80%: downgrade" />
        <div className="gauge-line critical" style={{ left: '95%' }} title="95%: pause" />
      </div>
      <p>
        {usd(budget.spentMicros)} spent of {usd(budget.limitMicros)} ({percent}%) · reserved {usd(budget.reservedMicros)} · period {budget.period}
      </p>
      {budget.warned && <p className="notice" data-testid="budget-downgrade">Past 80%: models are downgraded one tier until the period ends.</p>}
      {budget.status === 'paused' && role !== 'viewer' && (
        <div className="actions">
          <button type="button" onClick={() => void resolve('approve')}>
            Resume
          </button>
          <button type="button" className="secondary" onClick={() => void resolve('deny')}>
            Keep paused
          </button>
        </div>
      )}
      {error && <p role="alert">{error}</p>}
    </section>
  );
}
