import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * Writes the generated first admin token to a file only its owner can read (the directory 0700,
 * the file 0600, written beside and renamed into place so no reader sees it half-written or with
 * wider rights). Returns the absolute path. The token never goes to stdout or a log.
 */
export async function writeAdminTokenFile(path: string, token: string): Promise<string> {
  const file = resolve(path);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${token}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(temp, 0o600); // in case of a umask wider than the mode
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return file;
}
