import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes an executable bash script (a real command hook or formatter) and returns its path. */
export async function writeScript(dir: string, name: string, body: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `#!/usr/bin/env bash\n${body}\n`, 'utf8');
  await chmod(file, 0o755);
  return file;
}
