import { evaluateReflection, parseHandoffMarkdown, reflectionRetryPrompt } from '@headspace/agent-runtime';
import type { HandoffPort, ReflectionPort } from '../run-session/session-ports';

/** The seed-001 reflection: validated against the schema; the runner asks once more, then records it malformed. */
export const reflectionPort: ReflectionPort = {
  retryPrompt: (error) => reflectionRetryPrompt([{ field: '(root)', message: error }]),
  parse(finalText) {
    const outcome = evaluateReflection(finalText, 1);
    return outcome.action === 'accept'
      ? { ok: true, reflection: outcome.reflection as unknown as Record<string, unknown> }
      : { ok: false, error: outcome.issues.map((i) => `${i.field}: ${i.message}`).join('; ') || 'no reflection JSON' };
  },
};

/** The handoff artefact of seed 000 §6.3, asked for at the threshold and validated before it is recorded. */
export const handoffPort: HandoffPort = {
  request: (used) =>
    [
      `Your context is ${used}% full. Stop the task here and write the handoff for the next session of you (seed 000 §6.3), as markdown:`,
      'first line `# Handoff: <your name> — Session <ISO time>`, then the sections `## Task`, `## Status` (`<status> — <N>% complete`),',
      '`## What Was Done`, `## What Remains`, `## Blockers / Notes`, `## Files Modified` (`- path (new|modified|deleted)`), `## Suggested Next Steps`',
      'and `## Preserved Context` with `### PRESERVE_VERBATIM <kind> <id>` items in ```text fences for exact strings that must survive (errors, commands, decisions).',
    ].join('\n'),
  parse(text) {
    try {
      const start = text.indexOf('# Handoff:');
      return { ok: true, handoff: parseHandoffMarkdown(start >= 0 ? text.slice(start) : text) as unknown as Record<string, unknown> };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  },
};
