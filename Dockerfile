# RepLedger: the HTTP service and, with another command, the projection worker.
# Node 24 runs the TypeScript sources directly (type stripping): no build step.
FROM node:24-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so the layer is reused while only the sources change.
# (The KurrentDB client's native bridge is resolved for this platform, linux-x64-gnu, by npm ci.)
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY . .

# The embedded store (used when KURRENTDB_URL / MONGODB_URL are unset) lives under /data.
# /keys is where docker-compose.yml mounts the named volume for OAUTH_KEYS_FILE: a new named volume
# takes the ownership of the image's directory, so the service (user node) can write its keys there.
RUN mkdir -p /data /keys && chown node:node /data /keys
ENV HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 3000

USER node
# Live: the process answers /livez (it asks nothing of the stores). The image has no curl, so Node's
# fetch asks. A container running another command (the projection worker) turns it off
# (docker-compose.yml: `healthcheck: disable: true`).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "cli/bin/run.js", "serve"]
