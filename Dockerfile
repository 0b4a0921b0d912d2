# Cradle's container image (docs/container.md). NODE_IMAGE: any image with Node.js 22 and npm;
# CI passes one it builds from Debian packages (.ci/container.sh), having no registry to pull from.
ARG NODE_IMAGE=docker.io/library/node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: `prepare` would build before the sources are here; nothing else needs one.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
# The server reads schemas, assets, migrations (src/) and the documents it serves (docs/) at run time.
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/src ./src
COPY docs ./docs
COPY LICENSE README.md ./
RUN useradd --system --uid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin cradle \
 && mkdir -p /data && chown 10001:10001 /data && chmod 0700 /data
# One glibc malloc arena for every thread instead of one per thread: 10 MiB less idle memory, read
# by glibc when the process starts, so it is set here (ADR 0027; docs/deployment.md "Idle memory").
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data MALLOC_ARENA_MAX=1
VOLUME /data
EXPOSE 3000
USER 10001:10001
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1: it handles SIGTERM (graceful shutdown, SHUTDOWN_TIMEOUT_MS) and starts no child processes.
CMD ["node", "dist/main.js"]
