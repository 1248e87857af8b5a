import { useMemo, useState } from 'react';
import { api, q } from '../api/client';
import type { Run, RunDiff, RunSummary } from '../api/types';
import { Empty, Loaded, NoTeam } from '../components/states';
import { TraceLink } from '../components/trace-link';
import { useHistory } from '../live/history';
import { useLive, useSession } from '../live/hooks';
import { foldRunHistory, type RunHistory, type SessionHistory } from './run/run-history';

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

const time = (iso: string) => new Date(iso).toLocaleTimeString();

function RunDetail({ run }: { run: Run }) {
  // The run's own events and its sessions' (turns, tool calls), replayed from its start and then live.
  const since = new Date(Date.parse(run.startedAt) - 60_000).toISOString();
  const events = useHistory({ run: run.runId, types: 'run.*,session.*', since });
  const history = useMemo(() => foldRunHistory(events), [events]);
  const current = PHASES.indexOf(run.phase);
  return (
    <>
      <h2 className="run-title">{run.title}</h2>
      <p className="muted">
        {run.runId} · {run.mode} · {run.simulated ? 'simulated' : 'live model'} · started {new Date(run.startedAt).toLocaleString()}{' '}
        <TraceLink traceId={history.traceId} what="the run" />
      </p>
      <ol className="phases" aria-label="Phases" data-phase={run.phase}>
        {PHASES.map((p, i) => (
          <li key={p} className={run.phase === 'failed' ? 'failed' : i < current ? 'done' : i === current ? 'current' : ''} aria-current={i === current ? 'step' : undefined}>
            {p}
          </li>
        ))}
      </ol>
      {run.waitingFor && <p className="notice">Waiting for {run.waitingFor}.</p>}
      <RunTasks run={run} />
      <Changes history={history} run={run} />
      <Sessions sessions={history.sessions} />
      <Reports history={history} />
      {(run.phase === 'completed' || run.phase === 'failed') && <Summary run={run} />}
      <section aria-labelledby="run-timeline">
        <h3 id="run-timeline">Timeline</h3>
        {history.timeline.length === 0 ? (
          <p className="muted">Loading the run’s events…</p>
        ) : (
          <ol className="events">
            {history.timeline.map((e) => (
              <li key={e.eventId} data-run-event={e.type}>
                <time dateTime={e.time}>{time(e.time)}</time> {e.summary}
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}

function RunTasks({ run }: { run: Run }) {
  return (
    <section aria-labelledby="run-tasks">
      <h3 id="run-tasks">
        Tasks ({run.progress.tasksDone}/{run.progress.tasksTotal} merged)
      </h3>
      {run.tasks.length === 0 ? (
        <p className="muted">No tasks planned yet.</p>
      ) : (
        <div className="scroll-x">
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
        </div>
      )}
    </section>
  );
}

function Changes({ history, run }: { history: RunHistory; run: Run }) {
  if (history.merges.length === 0) return null;
  return (
    <section aria-labelledby="run-changes">
      <h3 id="run-changes">Changes merged</h3>
      <ul className="list">
        {history.merges.map((m) => (
          <li key={`${m.taskKey}-${m.commit ?? m.time}`} data-merge={m.taskKey}>
            <span>
              <strong>{m.taskKey}</strong> {m.subject ?? ''} {m.commit && <code>{m.commit.slice(0, 10)}</code>}
            </span>
            <span className="muted">{m.files.length ? m.files.join(', ') : 'no files'}</span>
            {m.commit && m.files.length > 0 && <Diff team={run.team} runId={run.runId} commit={m.commit} />}
          </li>
        ))}
      </ul>
    </section>
  );
}

type DiffState = { status: 'closed' | 'loading' } | { status: 'ready'; diff: RunDiff } | { status: 'error'; message: string };

/** A merge's diff, fetched the first time it is opened. */
function Diff({ team, runId, commit }: { team: string; runId: string; commit: string }) {
  const [state, setState] = useState<DiffState>({ status: 'closed' });
  const load = (open: boolean) => {
    if (!open || state.status !== 'closed') return;
    setState({ status: 'loading' });
    api<RunDiff>(`/api/v1/teams/${q(team)}/runs/${q(runId)}/diff?commit=${q(commit)}`).then(
      (diff) => setState({ status: 'ready', diff }),
      (e: unknown) => setState({ status: 'error', message: e instanceof Error ? e.message : String(e) }),
    );
  };
  return (
    <details className="diff" data-diff={commit} onToggle={(e) => load(e.currentTarget.open)}>
      <summary>Diff</summary>
      {state.status === 'loading' && <p aria-busy="true">Loading the diff…</p>}
      {state.status === 'error' && <p role="alert">Could not load the diff: {state.message}</p>}
      {state.status === 'ready' && (
        <>
          <ul className="diff-files">
            {state.diff.files.map((f) => (
              <li key={f.path}>
                <code>{f.path}</code> <span className="added">+{f.additions ?? '?'}</span> <span className="removed">−{f.deletions ?? '?'}</span>
              </li>
            ))}
          </ul>
          <pre className="patch">
            {state.diff.patch.split('\n').map((line, i) => (
              <span key={i} className={line.startsWith('+') && !line.startsWith('+++') ? 'added' : line.startsWith('-') && !line.startsWith('---') ? 'removed' : undefined}>
                {line}
                {'\n'}
              </span>
            ))}
          </pre>
          {state.diff.truncated && <p className="muted">The diff is longer than shown; see it in the run’s checkout.</p>}
        </>
      )}
    </details>
  );
}

function Sessions({ sessions }: { sessions: SessionHistory[] }) {
  return (
    <section aria-labelledby="run-sessions">
      <h3 id="run-sessions">Sessions ({sessions.length})</h3>
      {sessions.length === 0 && <p className="muted">No session has started yet.</p>}
      {sessions.map((s) => (
        <details key={s.sessionId} className="card session" data-session={s.sessionId}>
          <summary>
            <strong>{s.persona}</strong> · {s.purpose}
            {s.taskKey ? ` ${s.taskKey}` : ''} · {s.turns.length} turn{s.turns.length === 1 ? '' : 's'} · {s.ended ? s.ended.exitReason : 'running'}
          </summary>
          {s.routing && (
            <p className="session-routing" data-routing={s.routing.how} title={s.routing.reasons.join('\n')}>
              {s.routing.model} · {s.routing.effort} effort · {s.routing.how}
              {s.routing.reasons.length > 0 ? <span className="muted"> — {s.routing.reasons.slice(0, 3).join('; ')}</span> : null}
            </p>
          )}
          <TraceLink traceId={s.traceId} what={`${s.persona}’s session`} />
          <ol className="turns">
            {s.turns.map((t) => (
              <li key={t.turn} data-turn={t.turn}>
                <p>
                  <strong>Turn {t.turn}</strong> <span className="muted">{t.model} · {t.stopReason} · {t.outputTokens} output tokens</span>
                </p>
                {t.text && <p className="turn-text">{t.text.length > 600 ? `${t.text.slice(0, 600)}…` : t.text}</p>}
                {t.tools.length > 0 && (
                  <ul className="tool-calls">
                    {t.tools.map((c) => (
                      <li key={c.toolUseId} data-tool-call={c.tool} className={c.isError ? 'tool-error' : ''}>
                        <code>{c.tool}</code>
                        {c.isError ? ' (error)' : ''}
                        {c.filesModified.length > 0 ? ` → ${c.filesModified.join(', ')}` : ''}
                        {c.content && <pre>{c.content.length > 800 ? `${c.content.slice(0, 800)}…` : c.content}</pre>}
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ol>
          {s.ended?.summary && <p className="muted">{s.ended.summary}</p>}
        </details>
      ))}
    </section>
  );
}

function Reports({ history }: { history: RunHistory }) {
  if (history.qa.length === 0 && history.reviews.length === 0) return null;
  return (
    <section aria-labelledby="run-reports">
      <h3 id="run-reports">QA and review</h3>
      {history.qa.map((r) => (
        <article key={`qa-${r.round}`} className="card report" data-qa-round={r.round} data-passed={String(r.passed)}>
          <h4>
            QA round {r.round}: {r.passed ? 'passed' : 'failed'}
          </h4>
          <p className="report-body">{r.summary}</p>
          {r.failures.length > 0 && (
            <ul>
              {r.failures.map((f) => (
                <li key={f.test}>
                  <code>{f.test}</code> ({f.decision}): {f.message}
                </li>
              ))}
            </ul>
          )}
        </article>
      ))}
      {history.reviews.map((r, i) => (
        <article key={`review-${i}`} className="card report" data-review={r.verdict}>
          <h4>Review: {r.verdict}</h4>
          <p className="report-body">{r.report}</p>
          {r.issues.length > 0 && (
            <ul>
              {r.issues.map((issue) => (
                <li key={issue}>{issue}</li>
              ))}
            </ul>
          )}
        </article>
      ))}
    </section>
  );
}

function Summary({ run }: { run: Run }) {
  return (
    <section aria-labelledby="run-summary" className="summary" data-testid="run-summary">
      <h3 id="run-summary">Summary</h3>
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
        {run.resultDir && (
          <>
            <dt>Result</dt>
            <dd>
              <code>{run.resultDir}</code>
            </dd>
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
  );
}
