import { defineConfig } from 'vitest/config';
import swc from 'unplugin-swc';
import { fileURLToPath } from 'node:url';
import tsconfig from './tsconfig.base.json' with { type: 'json' };

// NestJS DI needs decorator metadata, which esbuild does not emit: SWC compiles the tests.
const alias = Object.fromEntries(
  Object.entries(tsconfig.compilerOptions.paths).map(([name, [target]]) => [
    name,
    fileURLToPath(new URL(target, import.meta.url)),
  ]),
);

const swcPlugin = () =>
  swc.vite({
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2023',
    },
  });

export default defineConfig({
  plugins: [swcPlugin()],
  resolve: { alias },
  test: {
    globalSetup: ['libs/testing/src/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    allowOnly: false,
    passWithNoTests: false,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['{apps,libs}/**/*.unit.spec.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['{apps,libs}/**/*.int.spec.ts', '{apps,libs}/**/*.e2e.spec.ts', 'scripts/**/*.int.spec.ts'],
          maxWorkers: 2,
        },
      },
    ],
  },
});
