// The Fastify application: request ids, logging, error shaping, OpenAPI, and the API routes behind
// HMAC authentication. Built from Deps so tests run it against their own database and clock.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Deps } from '../domain/deps.js';
import { AppError } from '../domain/errors.js';
import { Unauthorized, createAuthenticator, sendUnauthorized } from './auth.js';
import { parsedBody } from './json-base64-field.js';
import { type AnswerFloor, holdUntilFloor } from './answer-floor.js';
import { answerClientError, errorBody, handleError, handleFrameworkError, logUnauthorized } from './errors.js';
import { denyFraming } from './frame-guard.js';
import { registerMetrics } from './metrics.js';
import { validatorCompiler } from './validation.js';
import { OneLinePerRequest, prettyLogs, prettyStream } from '../log-format.js';
import { SharedRequestCounts, createRateLimiter } from './rate-limit.js';
import { neutralizeUnstorableParams, refuseUnstorableInput } from './text-guard.js';
import { documentRoutes } from './routes/documents.js';
import { eventRoutes } from './routes/events.js';
import { bulkRoutes } from './routes/bulk.js';
import { accountRoutes } from './routes/account.js';
import { devOutboxRoutes } from './routes/dev-outbox.js';
import { channelCallbackRoutes } from './routes/channel-callbacks.js';
import { healthRoutes } from './routes/health.js';
import { landingRoutes } from './routes/landing.js';
import { historyRoutes } from './routes/history.js';
import { pkiRoutes } from './routes/pki.js';
import { reportRoutes } from './routes/report.js';
import { satSigningRoutes } from './routes/sat-signing.js';
import { certSigningRoutes } from './routes/cert-signing.js';
import { cscSigningRoutes } from './routes/csc-signing.js';
import { webhookDeliveryRoutes } from './routes/webhook-deliveries.js';
import { identityCaptureRoutes } from './routes/identity-capture.js';
import { identityReviewRoutes } from './routes/identity.js';
import { endorsementRoutes } from './routes/endorsements.js';
import { identityProviderRoutes } from './routes/identity-provider.js';
import { signingRoutes } from './routes/signing.js';
import { documentPageRoutes } from './routes/document-page.js';
import { setSigningRoutes } from './routes/set-signing.js';
import { setIdentityCaptureRoutes } from './routes/set-identity-capture.js';
import { signerPageRoutes } from './routes/signer-page.js';
import { signerPageTitle } from '../domain/signing/page-title.js';
import { embeddingOrigin } from '../domain/signing/embedding.js';
import { panelPageRoutes } from './routes/panel-page.js';
import { panelApiRoutes } from './panel/index.js';
import { pdfToolRoutes } from './routes/pdf-tools.js';
import { workflowRoutes } from './routes/workflows.js';
import { downloadLinkRoutes } from './routes/download-link.js';
import { certifiedEmailLinkRoutes } from './routes/certified-email-links.js';
import { certifiedEmailRoutes } from './routes/certified-email.js';
import { setRoutes } from './routes/sets.js';
import { templateRoutes } from './routes/templates.js';
import { stampRoutes } from './routes/stamps.js';
import { verifyFileRoutes } from './routes/verify-file.js';
import { verifyRoutes } from './routes/verify.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const MAX_PARAM_LENGTH = 1000;

export interface AppOptions {
  /** Log destination; defaults to stdout. Tests pass a stream to read what was logged. */
  logStream?: NodeJS.WritableStream;
  /** Reports whether the service is ready (database reachable, migrations applied). */
  ready?: () => Promise<boolean>;
  /** How timing-equalised answers wait for their floor; tests record each wait through it. */
  answerFloor?: AnswerFloor;
}

export async function buildApp(deps: Deps, opts: AppOptions = {}): Promise<FastifyInstance> {
  const app = createServer(deps.config, opts);
  // Every route's params, querystring and body are checked against its schema (validation.ts).
  app.setValidatorCompiler(validatorCompiler);

  app.decorate('answerFloor', opts.answerFloor ?? holdUntilFloor());
  app.decorate('requestCounts', sharedRequestCounts(app, deps));
  app.decorateRequest('account', null);
  app.decorateRequest('rawBody', undefined);
  app.decorateRequest('base64Field', undefined);
  app.decorateRequest('jsonBody', undefined);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  denyFraming(app);
  // After authentication and schema validation, before any handler: text that cannot be stored is a
  // 400 naming the field, an identifier holding it is unknown (text-guard.ts).
  app.addHook('preHandler', async (req) => {
    neutralizeUnstorableParams(req);
    refuseUnstorableInput(req);
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    // The path is the client's own, echoed to help; a long one is cut, not sent back whole.
    const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
    return reply.code(404).send(errorBody('ROUTE_NOT_FOUND', `no route ${req.method} ${shown}`));
  });

  await registerOpenApi(app, deps.config);
  registerMetrics(app);
  await registerPublicRoutes(app, deps, opts);
  await app.register(apiPlugin(deps));
  return app;
}

/**
 * The rate limits' counts, exchanged with the other processes about once a second from start to
 * close (rate-limit.ts). A failed exchange is logged once until one succeeds again.
 */
function sharedRequestCounts(app: FastifyInstance, deps: Deps): SharedRequestCounts {
  let failing = false;
  const counts = new SharedRequestCounts({
    db: deps.db,
    nowMs: () => deps.clock.now().getTime(),
    onError: (err) => {
      if (!failing) {
        app.log.warn({ err }, 'rate limit: the counts could not be shared with the other processes; counting in this process meanwhile');
      }
      failing = true;
    },
    onExchange: () => {
      failing = false;
    },
  });
  counts.start();
  app.addHook('onClose', () => counts.stop());
  return counts;
}

/** The Fastify server with the house's logging, request ids, limits and framework error answers. */
function createServer(config: Deps['config'], opts: AppOptions): FastifyInstance {
  const pretty = prettyLogs(config, opts.logStream);
  const stream = pretty ? prettyStream(opts.logStream) : opts.logStream;
  return Fastify({
    ...(pretty ? { logController: new OneLinePerRequest(redactUrl) } : {}),
    logger: {
      level: config.logLevel,
      ...(stream ? { stream } : {}),
      // Never keys, bodies or document bytes: only the request line and outcome are logged.
      redact: { paths: ['req.headers.authorization', 'req.headers["content-sha256"]'], remove: true },
      serializers: {
        req: (req: FastifyRequest) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
      },
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: config.limits.jsonBodyBytes,
    trustProxy: false,
    // Identifiers are short: a longer path parameter is 414 PATH_TOO_LONG (handleFrameworkError).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Requests Node's HTTP parser refuses (a NUL in a header, headers too large) get the one error shape.
    clientErrorHandler: answerClientError,
    frameworkErrors: handleFrameworkError,
  });
}

/** The OpenAPI document (at /openapi.json) built from the routes' schemas, and its reference page at /docs. */
async function registerOpenApi(app: FastifyInstance, config: Deps['config']) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sello API',
        version: '1',
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'Electronic-signature service. Every operation under /api and /developers is authenticated with ' +
          '`Authorization: svc {webId}:{Base64(HMAC-SHA256(apiKey, stringToSign))}`; see docs/api.md.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: { hmac: { type: 'apiKey', in: 'header', name: 'Authorization' } },
      },
    },
    transformObject: (doc) => nameWildcardParameters((doc as { openapiObject: OpenApiDocument }).openapiObject),
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/** Everything outside HMAC authentication: pages, the signer's APIs, PKI, verification, callbacks. */
async function registerPublicRoutes(app: FastifyInstance, deps: Deps, opts: AppOptions) {
  await app.register(landingRoutes(deps.config.publicUrl));
  await app.register(healthRoutes(deps, opts.ready));
  await app.register(pkiRoutes(deps.pki));
  await app.register(signingRoutes(deps));
  await app.register(satSigningRoutes(deps));
  await app.register(certSigningRoutes(deps));
  await app.register(cscSigningRoutes(deps));
  await app.register(identityCaptureRoutes(deps));
  await app.register(identityProviderRoutes(deps));
  await app.register(documentPageRoutes(deps));
  await app.register(setSigningRoutes(deps));
  await app.register(setIdentityCaptureRoutes(deps));
  await app.register(
    signerPageRoutes({ embedding: (link, asked) => embeddingOrigin(deps, link, asked), title: (page) => signerPageTitle(deps, page) }),
  );
  await app.register(panelPageRoutes());
  await app.register(panelApiRoutes(deps));
  await app.register(downloadLinkRoutes(deps));
  await app.register(certifiedEmailLinkRoutes(deps));
  await app.register(verifyRoutes(deps));
  await app.register(verifyFileRoutes(deps));
  await app.register(channelCallbackRoutes(deps));
  if (deps.config.env !== 'production') {
    await app.register(devOutboxRoutes(deps));
  }
}

/** Everything under HMAC authentication: its own JSON parser (raw bytes kept), auth, rate limit. */
function apiPlugin(deps: Deps) {
  const authenticate = createAuthenticator({
    deps,
    schemes: deps.config.authSchemes,
    publicUrl: () => deps.config.publicUrl,
  });
  return async function api(app: FastifyInstance) {
    const rateLimit = createRateLimiter(app.requestCounts, { scope: 'account', perWindow: deps.config.limits.requestsPerMinute });
    // Keep the bytes as received: the signature may be over them exactly (decisions.md). The body
    // is parsed only after the signature is checked.
    app.removeContentTypeParser('application/json');
    // The API takes JSON and multipart only: a text/plain body is 415, not parsed as text.
    app.removeContentTypeParser('text/plain');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
      req.rawBody = body as Buffer;
      done(null, undefined);
    });
    await app.register(multipart, {
      limits: { fileSize: deps.config.limits.documentBytes, files: 1, fields: 10, fieldSize: 1024 },
      throwFileSizeLimit: true,
    });

    app.addHook('preValidation', async (req, reply) => {
      try {
        req.account = await authenticate(req);
      } catch (err) {
        if (err instanceof Unauthorized) {
          logUnauthorized(req, err);
          return sendUnauthorized(reply);
        }
        throw err;
      }
      const retryAfter = rateLimit(req.account.id);
      if (retryAfter > 0) {
        reply.header('retry-after', String(retryAfter));
        throw new AppError('RATE_LIMITED', `more than ${deps.config.limits.requestsPerMinute} requests a minute; retry in ${retryAfter} s`);
      }
      if (req.rawBody !== undefined) {
        const body = parsedBody(req);
        if (!body.ok) {
          throw new AppError('INVALID_JSON', 'the body is not valid JSON');
        }
        req.body = body.value;
        // The bytes served the signature check and are parsed now: a large body is not kept twice
        // for the rest of the request (a 50 MB document arrives as a 67 MB body).
        req.rawBody = undefined;
      }
    });

    await app.register(documentRoutes(deps));
    await app.register(reportRoutes(deps));
    await app.register(historyRoutes(deps));
    await app.register(certifiedEmailRoutes(deps));
    await app.register(setRoutes(deps));
    await app.register(workflowRoutes(deps));
    await app.register(pdfToolRoutes(deps));
    await app.register(stampRoutes(deps));
    await app.register(templateRoutes(deps));
    await app.register(eventRoutes(deps));
    await app.register(bulkRoutes(deps));
    await app.register(webhookDeliveryRoutes(deps));
    await app.register(identityReviewRoutes(deps));
    await app.register(endorsementRoutes(deps));
    await app.register(accountRoutes(deps));
  };
}

/**
 * Logs keep the path without its query, and never a token that is a credential (signing links, set
 * links, download links, a certified email's links).
 */
export function redactUrl(url: string) {
  const q = url.indexOf('?');
  const path = q === -1 ? url : `${url.slice(0, q)}?…`;
  if (/^\/sign\/api\/document\//.test(path)) {
    return path; // a document ticket, not a signing token
  }
  return path
    .replace(/^\/sign\/(api\/)?(set\/)?[^/?]+/, (_m, api: string | undefined, set: string | undefined) => `/sign/${api ?? ''}${set ?? ''}…`)
    .replace(/^\/download\/[^/?]+/, '/download/…')
    .replace(/^\/certified-email\/(open|download)\/[^/?]+/, '/certified-email/$1/…');
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
}

/** The name a wildcard route's rest-of-path parameter has in the OpenAPI document, by route prefix. */
const WILDCARD_NAMES: Record<string, string> = { '/pki/ocsp/': 'request' };

/**
 * Fastify names a wildcard route's parameter `*`, which @fastify/swagger writes as the path
 * `/pki/ocsp/{*}`; OpenAPI path templates take only names, so the parameter gets a real one.
 */
function nameWildcardParameters(doc: OpenApiDocument): OpenApiDocument {
  for (const path of Object.keys(doc.paths ?? {})) {
    if (!path.endsWith('/{*}')) {
      continue;
    }
    const prefix = path.slice(0, -'{*}'.length);
    const name = WILDCARD_NAMES[prefix] ?? 'path';
    const item = doc.paths![path];
    for (const op of Object.values(item)) {
      for (const p of op.parameters ?? []) {
        if (p.in === 'path' && p.name === '*') {
          p.name = name;
        }
      }
    }
    delete doc.paths![path];
    doc.paths![`${prefix}{${name}}`] = item;
  }
  return doc;
}
