import { useMemo } from 'react';
import { api, ApiError, q } from '../api/client';
import type { Approval, Budget, Personas, Run, RunSummary, Teammates } from '../api/types';
import { Empty, Loaded, NoTeam } from '../components/states';
import { useLive, useSession, useStream } from '../live/hooks';
import { activityByPersona, statusText, type PersonaActivity, type StatusKey } from './team/persona-status';

interface Overview {
  personas: Personas | undefined;
  teammates: Teammates['items'];
  run: Run | undefined;
  approvals: Approval[];
  budget: Budget | undefined;
}

async function loadOverview(team: string): Promise<Overview> {
  const [personas, teammates, runs, approvals, budget] = await Promise.all([
    api<Personas>('/api/v1/personas?limit=200').catch(() => undefined),
    api<Teammates>(`/api/v1/teams/${q(team)}/members`).then((t) => t.items, () => []),
    api<{ items: RunSummary[] }>(`/api/v1/teams/${q(team)}/runs?limit=1`).catch(() => ({ items: [] })),
    api<{ items: Approval[] }>(`/api/v1/teams/${q(team)}/approvals?status=pending&limit=100`).then((r) => r.items, () => []),
    api<Budget>(`/api/v1/budgets?team=${q(team)}`).catch((e: unknown) => (e instanceof ApiError ? undefined : Promise.reject(e))),
  ]);
  const latest = runs.items[0];
  const run = latest ? await api<Run>(`/api/v1/teams/${q(team)}/runs/${q(latest.runId)}`) : undefined;
  return { personas, teammates, run, approvals, budget };
}

interface Card {
  id: string;
  name: string;
  pools: string[];
  status: StatusKey;
  doing: string;
  turn?: number;
}

function cardsOf({ personas, teammates, run, approvals, budget }: Overview, live: Map<string, PersonaActivity>): Card[] {
  const cards = new Map<string, Card>();
  const put = (id: string, change: Partial<Card>) => {
    const card = cards.get(id) ?? { id, name: id, pools: [], status: 'idle' as StatusKey, doing: '' };
    cards.set(id, { ...card, ...change });
  };
  for (const p of personas?.items ?? []) put(p.personaId, { name: p.name, pools: p.pools, status: p.status === 'active' ? 'working' : 'idle', doing: p.taskId ? `task ${p.taskId}` : '' });
  for (const m of teammates) put(m.name.toLowerCase(), { name: m.name, status: m.status === 'active' ? 'working' : 'idle', ...(m.task ? { doing: `task ${m.task}` } : {}) });
  for (const p of run?.personas ?? []) {
    const working = p.activity !== 'idle';
    put(p.persona, { name: p.name, status: working ? 'working' : 'idle', doing: working ? p.activity : '' });
  }
  // A session seen starting on the stream (and not yet ended) is work in progress, before any reload shows it.
  for (const [id, activity] of live) {
    if (!cards.has(id) || !activity.session) continue;
    put(id, { status: 'working', doing: cards.get(id)!.status === 'working' && cards.get(id)!.doing ? cards.get(id)!.doing : activity.session.what, turn: activity.session.turn || undefined });
  }
  // What holds a persona back outranks what it was doing: a pending approval it asked for, then a
  // budget pause (the team's budget at its limit holds every persona of the team; a session's pause, its own).
  const asking = new Set(approvals.map((a) => a.requester.toLowerCase()));
  for (const card of cards.values()) {
    if (asking.has(card.id)) put(card.id, { status: 'waiting' });
    else if (budget?.status === 'paused' || (card.status === 'working' && live.get(card.id)?.pausedByBudget)) put(card.id, { status: 'paused' });
  }
  return [...cards.values()];
}

export function TeamOverview() {
  const { team } = useSession();
  const { events } = useStream();
  const overview = useLive(() => loadOverview(team ?? ''), ['run.', 'session.', 'persona.', 'task.', 'teammate.', 'budget.', 'approval.'], [team]);
  // Turns and budget pauses since the page opened, from the live stream (newest first there).
  const live = useMemo(() => activityByPersona(events.filter((e) => e.team === team && e.type.startsWith('session.')).reverse()), [events, team]);
  if (!team) return <NoTeam />;
  return (
    <Loaded resource={overview}>
      {(o) => {
        const cards = cardsOf(o, live);
        return (
          <>
            {o.run && (
              <p className="lede">
                Run <strong>{o.run.title}</strong> — phase <span data-testid="run-phase">{o.run.phase}</span>
                {o.run.waitingFor ? `, waiting for ${o.run.waitingFor}` : ''}
              </p>
            )}
            {cards.length === 0 ? (
              <Empty title="No personas yet">Personas appear here when a run starts or an admin registers them (POST /api/v1/personas).</Empty>
            ) : (
              <ul className="cards" aria-label="Personas">
                {cards.map((c) => (
                  <li key={c.id} className="card persona" data-persona={c.id} data-status={c.status}>
                    <h2>
                      <span className="avatar" aria-hidden="true">
                        {c.name.charAt(0)}
                      </span>
                      {c.name}
                    </h2>
                    <p className="muted">{c.pools.length ? `pool ${c.pools.join(', ')}` : c.id}</p>
                    <p>
                      <span className={`badge status-${c.status}`} data-testid="persona-status">
                        {statusText(c.status, c.doing)}
                        {c.status === 'working' && c.turn ? ` (turn ${c.turn})` : ''}
                      </span>
                    </p>
                  </li>
                ))}
              </ul>
            )}
          </>
        );
      }}
    </Loaded>
  );
}
