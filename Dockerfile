# syntax=docker/dockerfile:1

# --- build: compile TypeScript with the dev dependencies, then drop them ---------------------------
FROM node:26-bookworm-slim AS build
WORKDIR /app
# Node 26 is the LTS line. Its npm 11 skips the install scripts that package.json's `allowScripts`
# denies (npm 11.16 and later; it still runs those of packages the list does not name), among them
# @scarf/scarf's, which would report the install to its vendor; this keeps that report off even on an
# npm that does not read `allowScripts`.
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json nest-cli.json ormconfig.ts ./
COPY src ./src
COPY scripts ./scripts
COPY console ./console
RUN npm run build && npm prune --omit=dev

# --- runtime: production dependencies and the compiled service only, as a non-root user -------------
FROM node:26-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
RUN groupadd --system game \
 && useradd --system --gid game --home-dir /app --shell /usr/sbin/nologin game \
 && mkdir -p /data \
 && chown game:game /data
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
USER game
# Without DATABASE_URL the embedded PostgreSQL keeps its data in /data: mount a volume there.
VOLUME ["/data"]
EXPOSE 3000
# Readiness, not liveness: a container whose database is unreachable should not receive traffic.
HEALTHCHECK --interval=10s --timeout=4s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node as PID 1 receives SIGTERM directly and shuts down gracefully (main.ts). The heap flags are those
# of `npm run start:prod` (README, Performance: they hold the resident memory under load).
CMD ["node", "--max-old-space-size=512", "--max-semi-space-size=8", "--no-allocation-site-pretenuring", "--no-maglev", "dist/src/main.js"]
