import { memo, useDeferredValue, useMemo, useState } from 'react';
import { api, q } from '../api/client';
import type { Board, BoardCard } from '../api/types';
import { Empty, Loaded, NoTeam } from '../components/states';
import { useLive, useSession } from '../live/hooks';

const COLUMNS: Array<{ status: BoardCard['status']; title: string }> = [
  { status: 'pending', title: 'Pending' },
  { status: 'claimed', title: 'In progress' },
  { status: 'completed', title: 'Done' },
  { status: 'escalated', title: 'Escalated' },
];

/** A board fetched before the view asked (while signing in), taken by the view's first load. */
let prefetched: { team: string; at: number; board: Promise<Board> } | undefined;
const PREFETCH_FRESH_MS = 10_000;

/** Starts fetching `team`'s board now (the page opens on it): the view's first load takes the answer. */
export function prefetchBoard(team: string): void {
  const board = api<Board>(boardPath(team));
  board.catch(() => undefined); // the view's load reports it
  prefetched = { team, at: performance.now(), board };
}

const boardPath = (team: string) => `/api/v1/teams/${q(team)}/board`;

/** The whole board in one request (GET /api/v1/teams/{team}/board: up to 1,000 cards). */
export async function loadBoard(team: string): Promise<Board> {
  performance.mark('headspace:board-asked');
  const early = prefetched?.team === team && performance.now() - prefetched.at < PREFETCH_FRESH_MS ? prefetched.board : undefined;
  prefetched = undefined;
  const board = await (early ?? api<Board>(boardPath(team)));
  // The bench (bench/dashboard.bench.ts) splits fetching from rendering at this mark.
  performance.mark('headspace:tasks-loaded');
  return board;
}

export function TaskBoard() {
  const { team } = useSession();
  const board = useLive(() => loadBoard(team ?? ''), ['task.'], [team]);
  const [filter, setFilter] = useState('');
  const deferred = useDeferredValue(filter.trim().toLowerCase());
  if (!team) return <NoTeam />;
  return (
    <>
      <div className="toolbar">
        <label htmlFor="task-filter">Filter tasks</label>
        <input id="task-filter" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="subject, owner or id" />
      </div>
      <Loaded resource={board}>
        {(data) =>
          data.tasks.length === 0 ? (
            <Empty title="No tasks yet">Tasks appear here when a run plans them or someone creates one (POST /api/v1/teams/{team}/tasks).</Empty>
          ) : (
            <Columns board={data} filter={deferred} />
          )
        }
      </Loaded>
    </>
  );
}

/** The cards by column, in one pass over the tasks (filtered by subject, owner or id). */
function Columns({ board, filter }: { board: Board; filter: string }) {
  const byStatus = useMemo(() => {
    const columns = new Map<BoardCard['status'], BoardCard[]>(COLUMNS.map((c) => [c.status, []]));
    for (const t of board.tasks) {
      if (filter && !`${t.taskId} ${t.subject} ${t.owner ?? ''}`.toLowerCase().includes(filter)) continue;
      columns.get(t.status)?.push(t);
    }
    return columns;
  }, [board, filter]);
  return (
    <>
      {board.limited && (
        <p className="muted" role="status">
          The board shows the first {board.tasks.length.toLocaleString()} tasks; newer ones may be left out. The task API's filters narrow the list (GET /api/v1/teams/{'{team}'}/tasks?status=…).
        </p>
      )}
      <div className="board">
        {COLUMNS.map((col) => {
          const items = byStatus.get(col.status) ?? [];
          return (
            <section key={col.status} className="column" aria-labelledby={`col-${col.status}`} data-column={col.status}>
              <h3 id={`col-${col.status}`}>
                {col.title} <span className="count">{items.length}</span>
              </h3>
              <ul>
                {items.map((t) => (
                  <Card key={t.taskId} task={t} />
                ))}
              </ul>
            </section>
          );
        })}
      </div>
    </>
  );
}

/**
 * One task; unchanged cards are not rendered again when the board reloads or the filter changes.
 * Each line is one string (one text node): a board is 1,000 of these.
 */
const Card = memo(
  function Card({ task: t }: { task: BoardCard }) {
    const lease = t.leaseExpiresAt ? ` · lease until ${new Date(t.leaseExpiresAt).toLocaleTimeString()}` : '';
    return (
      <li className="card task" data-task={t.taskId}>
        <p className="task-subject">{t.subject}</p>
        <p className="muted">{`${t.taskId}${t.owner ? ` · ${t.owner}` : ''} · attempt ${t.attempts}/${t.maxAttempts}${lease}`}</p>
        {t.dependsOn.length > 0 && <p className="muted">{`depends on ${t.dependsOn.join(', ')}${t.blocked ? ' (blocked)' : ''}`}</p>}
      </li>
    );
  },
  (a, b) => sameCard(a.task, b.task),
);

function sameCard(a: BoardCard, b: BoardCard): boolean {
  return (
    a === b ||
    (a.subject === b.subject &&
      a.status === b.status &&
      a.owner === b.owner &&
      a.blocked === b.blocked &&
      a.attempts === b.attempts &&
      a.maxAttempts === b.maxAttempts &&
      a.leaseExpiresAt === b.leaseExpiresAt &&
      a.dependsOn.join() === b.dependsOn.join())
  );
}
