import { api, q } from '../api/client';
import type { Run, RunSummary } from '../api/types';
import { Empty, Loaded, NoTeam } from '../components/states';
import { useLive, useSession } from '../live/hooks';

const PHASES: Run['phase'][] = ['workshop', 'spec-review', 'decomposition', 'tasks-review', 'execution', 'qa', 'review', 'completed'];

async function loadRun(team: string): Promise<{ runs: RunSummary[]; run: Run | undefined }> {
  const runs = (await api<{ items: RunSummary[] }>(`/api/v1/teams/${q(team)}/runs?limit=20`)).items;
  const wanted = new URLSearchParams(location.search).get('run') ?? runs[0]?.runId;
  const run = wanted ? await api<Run>(`/api/v1/teams/${q(team)}/runs/${q(wanted)}`) : undefined;
  return { runs, run };
}

export function RunView() {
  const { team } = useSession();
  const resource = useLive(() => loadRun(team ?? ''), ['run.', 'session.', 'task.'], [team]);
  if (!team) return <NoTeam />;
  return (
    <Loaded resource={resource}>
      {({ run }) =>
        !run ? (
          <Empty title="No run yet">Start one with <code>headspace run start</code> or <code>POST /api/v1/teams/{team}/runs</code>; it appears here live.</Empty>
        ) : (
          <RunDetail run={run} />
        )
      }
    </Loaded>
  );
}

function RunDetail({ run }: { run: Run }) {
  const current = PHASES.indexOf(run.phase);
  return (
    <>
      <h3>{run.title}</h3>
      <p className="muted">
        {run.runId} · {run.mode} · {run.simulated ? 'simulated' : 'live model'} · started {new Date(run.startedAt).toLocaleString()}
      </p>
      <ol className="phases" aria-label="Phases">
        {PHASES.map((p, i) => (
          <li key={p} className={run.phase === 'failed' ? 'failed' : i < current ? 'done' : i === current ? 'current' : ''} aria-current={i === current ? 'step' : undefined}>
            {p}
          </li>
        ))}
      </ol>
      {run.waitingFor && <p className="notice">Waiting for {run.waitingFor}.</p>}
      <section aria-labelledby="run-tasks">
        <h4 id="run-tasks">
          Tasks ({run.progress.tasksDone}/{run.progress.tasksTotal} merged)
        </h4>
        {run.tasks.length === 0 ? (
          <p className="muted">No tasks planned yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Subject</th>
                <th scope="col">Status</th>
                <th scope="col">Persona</th>
                <th scope="col">Attempts</th>
              </tr>
            </thead>
            <tbody>
              {run.tasks.map((t) => (
                <tr key={t.key} data-run-task={t.key} data-status={t.status}>
                  <td>{t.key}</td>
                  <td>{t.subject}</td>
                  <td>{t.status}</td>
                  <td>{t.persona ?? '—'}</td>
                  <td>{t.attempts}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="run-sessions">
        <h4 id="run-sessions">Sessions</h4>
        <ul>
          {run.personas.map((p) => (
            <li key={p.persona}>
              <strong>{p.name}</strong>: {p.activity}
            </li>
          ))}
        </ul>
      </section>
      {(run.phase === 'completed' || run.phase === 'failed') && (
        <section aria-labelledby="run-summary" className="summary" data-testid="run-summary">
          <h4 id="run-summary">Summary</h4>
          <dl>
            <dt>Verdict</dt>
            <dd>{run.verdict ?? run.failure ?? run.phase}</dd>
            <dt>Tasks merged</dt>
            <dd>
              {run.progress.tasksDone} of {run.progress.tasksTotal}
            </dd>
            <dt>QA rounds</dt>
            <dd>{run.qaRounds}</dd>
            {run.branch && (
              <>
                <dt>Branch</dt>
                <dd>{run.branch}</dd>
              </>
            )}
            {run.costUsd && (
              <>
                <dt>Cost</dt>
                <dd>${run.costUsd}</dd>
              </>
            )}
          </dl>
        </section>
      )}
    </>
  );
}
