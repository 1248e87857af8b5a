import { useState } from 'react';
import { api, q } from '../api/client';
import type { Inbox, Message } from '../api/types';
import { Empty, Loaded, NoTeam } from '../components/states';
import { useLive, useSession } from '../live/hooks';

export function Mailboxes() {
  const { team } = useSession();
  const inboxes = useLive(() => api<{ inboxes: Inbox[] }>(`/api/v1/teams/${q(team ?? '')}/inboxes`).then((r) => r.inboxes), ['mailbox.'], [team]);
  const [open, setOpen] = useState<string>();
  if (!team) return <NoTeam />;
  return (
    <Loaded resource={inboxes}>
      {(items) =>
        items.length === 0 ? (
          <Empty title="No mailboxes yet">Inboxes appear here once one is opened for the lead, a teammate or a persona (POST /api/v1/teams/{team}/inboxes).</Empty>
        ) : (
          <div className="split">
            <ul className="list" aria-label="Inboxes">
              {items.map((i) => (
                <li key={i.memberId} data-inbox={i.memberId} data-role={i.role}>
                  <button type="button" className="link" aria-expanded={open === i.memberId} onClick={() => setOpen(i.memberId)}>
                    {i.memberId}
                  </button>{' '}
                  <span className="badge" aria-label={`${i.unread} unread`}>
                    {i.unread}
                  </span>
                  <span className="muted">
                    {i.role} · {i.messages} message{i.messages === 1 ? '' : 's'}
                    {i.lastMessageAt ? ` · last ${new Date(i.lastMessageAt).toLocaleTimeString()}` : ''}
                  </span>
                </li>
              ))}
            </ul>
            {open && <Conversation team={team} memberId={open} />}
          </div>
        )
      }
    </Loaded>
  );
}

function Conversation({ team, memberId }: { team: string; memberId: string }) {
  const messages = useLive(
    () => api<{ items: Message[] }>(`/api/v1/teams/${q(team)}/inboxes/${q(memberId)}/messages?limit=100`).then((r) => r.items),
    ['mailbox.'],
    [team, memberId],
  );
  return (
    <section className="card detail" aria-label={`Messages of ${memberId}`}>
      <Loaded resource={messages}>
        {(items) =>
          items.length === 0 ? (
            <p className="muted">No messages in this inbox yet.</p>
          ) : (
            <ol className="events">
              {items.map((m) => (
                <li key={m.messageId} className={m.read ? '' : 'unread'}>
                  <strong>{m.from}</strong>
                  {m.peerTo ? ` → ${m.peerTo}` : ''}: {m.body ?? m.summary ?? m.type}
                </li>
              ))}
            </ol>
          )
        }
      </Loaded>
    </section>
  );
}
