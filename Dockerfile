# Sello: the API, the signer page and the job runner in one process (`sello serve`).
# Debian 12 (bookworm) with Node.js 20, and the programs html and docx templates need.
#
# Two stages: the first builds the server (src/ compiled to JavaScript in build/) and the signer
# page and panel (Vite, React, pdf.js: development dependencies); the image that runs carries the
# production dependencies, the built server and the built page: no TypeScript sources, and nothing
# that compiles TypeScript at run time (tsx is a development dependency; npm still installs the
# typescript package, an optional peer of graphile-worker's cosmiconfig, which nothing loads).
#
#   docker build -t sello .                                 # with the face and zone readers
#   docker build --build-arg IDENTITY_READERS=none -t sello .  # without them: about 390 MB lighter

FROM node:20-bookworm-slim AS build
WORKDIR /opt/sello
# npm ci links the command from bin/ (a package of its own: package.json says why) and runs the
# server's build script (prepare), which has nothing to compile before src/ is copied.
COPY package.json package-lock.json ./
COPY bin ./bin
COPY scripts/build-server.mjs ./scripts/
# The face and zone readers (peer dependencies) are not needed to build.
RUN npm ci --omit=peer --no-audit --no-fund
# web/ imports types from src/schemas; the build scripts read package.json and the lock file.
COPY web ./web
COPY src ./src
COPY tsconfig.json ./
COPY scripts/build-web.mjs ./scripts/
RUN node scripts/build-web.mjs --force && node scripts/build-server.mjs --force

FROM node:20-bookworm-slim

# chromium: html templates; libreoffice-writer-nogui: docx templates; fonts-dejavu-core: a font
# for both (without one, rendered text is unreadable); tini: PID 1 that forwards signals and reaps
# the processes LibreOffice and Chromium leave behind. qpdf and poppler are only used by the tests.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium libreoffice-writer-nogui fonts-dejavu-core ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/sello

# `all`: the face comparison and the reading of documents' machine-readable zones (peer
# dependencies, docs/operations.md "A light install"); `none`: without them (about 390 MB less),
# those checks say not_checked and every identity review waits for a person.
ARG IDENTITY_READERS=all

# Dependencies first, so a change of the sources alone reuses this layer. The build script comes
# along because npm ci runs it (prepare); without src/ it has nothing to do.
COPY package.json package-lock.json ./
COPY bin ./bin
COPY scripts/build-server.mjs ./scripts/
RUN case "$IDENTITY_READERS" in \
      all) omit="--omit=dev" ;; \
      none) omit="--omit=dev --omit=peer" ;; \
      *) echo "IDENTITY_READERS: expected all or none" >&2; exit 1 ;; \
    esac \
 && npm ci $omit --no-audit --no-fund && npm cache clean --force

# What runs: the command (bin/, above), the built server (migrations included) and the built page.
COPY --from=build /opt/sello/build ./build
COPY --from=build /opt/sello/web/dist ./web/dist

# A dedicated user; the data directory (blobs, master.key, or the embedded PostgreSQL when
# DATABASE_URL is unset) is a volume it owns.
# A fixed uid and gid (10001): orchestrators run the container as that number (runAsUser).
RUN groupadd --system --gid 10001 sello \
 && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/sello --shell /usr/sbin/nologin sello \
 && mkdir -p /var/lib/sello && chown sello:sello /var/lib/sello && chmod 0700 /var/lib/sello
USER sello

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    SELLO_DATA_DIR=/var/lib/sello \
    SELLO_CHROMIUM_PATH=/usr/bin/chromium
VOLUME ["/var/lib/sello"]
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--", "node", "bin/sello.js"]
CMD ["serve"]
