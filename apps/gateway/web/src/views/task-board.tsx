import { useDeferredValue, useState } from 'react';
import { api, q } from '../api/client';
import type { Task } from '../api/types';
import { Empty, Loaded, NoTeam } from '../components/states';
import { useLive, useSession } from '../live/hooks';

const COLUMNS: Array<{ status: Task['status']; title: string }> = [
  { status: 'pending', title: 'Pending' },
  { status: 'claimed', title: 'In progress' },
  { status: 'completed', title: 'Done' },
  { status: 'escalated', title: 'Escalated' },
];

export async function loadTasks(team: string): Promise<Task[]> {
  const tasks: Task[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Task[]; nextCursor: string | null } = await api(`/api/v1/teams/${q(team)}/tasks?limit=500${cursor ? `&cursor=${q(cursor)}` : ''}`);
    tasks.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor && tasks.length < 5_000);
  // The bench (bench/dashboard.bench.ts) splits fetching from rendering at this mark.
  performance.mark('headspace:tasks-loaded');
  return tasks;
}

export function TaskBoard() {
  const { team } = useSession();
  const tasks = useLive(() => loadTasks(team ?? ''), ['task.'], [team]);
  const [filter, setFilter] = useState('');
  const deferred = useDeferredValue(filter.trim().toLowerCase());
  if (!team) return <NoTeam />;
  return (
    <>
      <div className="toolbar">
        <label htmlFor="task-filter">Filter tasks</label>
        <input id="task-filter" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="subject, owner or id" />
      </div>
      <Loaded resource={tasks}>
        {(all) => {
          if (all.length === 0) return <Empty title="No tasks yet">Tasks appear here when a run plans them or someone creates one (POST /api/v1/teams/{team}/tasks).</Empty>;
          const shown = deferred ? all.filter((t) => `${t.taskId} ${t.subject} ${t.owner ?? ''}`.toLowerCase().includes(deferred)) : all;
          return (
            <div className="board">
              {COLUMNS.map((col) => {
                const items = shown.filter((t) => t.status === col.status);
                return (
                  <section key={col.status} className="column" aria-labelledby={`col-${col.status}`} data-column={col.status}>
                    <h3 id={`col-${col.status}`}>
                      {col.title} <span className="count">{items.length}</span>
                    </h3>
                    <ul>
                      {items.map((t) => (
                        <li key={t.taskId} className="card task" data-task={t.taskId}>
                          <p className="task-subject">{t.subject}</p>
                          <p className="muted">
                            {t.taskId}
                            {t.owner ? ` · ${t.owner}` : ''} · attempt {t.attempts}/{t.maxAttempts}
                            {t.leaseExpiresAt ? ` · lease until ${new Date(t.leaseExpiresAt).toLocaleTimeString()}` : ''}
                          </p>
                          {t.dependsOn.length > 0 && <p className="muted">depends on {t.dependsOn.join(', ')}{t.blocked ? ' (blocked)' : ''}</p>}
                        </li>
                      ))}
                    </ul>
                  </section>
                );
              })}
            </div>
          );
        }}
      </Loaded>
    </>
  );
}
