# syntax=docker/dockerfile:1.7
# One image for all five services, running the compiled dist/ (the same output `npm start` runs):
#   docker build -t headspace .                      (default app: gateway)
#   docker build --build-arg APP=orchestrator -t headspace-orchestrator .
#   docker run headspace cost-governor               (the command picks the app; `migrate` migrates)
ARG NODE_VERSION=24

# --- build: all dependencies (swc is a dev dependency), compile to dist/, then drop dev deps ---
FROM node:${NODE_VERSION}-slim AS build
WORKDIR /app
ENV CI=true
COPY package.json package-lock.json ./
# Same fallback as scripts/headspace-env.sh: when `npm ci` refuses the lock (e.g. it lacks other
# platforms' optional @swc/core packages), install from it without rewriting it.
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund \
    || { echo "npm ci failed; falling back to npm install --no-save (package-lock.json is left unchanged)" >&2; \
         npm install --no-save --no-audit --no-fund; }
COPY tsconfig.json tsconfig.base.json ./
COPY scripts ./scripts
COPY libs ./libs
COPY apps ./apps
COPY bench ./bench
# dist/apps, dist/libs (SQL migrations copied along), dist/scripts (migrate.js), dist/bench.
RUN bash scripts/build.sh \
 && npm prune --omit=dev --no-audit --no-fund

# --- runtime: production node_modules + dist only; no TypeScript, no compiler ---
FROM node:${NODE_VERSION}-slim AS runtime
ARG APP=gateway
ARG HEADSPACE_VERSION=0.1.0
ENV NODE_ENV=production \
    APP=${APP} \
    HTTP_PORT=3000 \
    HEADSPACE_VERSION=${HEADSPACE_VERSION}
WORKDIR /app
# bubblewrap: the orchestrator runs every agent process in a sandbox (docs/adr/0016); git: run checkouts.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --chmod=755 deploy/docker-entrypoint.sh /usr/local/bin/headspace-entrypoint
# The orchestrator's run checkouts and agent homes: /app is root's, this is the node user's. Mount a
# volume here (compose: orchestrator-work; Kubernetes: the orchestrator's PVC) shared by replicas.
ENV HS_WORKSPACES_DIR=/var/lib/headspace/runs \
    HS_AGENT_HOME=/var/lib/headspace/agents
RUN mkdir -p /var/lib/headspace/runs /var/lib/headspace/agents \
 && chown -R node:node /var/lib/headspace
VOLUME ["/var/lib/headspace"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.HTTP_PORT+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["headspace-entrypoint"]
CMD []
