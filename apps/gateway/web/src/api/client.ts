import type { WhoamiResponses } from './generated';
import { ReadPositions } from './read-positions';

/** A failed call, with the problem+json detail the gateway sent (what to do is usually in it). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Whoami = WhoamiResponses[200];
export type Role = Whoami['role'];

let token: string | undefined;
export const setApiToken = (value: string | undefined) => {
  token = value;
};

/** What this page has seen of each service's log; reads wait for their read models to pass it. */
export const readPositions = new ReadPositions();

export async function api<T>(path: string, init: { method?: string; body?: unknown; idempotencyKey?: string } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const minPosition = method === 'GET' ? readPositions.current() : undefined;
  const send = (withPosition: boolean) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey;
    if (withPosition && minPosition) headers['headspace-min-position'] = minPosition;
    return fetch(path, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  };
  let res = await send(true);
  let text = await res.text();
  let json = text ? (JSON.parse(text) as unknown) : undefined;
  // A read model that stays behind (a stopped service) should not blank the view: show what it has.
  if (minPosition && res.status === 503 && (json as { code?: string } | undefined)?.code === 'READ_MODEL.TIMEOUT') {
    res = await send(false);
    text = await res.text();
    json = text ? (JSON.parse(text) as unknown) : undefined;
  }
  if (!res.ok) {
    const problem = (json ?? {}) as { detail?: string; title?: string };
    throw new ApiError(res.status, problem.detail ?? problem.title ?? `${res.status} ${res.statusText}`);
  }
  readPositions.remember(res.headers.get('headspace-position') ?? undefined);
  return json as T;
}

export const q = encodeURIComponent;

/** The signed-in token's role and scope (GET /api/v1/whoami): one read, instead of probing writes. */
export function whoami(): Promise<Whoami> {
  return api<Whoami>('/api/v1/whoami');
}

/** What the token may do on `team`: its role where its scope covers the team, else only reading. */
export function roleFor(me: Whoami, team: string | undefined): Role {
  if (me.role === 'viewer' || me.teams === '*') return me.role;
  return team !== undefined && me.teams.includes(team) ? me.role : 'viewer';
}
