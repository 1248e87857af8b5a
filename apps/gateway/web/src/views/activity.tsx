import { memo } from 'react';
import type { StreamEvent } from '../live/event-stream';
import { useSession, useStream } from '../live/hooks';

/** The newest events of the stream, as they arrive: what the views refresh from. */
export function Activity() {
  const { team } = useSession();
  const { events } = useStream();
  const shown = events.filter((e) => !team || !e.team || e.team === team).slice(0, 50);
  return (
    <aside className="activity" aria-labelledby="activity-title" tabIndex={0}>
      <h2 id="activity-title">Activity</h2>
      {shown.length === 0 ? (
        <p className="muted">No events since this page opened.</p>
      ) : (
        <ol className="events" aria-live="polite" aria-relevant="additions">
          {shown.map((e) => (
            <Row key={e.eventId} event={e} />
          ))}
        </ol>
      )}
    </aside>
  );
}

/** An event never changes: its row is rendered once, not again for every event after it. */
const Row = memo(function Row({ event: e }: { event: StreamEvent }) {
  return (
    <li data-event-type={e.type} data-event-id={e.eventId}>
      <time dateTime={e.time}>{new Date(e.time).toLocaleTimeString()}</time> {e.summary}
    </li>
  );
});
