# Herald on Node.js 24 LTS, production dependencies only, as an unprivileged
# user. Node's type stripping runs the TypeScript sources as they are, so
# there is no build step; the `node` package a checkout runs on is a
# development dependency and never lands here (the base image is Node 24).
#
#   docker build -t herald .
#   docker run --rm -p 3000:3000 -v herald-data:/data herald    # every role, embedded store
#   docker run --rm herald --help                                 # every setting
#   docker run --rm --env-file herald.env herald migrate          # schema and topics, then exit
#   docker run --rm -v herald-data:/data -v "$PWD/export:/export:ro" -e HERALD_APP_ID=… herald import --app … /export
#
# Herald writes only under HERALD_DATA_DIR (/data): the embedded store, the
# mail and SMS outboxes, development keys and the store's pid file. The root
# filesystem may be read-only as long as /data is writable.

# The production dependencies. argon2 loads a prebuilt binary (linux x64 and
# arm64, glibc), so the image needs no compiler.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-bookworm-slim AS runtime
# VERSION follows package.json (a test holds them together); pass REVISION and
# SOURCE_URL from the checkout: --build-arg REVISION="$(git rev-parse HEAD)".
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE_URL=
LABEL org.opencontainers.image.title="Herald" \
      org.opencontainers.image.description="Self-hostable account and push-notification service speaking the /1.1 REST interface" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.licenses="Apache-2.0"
# tini as PID 1: Herald handles SIGTERM only once its roles have started, and
# a PID 1 without a handler ignores the signal, so `docker stop` (or a pod
# deleted) during start-up would wait for SIGKILL. tini passes the signal on.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production HERALD_DATA_DIR=/data PORT=3000
COPY --from=deps /app/node_modules ./node_modules
# package.json says the sources are ES modules.
COPY package.json ./
COPY src ./src
# The gRPC API's service definitions, read when the api role starts.
COPY proto ./proto
# The code stays root's and read-only to Herald; only /data is its own.
RUN mkdir -p /data && chown 1000:1000 /data
# The base image's `node` user, by number, so that a Kubernetes
# runAsNonRoot check can tell it is not root.
USER 1000:1000
VOLUME ["/data"]
# Commands run in the data directory, the one folder Herald may write: herald
# import's reject and checkpoint files land there by default, so a second run
# on the same volume resumes.
WORKDIR /data
# The /1.1 API (with health and metrics unless HERALD_INTERNAL_PORT moves
# them) and the gRPC API.
EXPOSE 3000 50051
# SIGTERM drains: the API finishes in-flight requests, senders the slices in
# hand. Give it time: docker stop --time 30, compose stop_grace_period.
STOPSIGNAL SIGTERM
# Liveness through node itself (the slim image has no curl): /healthz answers
# 503 once a role has failed for good. It asks the internal port when one is set.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HERALD_INTERNAL_PORT||process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The flags of config.nodeFlags in package.json, as `npm start` passes them.
# Arguments go to Herald: `docker run herald --role api`, `docker run herald migrate`,
# `docker run herald import …`.
ENTRYPOINT ["tini", "--", "node", "--max-semi-space-size=8", "--heap-growing-percent=200", "/app/src/main.ts"]
CMD []
