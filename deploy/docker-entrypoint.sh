#!/bin/sh
# Container entrypoint: `headspace-entrypoint [app|migrate] [args…]`; without an app name the
# image's APP (build arg) is started. Anything else is exec'd as a command.
set -e
cd /app
app="${1:-$APP}"
[ $# -gt 0 ] && shift
case "$app" in
  gateway | team-manager | orchestrator | cost-governor | ops-leon)
    exec node -r @swc-node/register "apps/$app/src/main.ts" "$@" ;;
  migrate)
    exec node -r @swc-node/register libs/event-store/src/migrate.cli.ts "$@" ;;
  *)
    exec "$app" "$@" ;;
esac
