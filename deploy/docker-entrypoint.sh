#!/bin/sh
# Container entrypoint: `headspace-entrypoint [app|migrate] [args…]`; without an app name the
# image's APP (build arg) is started. Anything else is exec'd as a command.
#   gateway | team-manager | orchestrator | cost-governor | ops-leon → node -r <telemetry preload> dist/apps/<app>/src/main.js
#   migrate → node dist/scripts/migrate.js (every service schema; needs DATABASE_URL)
set -e
# HEADSPACE_HOME: where dist/ is (the image's /app; the entrypoint spec runs it elsewhere)
cd "${HEADSPACE_HOME:-/app}"
app="${1:-$APP}"
[ $# -gt 0 ] && shift
case "$app" in
  gateway | team-manager | orchestrator | cost-governor | ops-leon)
    # The OpenTelemetry preload starts the SDK and its instrumentations before the service loads.
    export OTEL_SERVICE_NAME="${OTEL_SERVICE_NAME:-$app}"
    exec node --enable-source-maps --max-semi-space-size=8 --max-old-space-size=192 \
      -r ./dist/libs/telemetry/src/preload.js "dist/apps/$app/src/main.js" "$@" ;;
  migrate)
    exec node --enable-source-maps dist/scripts/migrate.js "$@" ;;
  "")
    echo "usage: headspace-entrypoint gateway|team-manager|orchestrator|cost-governor|ops-leon|migrate [args…]" >&2
    exit 2 ;;
  *)
    exec "$app" "$@" ;;
esac
