import { useEffect, useMemo, useState, type MouseEvent } from 'react';
import { api, ApiError, roleFor, setApiToken, whoami, type Role, type Whoami } from './api/client';
import type { KnownTeam } from './api/types';
import { EventStream } from './live/event-stream';
import { SessionContext, useStream, type Session } from './live/hooks';
import { Activity } from './views/activity';
import { Approvals } from './views/approvals';
import { Budgets } from './views/budgets';
import { Exceptions } from './views/exceptions';
import { Mailboxes } from './views/mailboxes';
import { RunView } from './views/run-view';
import { SignIn } from './views/sign-in';
import { prefetchBoard, TaskBoard } from './views/task-board';
import { TeamOverview } from './views/team-overview';

const VIEWS = [
  { path: '/', title: 'Team', component: TeamOverview },
  { path: '/tasks', title: 'Tasks', component: TaskBoard },
  { path: '/run', title: 'Run', component: RunView },
  { path: '/approvals', title: 'Approvals', component: Approvals },
  { path: '/budgets', title: 'Budgets', component: Budgets },
  { path: '/exceptions', title: 'Exceptions', component: Exceptions },
  { path: '/mailboxes', title: 'Mailboxes', component: Mailboxes },
] as const;

const TOKEN_KEY = 'headspace.token';

function usePath(): [string, (path: string) => void] {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const go = (to: string) => {
    history.pushState(null, '', to + location.search);
    setPath(to);
  };
  return [path, go];
}

interface Identity {
  me: Whoami;
  teams: KnownTeam[];
}

/**
 * Who the token is and which teams there are, both at once: the role (a 401 here is a bad token) and
 * the team list, which comes from the orchestrator — without it the dashboard still works for a
 * named team.
 */
async function identify(candidate: string): Promise<Identity> {
  setApiToken(candidate);
  const [me, known] = await Promise.all([
    whoami(),
    api<{ items: KnownTeam[] }>('/api/v1/teams/known?limit=200').catch((e: unknown) => {
      if (e instanceof ApiError && e.status === 401) throw e;
      return { items: [] as KnownTeam[] };
    }),
  ]);
  return { me, teams: known.items };
}

/**
 * With a token kept from earlier in this tab, signing in starts as this module loads, before React's
 * first render, and the board (the one view whose data can be large) is fetched beside it rather than
 * after it.
 */
const storedToken = sessionStorage.getItem(TOKEN_KEY) ?? undefined;
const resumed = storedToken ? identify(storedToken) : undefined;
resumed?.catch(() => undefined); // answered by signIn below
if (storedToken) {
  const team = new URLSearchParams(location.search).get('team');
  if (location.pathname === '/tasks' && team) prefetchBoard(team);
}

export function App() {
  const [token, setToken] = useState(storedToken);
  const [me, setMe] = useState<Whoami>();
  const [teams, setTeams] = useState<KnownTeam[]>([]);
  const [team, setTeam] = useState(() => new URLSearchParams(location.search).get('team') ?? undefined);
  const [error, setError] = useState<string>();

  const signIn = async (candidate: string, pending = identify(candidate)) => {
    try {
      const identity = await pending;
      performance.mark('headspace:signed-in');
      const chosen = team ?? identity.teams[0]?.name;
      sessionStorage.setItem(TOKEN_KEY, candidate);
      setTeams(identity.teams);
      setTeam(chosen);
      setMe(identity.me);
      setToken(candidate);
      setError(undefined);
    } catch (e) {
      setApiToken(undefined);
      sessionStorage.removeItem(TOKEN_KEY);
      setToken(undefined);
      setError(e instanceof ApiError && e.status === 401 ? 'That token is unknown or revoked.' : `Could not sign in: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  useEffect(() => {
    // Only on load, with a token kept from earlier in this tab.
    if (token && !me) void signIn(token, resumed);
  }, []);

  const signOut = () => {
    sessionStorage.removeItem(TOKEN_KEY);
    setApiToken(undefined);
    setToken(undefined);
    setMe(undefined);
  };

  if (token && !me && !error)
    return (
      <main className="sign-in">
        <p className="state" aria-busy="true">
          Signing in…
        </p>
      </main>
    );
  if (!token || !me) return <SignIn onSignIn={(candidate) => signIn(candidate)} error={error} />;
  return <SignedIn token={token} role={roleFor(me, team)} team={team} teams={teams} onTeam={setTeam} onSignOut={signOut} />;
}

interface SignedInProps {
  token: string;
  role: Role;
  team: string | undefined;
  teams: KnownTeam[];
  onTeam: (team: string) => void;
  onSignOut: () => void;
}

function SignedIn({ token, role, team, teams, onTeam, onSignOut }: SignedInProps) {
  const stream = useMemo(() => new EventStream(token), [token]);
  useEffect(() => () => stream.close(), [stream]);
  const [traceUrlTemplate, setTraceUrlTemplate] = useState<string | null>(null);
  useEffect(() => {
    fetch('/dashboard-config.json')
      .then((res) => (res.ok ? (res.json() as Promise<{ traceUrlTemplate: string | null }>) : { traceUrlTemplate: null }))
      .then((c) => setTraceUrlTemplate(c.traceUrlTemplate), () => setTraceUrlTemplate(null));
  }, []);
  const session: Session = useMemo(() => ({ token, role, team, stream, traceUrlTemplate }), [token, role, team, stream, traceUrlTemplate]);
  const [path, go] = usePath();
  const view = VIEWS.find((v) => v.path === path) ?? VIEWS[0];
  const View = view.component;
  useEffect(() => {
    document.title = `${view.title} · Headspace`;
  }, [view]);
  const chooseTeam = (name: string) => {
    const params = new URLSearchParams(location.search);
    params.set('team', name);
    history.replaceState(null, '', `${location.pathname}?${params.toString()}`);
    onTeam(name);
  };
  const follow = (e: MouseEvent<HTMLAnchorElement>, to: string) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    go(to);
  };
  return (
    <SessionContext.Provider value={session}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <p className="brand">Headspace</p>
        <label htmlFor="team-select">Team</label>
        <select id="team-select" value={team ?? ''} onChange={(e) => chooseTeam(e.target.value)}>
          {!team && <option value="">(none yet)</option>}
          {teams.map((t) => (
            <option key={t.teamId} value={t.name}>
              {t.name}
            </option>
          ))}
          {team && !teams.some((t) => t.name === team) && <option value={team}>{team}</option>}
        </select>
        <ConnectionBadge />
        <span className="badge" data-testid="role">
          {role}
        </span>
        <button type="button" className="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Views">
        <ul>
          {VIEWS.map((v) => (
            <li key={v.path}>
              <a href={v.path + location.search} aria-current={v.path === view.path ? 'page' : undefined} onClick={(e) => follow(e, v.path)}>
                {v.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="layout">
        <main id="main" tabIndex={-1}>
          <h1>{view.title}</h1>
          <View />
        </main>
        <Activity />
      </div>
    </SessionContext.Provider>
  );
}

const STATE_TEXT = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', offline: 'Offline — retrying' } as const;

function ConnectionBadge() {
  const { state } = useStream();
  return (
    <span className={`badge conn-${state}`} role="status" data-testid="connection" data-state={state}>
      {STATE_TEXT[state]}
    </span>
  );
}
