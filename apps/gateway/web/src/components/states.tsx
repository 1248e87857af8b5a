import type { ReactNode } from 'react';
import type { Resource } from '../live/hooks';

export function Empty({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="state empty" role="status">
      <p className="state-title">{title}</p>
      <p>{children}</p>
    </div>
  );
}

export function Failure({ message, httpStatus }: { message: string; httpStatus?: number }) {
  const hint =
    httpStatus === 401
      ? 'Your token is no longer valid: sign out and sign in with a current one.'
      : httpStatus === 403
        ? 'This token may not see this: ask an admin for a token covering this team.'
        : 'Check that the gateway is running; this view reloads by itself when events arrive.';
  return (
    <div className="state error" role="alert">
      <p className="state-title">Could not load this view</p>
      <p>{message}</p>
      <p>{hint}</p>
    </div>
  );
}

/** Renders the loading / error states of a resource, or `children(data)`. */
export function Loaded<T>({ resource, children }: { resource: Resource<T>; children: (data: T) => ReactNode }) {
  if (resource.status === 'loading') return <p className="state" aria-busy="true">Loading…</p>;
  if (resource.status === 'error') return <Failure message={resource.message} httpStatus={resource.httpStatus} />;
  return <>{children(resource.data)}</>;
}

export function NoTeam() {
  return (
    <Empty title="No team selected">
      Choose a team in the header, or start one: <code>headspace run start</code> or <code>POST /api/v1/teams/&lt;team&gt;/runs</code>.
    </Empty>
  );
}
