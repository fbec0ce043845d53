# Herald on Node.js 24 LTS, the runtime the tests run on.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HERALD_DATA_DIR=/data PORT=3000
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY src ./src
# The gRPC API's service definitions, read when the api role starts.
COPY proto ./proto
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
# The /1.1 API (and health, metrics) and the gRPC API.
EXPOSE 3000 50051
# The flags of config.nodeFlags in package.json, as `npm start` passes them.
CMD ["node", "--max-semi-space-size=8", "src/main.ts"]
