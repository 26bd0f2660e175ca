# Sello: the API, the signer page and the job runner in one process (`sello serve`).
# Debian 12 (bookworm) with Node.js 20, and the programs html and docx templates need.
FROM node:20-bookworm-slim

# chromium: html templates; libreoffice-writer-nogui: docx templates; fonts-dejavu-core: a font
# for both (without one, rendered text is unreadable); tini: PID 1 that forwards signals and reaps
# the processes LibreOffice and Chromium leave behind. qpdf and poppler are only used by the tests.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium libreoffice-writer-nogui fonts-dejavu-core ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/sello

# Dependencies first, so a change of the sources alone reuses this layer. The sources run through
# tsx (a dependency), so there is no compile step and no devDependency is needed at run time.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY . .
# The signer page is the one part that is built (web/ → web/dist).
RUN node scripts/build-web.mjs

# A dedicated user; the data directory (blobs, master.key, or the embedded PostgreSQL when
# DATABASE_URL is unset) is a volume it owns.
RUN useradd --system --home-dir /var/lib/sello --shell /usr/sbin/nologin sello \
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
