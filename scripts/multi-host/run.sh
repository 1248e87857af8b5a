#!/usr/bin/env bash
# `npm run test:multi-host`: the multi-host fault test (scripts/multi-host/multi-host.ts) on Node >= 22.17.
# Needs root (it creates network namespaces), nats-server and PostgreSQL 15's binaries.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/ensure-node.sh
source "$ROOT/scripts/ensure-node.sh"
hs_ensure_node "$ROOT"
export SWC_NODE_PROJECT="$ROOT/tsconfig.json"
exec node -r @swc-node/register scripts/multi-host/multi-host.ts "$@"
