#!/usr/bin/env node
'use strict';
/* global require, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports */
// `headspace` CLI: the compiled build (npm run build → dist/) when present, else the TypeScript
// sources through @swc-node/register (a checkout without a build).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const compiled = join(root, 'dist', 'libs', 'cli', 'src', 'main.js');
if (existsSync(compiled)) {
  require(compiled);
} else {
  process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || join(root, 'tsconfig.json');
  require('@swc-node/register');
  require(join(root, 'libs', 'cli', 'src', 'main.ts'));
}
