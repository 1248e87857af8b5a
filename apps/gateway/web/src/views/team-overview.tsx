import { api, q } from '../api/client';
import type { Personas, Run, RunSummary, Teammates } from '../api/types';
import { Empty, Loaded, NoTeam } from '../components/states';
import { useLive, useSession } from '../live/hooks';

interface Overview {
  personas: Personas | undefined;
  teammates: Teammates['items'];
  run: Run | undefined;
}

async function loadOverview(team: string): Promise<Overview> {
  const [personas, teammates, runs] = await Promise.all([
    api<Personas>('/api/v1/personas?limit=200').catch(() => undefined),
    api<Teammates>(`/api/v1/teams/${q(team)}/members`).then((t) => t.items, () => []),
    api<{ items: RunSummary[] }>(`/api/v1/teams/${q(team)}/runs?limit=1`).catch(() => ({ items: [] })),
  ]);
  const latest = runs.items[0];
  const run = latest ? await api<Run>(`/api/v1/teams/${q(team)}/runs/${q(latest.runId)}`) : undefined;
  return { personas, teammates, run };
}

interface Card {
  id: string;
  name: string;
  pools: string[];
  status: string;
  doing: string;
}

function cardsOf({ personas, teammates, run }: Overview): Card[] {
  const cards = new Map<string, Card>();
  for (const p of personas?.items ?? []) {
    cards.set(p.personaId, { id: p.personaId, name: p.name, pools: p.pools, status: p.status === 'active' ? 'working' : 'idle', doing: p.taskId ? `task ${p.taskId}` : '' });
  }
  for (const m of teammates) {
    const id = m.name.toLowerCase();
    const card = cards.get(id) ?? { id, name: m.name, pools: [], status: 'idle', doing: '' };
    cards.set(id, { ...card, status: m.status === 'active' ? 'working' : m.status, doing: m.task ? `task ${m.task}` : card.doing });
  }
  for (const p of run?.personas ?? []) {
    const card = cards.get(p.persona) ?? { id: p.persona, name: p.name, pools: [], status: 'idle', doing: '' };
    const working = p.activity !== 'idle';
    const waiting = run?.waitingFor && !working;
    cards.set(p.persona, { ...card, name: p.name, status: working ? 'working' : waiting ? 'waiting for approval' : 'idle', doing: working ? p.activity : '' });
  }
  return [...cards.values()];
}

export function TeamOverview() {
  const { team } = useSession();
  const overview = useLive(() => loadOverview(team ?? ''), ['run.', 'session.', 'persona.', 'task.', 'teammate.', 'budget.'], [team]);
  if (!team) return <NoTeam />;
  return (
    <Loaded resource={overview}>
      {(o) => {
        const cards = cardsOf(o);
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
                    <h3>
                      <span className="avatar" aria-hidden="true">
                        {c.name.charAt(0)}
                      </span>
                      {c.name}
                    </h3>
                    <p className="muted">{c.pools.length ? `pool ${c.pools.join(', ')}` : c.id}</p>
                    <p>
                      <span className={`badge status-${c.status.split(' ')[0]}`}>{c.status}</span>
                    </p>
                    {c.doing && <p className="doing">{c.doing}</p>}
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
