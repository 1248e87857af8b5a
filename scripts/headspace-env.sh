#!/usr/bin/env bash
# Entry behind `npm start`, `npm test`, `npm run bench`:
#   bash scripts/headspace-env.sh start|test|bench [args…]
# Provisions what is missing — Node >= 22.17, node_modules, PostgreSQL and a JetStream nats-server
# (reusing running ones; see libs/testing/src/infra) — runs migrations, then the command.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { echo "headspace: $*" >&2; }

cmd="${1:-}"
case "$cmd" in
  start | test | bench) shift ;;
  *) echo "usage: bash scripts/headspace-env.sh start|test|bench [args…]" >&2; exit 2 ;;
esac

# 1. Node
# shellcheck source=scripts/ensure-node.sh
source "$ROOT/scripts/ensure-node.sh"
hs_ensure_node "$ROOT"
say "using Node $(node -v) ($(command -v node))"

# 2. Dependencies: fresh clone, or package-lock.json changed since the last install.
if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing dependencies (npm ci)"
  ci() {
    CI=true npm ci --no-audit --no-fund --loglevel=error </dev/null >&2 && return 0
    # e.g. a registry mirror lacking some platforms' optional packages named in the lock:
    # install from the lock without rewriting it.
    say "npm ci failed; falling back to npm install --no-save (package-lock.json is left unchanged)"
    CI=true npm install --no-save --no-audit --no-fund --loglevel=error </dev/null >&2
  }
  if command -v flock >/dev/null 2>&1; then
    exec 9>/tmp/hs-npm.lock
    flock 9
    ci
    flock -u 9
  else
    ci
  fi
else
  say "dependencies up to date"
fi

export SWC_NODE_PROJECT="$ROOT/tsconfig.json"
ts() { node -r @swc-node/register "$@"; }

# 3. Infrastructure: the CLI prints DATABASE_URL=… and NATS_URL=… (logs go to stderr).
# `npm start` without NATS_URL runs its own nats-server, locked with per-service credentials (docs/adr/0012).
infra_args=()
if [ "$cmd" = start ] && [ -z "${NATS_URL:-}" ]; then infra_args=(--locked-nats); fi
infra="$(ts libs/testing/src/infra/ensure-infra.cli.ts "${infra_args[@]}")" || { say "cannot continue without PostgreSQL and NATS (see above)"; exit 1; }
while IFS= read -r line; do
  case "$line" in
    DATABASE_URL=* | NATS_URL=* | HS_NATS_AUTH_DIR=*) export "${line?}" ;;
  esac
done <<<"$infra"
: "${DATABASE_URL:?ensure-infra printed no DATABASE_URL}" "${NATS_URL:?ensure-infra printed no NATS_URL}"

# 4. Build (SWC, about a second) and migrations
say "building (swc → dist/)"
bash scripts/build.sh
say "migrating the service schemas"
node dist/scripts/migrate.js

# 5. The command
case "$cmd" in
  start)
    exec node dist/scripts/start.js "$@"
    ;;
  test)
    say "type-checking (tsc)"
    npx tsc -p tsconfig.json --noEmit
    if compgen -G "eslint.config.*" >/dev/null || compgen -G ".eslintrc*" >/dev/null; then
      say "linting (eslint)"
      # The module-boundary rule reads Nx's project graph; compute it once instead of per file.
      NX_DAEMON=false npx nx show projects >/dev/null
      npx eslint .
    else
      say "no eslint config yet; skipping lint"
    fi
    say "running tests (vitest)"
    exec npx vitest run "$@"
    ;;
  bench)
    exec node dist/bench/run.js "$@"
    ;;
esac
