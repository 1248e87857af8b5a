/** Schema names come from configuration, never from users; still, quote them as identifiers. */
export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid PostgreSQL schema name: ${name}`);
  return `"${name}"`;
}
