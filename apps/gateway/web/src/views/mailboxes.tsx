import { useState } from 'react';
import { api, q } from '../api/client';
import type { Message, Teammates } from '../api/types';
import { Empty, Loaded, NoTeam } from '../components/states';
import { useLive, useSession, useStream } from '../live/hooks';

interface Inbox {
  memberId: string;
  messages: Message[];
}

async function loadInboxes(team: string, known: string[]): Promise<Inbox[]> {
  const members = await api<Teammates>(`/api/v1/teams/${q(team)}/members`).then((t) => t.items.map((m) => m.memberId ?? m.name), () => []);
  const ids = [...new Set([...members, ...known])];
  const inboxes = await Promise.all(
    ids.map((memberId) =>
      api<{ items: Message[] }>(`/api/v1/teams/${q(team)}/inboxes/${q(memberId)}/messages?limit=100`).then(
        (r) => ({ memberId, messages: r.items }),
        () => undefined,
      ),
    ),
  );
  return inboxes.filter((i): i is Inbox => i !== undefined);
}

export function Mailboxes() {
  const { team } = useSession();
  const { events } = useStream();
  // Inboxes have no listing route: the members and the inboxes the stream has mentioned are asked.
  const known = [
    ...new Set(
      events
        .filter((e) => e.type.startsWith('mailbox.') && e.team === team)
        .flatMap((e) => [e.data.memberId, e.data.recipient, e.data.from].filter((v): v is string => typeof v === 'string')),
    ),
  ].sort();
  const inboxes = useLive(() => loadInboxes(team ?? '', known), ['mailbox.', 'teammate.'], [team, known.join(',')]);
  const [open, setOpen] = useState<string>();
  if (!team) return <NoTeam />;
  return (
    <Loaded resource={inboxes}>
      {(items) =>
        items.length === 0 ? (
          <Empty title="No mailboxes yet">Personas' inboxes appear here once a teammate opens one (POST /api/v1/teams/{team}/inboxes).</Empty>
        ) : (
          <div className="split">
            <ul className="list" aria-label="Inboxes">
              {items.map((i) => {
                const unread = i.messages.filter((m) => !m.read).length;
                return (
                  <li key={i.memberId} data-inbox={i.memberId}>
                    <button type="button" className="link" aria-expanded={open === i.memberId} onClick={() => setOpen(i.memberId)}>
                      {i.memberId}
                    </button>{' '}
                    <span className="badge" aria-label={`${unread} unread`}>
                      {unread}
                    </span>
                  </li>
                );
              })}
            </ul>
            {open && (
              <section className="card detail" aria-label={`Messages of ${open}`}>
                <ol className="events">
                  {(items.find((i) => i.memberId === open)?.messages ?? []).map((m) => (
                    <li key={m.messageId} className={m.read ? '' : 'unread'}>
                      <strong>{m.from}</strong>
                      {m.peerTo ? ` → ${m.peerTo}` : ''}: {m.body ?? m.summary ?? m.type}
                    </li>
                  ))}
                </ol>
              </section>
            )}
          </div>
        )
      }
    </Loaded>
  );
}
