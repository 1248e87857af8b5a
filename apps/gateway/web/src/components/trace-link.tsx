import { useSession } from '../live/hooks';

/** A link to the trace in Grafana/Tempo, when the gateway names where traces are (HS_TRACE_URL_TEMPLATE). */
export function TraceLink({ traceId, what }: { traceId: string | undefined; what: string }) {
  const { traceUrlTemplate } = useSession();
  if (!traceUrlTemplate || !traceId) return null;
  return (
    <a className="trace" href={traceUrlTemplate.replaceAll('{traceId}', encodeURIComponent(traceId))} target="_blank" rel="noreferrer" data-trace={traceId}>
      Trace of {what}
    </a>
  );
}
