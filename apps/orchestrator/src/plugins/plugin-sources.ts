import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, marketplaceSchema, pluginNameSchema, type Marketplace } from '@headspace/contracts';
import { APP_CONFIG } from '@headspace/platform';
import { createHash, randomUUID } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { AppConfig } from '../config';
import { RunSourcePolicy } from '../runs/run-source.policy';
import { git } from '../workspace/git';

type Config = Pick<AppConfig, 'HS_AGENT_HOME' | 'HS_SOURCE_ROOTS' | 'HS_WORKSPACES_DIR' | 'HS_PLUGIN_MARKETPLACE'>;

/** A plugin's files fetched into a staging directory, not yet installed. */
export interface StagedPlugin {
  dir: string;
  /** The source as recorded. */
  source: string;
  commit: string | null;
  contentHash: string;
}

const sourceInvalid = (message: string) => new HeadspaceError(ErrorCodes.pluginSourceInvalid, message, { field: 'source' });
const isDir = (path: string) => stat(path).then((s) => s.isDirectory(), () => false);

/**
 * sha256 over every file's relative path and bytes, in path order: the same content, the same hash.
 * A symbolic link is refused: sessions read the copy, and a link could lead them out of it.
 */
export async function contentHashOf(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (at: string): Promise<void> => {
    for (const e of (await readdir(at, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name === '.git') continue;
      const path = join(at, e.name);
      if (e.isSymbolicLink()) throw sourceInvalid(`The plugin holds a symbolic link (${relative(dir, path)}): plugins must be plain files`);
      if (e.isDirectory()) await walk(path);
      else if (e.isFile()) hash.update(`${relative(dir, path)}\0`).update(await readFile(path)).update('\0');
    }
  };
  await walk(dir);
  return hash.digest('hex');
}

/**
 * Where a plugin's files come from and where they are kept. A source is a directory or a git
 * repository under the runs' source policy (HS_SOURCE_ROOTS, file:// URLs, https/ssh git URLs), or
 * the name of a plugin in the local marketplace (HS_PLUGIN_MARKETPLACE). Installed content is a copy
 * under `<HS_AGENT_HOME>/plugins/<team>/<plugin>/<hash>`: sessions never read the source again, so a
 * moved or rewritten source does not change an installed plugin.
 */
@Injectable()
export class PluginSources {
  private readonly policy: RunSourcePolicy;

  constructor(@Inject(APP_CONFIG) private readonly config: Config) {
    this.policy = new RunSourcePolicy({ roots: config.HS_SOURCE_ROOTS, workspacesDir: config.HS_WORKSPACES_DIR });
  }

  /** Fetches the source into a fresh staging directory (the caller installs or discards it). */
  async stage(source: string, ref?: string): Promise<StagedPlugin> {
    const resolved = (await this.fromMarketplace(source)) ?? source;
    // The runs' policy refuses with its own codes (not allowed: 403, not found: 400), worded for a plugin.
    const checked = await this.policy.check(resolved).catch((e: unknown) => {
      throw e instanceof HeadspaceError ? new HeadspaceError(e.code, e.message.replace(/^Run source/, 'Plugin source'), { field: 'source' }) : e;
    });
    const dir = join(this.config.HS_AGENT_HOME, 'plugins', '.staging', randomUUID());
    await mkdir(dirname(dir), { recursive: true });
    let commit: string | null = null;
    const isGit = !checked.startsWith('/') || (await isDir(join(checked, '.git')));
    try {
      if (isGit) {
        await git(dirname(dir), ['clone', '--quiet', '--no-checkout', '--', checked, dir]);
        await git(dir, ['checkout', '--quiet', '--detach', ref ?? 'HEAD']);
        commit = (await git(dir, ['rev-parse', 'HEAD'])).stdout.trim();
        await rm(join(dir, '.git'), { recursive: true, force: true });
      } else {
        if (ref) throw sourceInvalid(`"${source}" is a directory, not a git repository: a ref needs git`);
        await cp(checked, dir, { recursive: true, filter: (src) => !src.split('/').includes('.git') });
      }
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      if (e instanceof HeadspaceError && e.code === ErrorCodes.pluginSourceInvalid) throw e;
      throw sourceInvalid(`Cannot fetch plugin "${source}"${ref ? ` at ${ref}` : ''}: ${(e as Error).message}`);
    }
    const contentHash = await contentHashOf(dir).catch(async (e: unknown) => {
      await rm(dir, { recursive: true, force: true });
      throw e;
    });
    return { dir, source: resolved, commit, contentHash };
  }

  /** Moves a staged plugin to its installed place (the same content twice: one copy). */
  async keep(staged: StagedPlugin, team: string, plugin: string): Promise<string> {
    const target = join(this.config.HS_AGENT_HOME, 'plugins', team, plugin, staged.contentHash.slice(0, 16));
    if (await isDir(target)) {
      await this.discard(staged);
      return target;
    }
    await mkdir(dirname(target), { recursive: true });
    await rename(staged.dir, target).catch(async (error: unknown) => {
      // A concurrent install of the same content got there first: its copy is this one.
      if (!(await isDir(target))) throw error;
      await this.discard(staged);
    });
    return target;
  }

  discard(staged: StagedPlugin): Promise<void> {
    return rm(staged.dir, { recursive: true, force: true });
  }

  /** The configured marketplace and the file it was read from; none when HS_PLUGIN_MARKETPLACE is unset. */
  async marketplace(): Promise<{ file: string; root: string; catalogue: Marketplace } | undefined> {
    const configured = this.config.HS_PLUGIN_MARKETPLACE;
    if (!configured) return undefined;
    const file = (await isDir(configured)) ? join(configured, '.claude-plugin', 'marketplace.json') : configured;
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(file, 'utf8'));
    } catch (e) {
      throw new HeadspaceError(ErrorCodes.configInvalid, `HS_PLUGIN_MARKETPLACE ${file} cannot be read: ${(e as Error).message}`);
    }
    const parsed = marketplaceSchema.safeParse(raw);
    if (!parsed.success) throw new HeadspaceError(ErrorCodes.configInvalid, `HS_PLUGIN_MARKETPLACE ${file}: ${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}`);
    // Relative plugin sources are relative to the marketplace's root (the directory above .claude-plugin/).
    const root = dirname(file).endsWith('.claude-plugin') ? dirname(dirname(file)) : dirname(file);
    return { file, root, catalogue: parsed.data };
  }

  /** A bare plugin name (`name` or `name@marketplace`) resolved through the marketplace to its source. */
  private async fromMarketplace(source: string): Promise<string | undefined> {
    if (!/^[^@/:]+(@[A-Za-z0-9._-]+)?$/.test(source)) return undefined;
    const [name, market] = source.split('@');
    if (!pluginNameSchema.safeParse(name).success) return undefined;
    const found = await this.marketplace();
    const entry = found?.catalogue.plugins.find((p) => p.name === name && (!market || market === found.catalogue.name));
    if (!found || !entry) throw sourceInvalid(`No plugin "${source}" in the marketplace${found ? ` ${found.catalogue.name}` : ' (HS_PLUGIN_MARKETPLACE is not set)'}`);
    const where = typeof entry.source === 'string' ? entry.source : entry.source.url;
    return /^[a-z]+:\/\//.test(where) || isAbsolute(where) || /^[^/]+@[^/]+:/.test(where) ? where : resolve(found.root, where);
  }
}
