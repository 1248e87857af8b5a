import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { signWebhook } from '@headspace/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSubscriberSdk, REPO, type BuildResult } from '../scripts/build-package';

const SECRET = 'whsec_package_spec_0123456789';
const TSC = join(REPO, 'node_modules/typescript/bin/tsc');
// npm and tsc run on the node running this spec.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, npm_config_update_notifier: 'false' };

function run(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 180_000 });
  if (result.error) throw result.error;
  return result;
}

function ok(result: SpawnSyncReturns<string>, what: string): string {
  expect(result.status, `${what}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

const claimed = {
  specversion: '1.0',
  id: '0190f5a2-7c1e-7000-8000-000000000001',
  source: '/headspace/team-manager',
  type: 'headspace.task.claimed',
  subject: 'task-apollo.7',
  time: '2026-11-26T12:00:00.000Z',
  datacontenttype: 'application/json',
  dataschema: '#/components/messages/task.claimed.v1',
  data: { team: 'apollo', taskId: '7', owner: 'con', attempt: 1 },
  hsposition: '42',
  hsstreamversion: '3',
  hsschemaversion: 1,
};

/** Run by the consumer in both module systems: the SDK as an outside program gets it from npm. */
const consumerScript = (load: string) => `${load}
const { readFileSync } = require('node:fs');
const body = readFileSync('body.json', 'utf8');
const header = readFileSync('signature.txt', 'utf8');
const event = verifyWebhookRequest(${JSON.stringify(SECRET)}, body, { 'headspace-signature': header });
const tampered = verifyWebhookRequest(${JSON.stringify(SECRET)}, body.replace('con', 'eve'), { 'headspace-signature': header });
const stop = new AbortController();
stop.abort();
followEvents({ url: 'http://127.0.0.1:9', token: 't', signal: stop.signal }).next().then((first) => {
  console.log(JSON.stringify({
    type: event.type,
    owner: event.data && event.data.owner,
    tampered: tampered instanceof WebhookVerificationError ? tampered.code : 'accepted',
    followDone: first.done,
  }));
});
`;

const typeCheckFile = `import { followEvents, verifyWebhookRequest, WebhookVerificationError, type HeadspaceEvent, type HeadspaceEventData, type HeadspaceEventType } from '@headspace/subscriber-sdk';

function describeEvent(event: HeadspaceEvent): string {
  switch (event.type) {
    case 'headspace.task.claimed':
      return \`\${event.data.owner} claimed #\${event.data.taskId} (attempt \${event.data.attempt.toFixed(0)})\`;
    case 'headspace.webhook.subscription-disabled':
      return \`\${event.data.subscriptionId}: \${event.data.lastFailure.error} (\${event.data.lastFailure.responseStatus ?? 'no answer'})\`;
    default:
      return event.type;
  }
}

// @ts-expect-error an event not narrowed by type has no common \`owner\`
export const unnarrowed = (event: HeadspaceEvent) => event.data.owner;
// @ts-expect-error not a Headspace event type
export const unknownType: HeadspaceEventType = 'task.exploded';
// @ts-expect-error the payload of task.claimed has no \`subject\`
export const wrongField = (data: HeadspaceEventData<'task.claimed'>) => data.subject;

export async function main(secret: string, body: string, headers: Record<string, string>): Promise<void> {
  const verified = verifyWebhookRequest(secret, body, headers);
  if (verified instanceof WebhookVerificationError) throw new Error(verified.code);
  console.log(describeEvent(verified));
  for await (const event of followEvents({ url: 'https://headspace.example', token: 't', types: ['task.*', 'run.failed'] })) console.log(describeEvent(event));
}
`;

describe('@headspace/subscriber-sdk as a package another Node project installs', () => {
  let tmp: string;
  let built: BuildResult;
  let tarball: string;
  let consumer: string;

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'hs-sdk-package-'));
    built = buildSubscriberSdk(join(tmp, 'package'));
    const packed = JSON.parse(ok(run('npm', ['pack', built.packageDir, '--pack-destination', tmp, '--json'], tmp), 'npm pack')) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(tmp, packed[0]!.filename);
    consumer = join(tmp, 'consumer');
    run('mkdir', ['-p', consumer], tmp);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'hs-sdk-consumer', version: '1.0.0', private: true }));
    ok(run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], consumer), 'npm install of the tarball');
    const body = JSON.stringify(claimed);
    writeFileSync(join(consumer, 'body.json'), body);
    writeFileSync(join(consumer, 'signature.txt'), signWebhook(SECRET, body));
  }, 300_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('installs offline with nothing but itself: no dependency, no workspace package in any file it ships', () => {
    expect(readdirSync(join(consumer, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['@headspace']);
    expect(readdirSync(join(consumer, 'node_modules/@headspace'))).toEqual(['subscriber-sdk']);
    const installed = join(consumer, 'node_modules/@headspace/subscriber-sdk');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@headspace/subscriber-sdk', version: expect.stringMatching(/^\d+\.\d+\.\d+$/), types: './dist/index.d.ts' });
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
    const shipped = filesUnder(installed).map((f) => f.slice(installed.length + 1));
    expect(shipped).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/headspace-event.d.ts']));
    expect(shipped.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    for (const file of shipped.filter((f) => f.startsWith('dist/'))) expect(readFileSync(join(installed, file), 'utf8'), file).not.toContain('@headspace/');
    expect(built.eventTypes).toBeGreaterThan(100);
  });

  it.each([
    ['a CommonJS', 'check.cjs', "const { followEvents, verifyWebhookRequest, WebhookVerificationError } = require('@headspace/subscriber-sdk');"],
    ['an ESM', 'check.mjs', "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nimport { followEvents, verifyWebhookRequest, WebhookVerificationError } from '@headspace/subscriber-sdk';"],
  ])('verifies a delivery signed by the gateway signer from %s program', (_kind, file, load) => {
    writeFileSync(join(consumer, file), consumerScript(load));
    const out = ok(run(process.execPath, [file], consumer), `node ${file}`);
    expect(JSON.parse(out)).toEqual({ type: 'headspace.task.claimed', owner: 'con', tampered: 'SUBSCRIBER.SIGNATURE_MISMATCH', followDone: true });
  });

  it('type-checks a TypeScript consumer against the shipped declarations alone (narrowing HeadspaceEvent by type)', () => {
    writeFileSync(join(consumer, 'check.ts'), typeCheckFile);
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom', 'dom.asynciterable'], types: [], skipLibCheck: false },
        files: ['check.ts'],
      }),
    );
    ok(run(process.execPath, [TSC, '-p', consumer], consumer), 'tsc on the consumer');
  });

  it('ships the same event types the repo computes from the contracts', () => {
    const dir = join(tmp, 'same-types');
    run('mkdir', ['-p', dir], tmp);
    const installed = join(consumer, 'node_modules/@headspace/subscriber-sdk/dist/index');
    writeFileSync(
      join(dir, 'same.ts'),
      `import type * as Published from ${JSON.stringify(installed)};
import type * as Source from '@headspace/subscriber-sdk';
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// \`any\` would pass Same: no payload may be it.
type IsAny<T> = 0 extends 1 & T ? true : false;
type AnyPayload = { [T in Published.HeadspaceEventType]: IsAny<Published.HeadspaceEventData<T>> extends true ? T : never }[Published.HeadspaceEventType];
export const noAny: [AnyPayload] extends [never] ? true : AnyPayload = true;
export const types: Same<Published.HeadspaceEventType, Source.HeadspaceEventType> = true;
export const events: Same<Published.HeadspaceEvent, Source.HeadspaceEvent> = true;
export const data: Same<Published.HeadspaceEventData<'webhook.subscription-disabled'>, Source.HeadspaceEventData<'webhook.subscription-disabled'>> = true;
`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: join(REPO, 'tsconfig.base.json'), compilerOptions: { noEmit: true, typeRoots: [join(REPO, 'node_modules/@types')] }, files: ['same.ts'] }),
    );
    ok(run(process.execPath, [TSC, '-p', dir], dir), 'tsc comparing the shipped types with the source ones');
  });
});
