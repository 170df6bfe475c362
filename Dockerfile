# mcp-run in a container: two stages. The build stage compiles TypeScript and builds better-sqlite3
# from source for this image's Node and libc (no prebuilt binary is trusted), then drops the dev
# dependencies; the runtime stage is node:20-bookworm-slim with only dist/, the production
# node_modules and the entrypoint, running as the unprivileged `node` user (uid 1000).
#
#   docker build -t mcp-run .
#   docker run --rm -p 3000:3000 -e MCP_TOKENS=choose-a-token \
#     -v "$PWD/mcp.yaml:/etc/mcp-run/mcp.yaml:ro" mcp-run
#
# The default command serves /etc/mcp-run/mcp.yaml over HTTP on 0.0.0.0:3000 behind the bearer
# token(s) in MCP_TOKENS (mcp-run refuses to serve beyond loopback without auth); give your own
# command for OAuth (server.auth) or --state redis://… for several replicas (docs/scaling.md). Files in /run/secrets/mcp-run become environment variables (the entrypoint).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# The build (scripts/build.mjs) is here before `npm ci`, which runs it as `prepare`: with no src/ yet
# it builds nothing, so the installed dependencies stay one layer that a change of src/ keeps.
COPY scripts ./scripts
# build_from_source: better-sqlite3 compiles against this image's Node headers.
RUN npm_config_build_from_source=true npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY web ./web
# DuckDB is an optional peer, which the prune drops: the image serves any manifest, so it is added
# back at the range package.json names (set WITH_DUCKDB=0 for an image about 70 MB smaller).
ARG WITH_DUCKDB=1
RUN npm run build && npm prune --omit=dev --no-audit --no-fund \
  && if [ "$WITH_DUCKDB" = 1 ]; then \
    npm install --no-save --omit=dev --no-audit --no-fund \
      "@duckdb/node-api@$(node -p "require('./package.json').peerDependencies['@duckdb/node-api']")"; \
  fi \
  && node -e "require('better-sqlite3')(':memory:').prepare('select 1').get()"

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
COPY --chown=root:root schemas ./schemas
COPY --chown=root:root deploy/docker-entrypoint.sh /usr/local/bin/mcp-run-entrypoint
RUN chmod 0755 /usr/local/bin/mcp-run-entrypoint && mkdir -p /etc/mcp-run
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:3000/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/local/bin/mcp-run-entrypoint"]
CMD ["/etc/mcp-run/mcp.yaml", "--http", "--host", "0.0.0.0", "--port", "3000", "--auth-token-env", "MCP_TOKENS", "--log-format", "json"]
