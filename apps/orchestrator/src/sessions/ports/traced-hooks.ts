import type { HookEngine, HookRegistration } from '@headspace/agent-runtime';
import { withSpan } from '@headspace/telemetry';

/**
 * The engine, each firing of an event that has hooks for it in a `hook <event>` span (beneath the
 * turn or tool call that fired it); a firing no hook matches makes no span.
 */
export function tracedHooks(engine: HookEngine): HookEngine {
  const run = engine.run.bind(engine);
  engine.run = ((event, payload, session) => {
    const tool = (payload as { tool_name?: unknown }).tool_name;
    const hooked = engine.registrations().filter((r) => r.event === event && matches(r, typeof tool === 'string' ? tool : undefined));
    if (hooked.length === 0) return run(event, payload, session);
    return withSpan(`hook ${event}`, { attributes: { 'headspace.hook.event': event, 'headspace.hook.count': hooked.length, 'headspace.session_id': session.sessionId, ...(typeof tool === 'string' ? { 'gen_ai.tool.name': tool } : {}) } }, async (span) => {
      const result = await run(event, payload, session);
      span.setAttribute('headspace.hook.decision', result.decision);
      return result;
    });
  }) as HookEngine['run'];
  return engine;
}

/** The engine's own matching, for the question whether any hook will run (an unreadable matcher counts as one that may). */
function matches(registration: HookRegistration, tool: string | undefined): boolean {
  const matcher = registration.matcher;
  if (!matcher || matcher === '*' || tool === undefined) return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(tool);
  } catch {
    return true;
  }
}
