# syntax=docker/dockerfile:1
# The gateway as a container: built in one stage, run as the unprivileged `node` user in another,
# data in the /data volume, health from /readyz. `docker compose up` (compose.yaml) runs it with
# PostgreSQL and Redis.

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Sources come later: `prepare` (the build) runs below, once they are here. The native modules
# (better-sqlite3, argon2) ship Node-API binaries for every platform: nothing to compile.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY assets ./assets
COPY web ./web
# The image's own Node runs the compilers (npm scripts would pick the `node` devDependency):
# the server into dist/, the console's web app into dist/web.
RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json \
  && node node_modules/typescript/bin/tsc -p web/tsconfig.json \
  && node node_modules/vite/bin/vite.js build web --logLevel warn \
  && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    PORT=8080 \
    HOST=0.0.0.0 \
    GATEWAY_DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/assets ./assets
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node is PID 1 and gets SIGTERM itself: it drains within GATEWAY_SHUTDOWN_TIMEOUT_MS (25 s), then exits 0.
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=12", "--heap-growing-percent=30", "dist/cli.js", "start"]
