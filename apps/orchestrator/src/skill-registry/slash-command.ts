/** A prompt that is a slash command: `/<skill> args`, or `/<plugin>:<skill> args` for a plugin's skill. */
export function slashCommandOf(prompt: string): { skill: string; args: string } | undefined {
  const m = /^\/((?:[A-Za-z0-9._-]+:)?[a-z0-9][a-z0-9-]*)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  return m ? { skill: m[1], args: (m[2] ?? '').trim() } : undefined;
}

/** The slash command of an ask's session, from the `Request:` line the ask process writes (askPrompt). */
export function askSlashCommandOf(sessionPrompt: string): { skill: string; args: string } | undefined {
  const m = /^Request: (\/[^\n]*)/.exec(sessionPrompt);
  return m ? slashCommandOf(m[1]) : undefined;
}
