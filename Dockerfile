# syntax=docker/dockerfile:1.7
# One image for all five services:
#   docker build -t headspace .                      (default app: gateway)
#   docker build --build-arg APP=orchestrator -t headspace-orchestrator .
#   docker run headspace cost-governor               (the command picks the app; `migrate` migrates)
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-slim AS deps
WORKDIR /app
ENV CI=true
COPY package.json package-lock.json ./
# TypeScript runs through @swc-node/register at runtime, so dev dependencies stay in.
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

FROM node:${NODE_VERSION}-slim AS runtime
ARG APP=gateway
ENV NODE_ENV=production \
    APP=${APP} \
    HTTP_PORT=3000 \
    SWC_NODE_PROJECT=/app/tsconfig.json
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY libs ./libs
COPY apps ./apps
COPY --chmod=755 deploy/docker-entrypoint.sh /usr/local/bin/headspace-entrypoint
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.HTTP_PORT+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["headspace-entrypoint"]
CMD []
