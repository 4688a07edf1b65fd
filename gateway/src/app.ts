/**
 * The gateway: one request listener in front of two pipelines that start with the same declared middleware
 * (pipeline.ts: request id, access log, metrics).
 *
 * - Proxied paths (nearly every request): the fast path (fast-path.ts) on node's own request and response: token
 *   check (auth/authenticate.ts), rate limits, body, signed identity (auth/identity.ts), proxy (proxy/proxy.ts).
 * - Every other path (versions documents, health, readiness, OpenAPI, Keystone look-ups, the console and its
 *   sign-in, 404): the express app of the public routes (public-routes.ts).
 *
 * Before either, a request target in absolute form is made origin form and a request head past the limit is a 431.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { authenticator } from './auth/authenticate';
import type { GatewayDeps } from './deps';
import { internalError, sendGroupError } from './errors';
import { answerClientError, originForm, PARSER_HEAD_LIMIT, pathOf, proxiedHandler, refuseLargeHead } from './fast-path';
import { commonMiddleware, type Next, type PlainResponse, runChain } from './pipeline';
import { createProxies } from './proxy/proxy';
import { publicRoutes } from './public-routes';
import { PublicUrls } from './public-url';
import { type Group, resolve } from './routes';

/** The gateway as a request listener, with `listen` like an express app's. */
export interface GatewayApp {
  (req: IncomingMessage, res: ServerResponse): void;
  listen(port: number, host: string): Server;
}

/**
 * Builds the gateway from its dependencies (deps.ts). Nothing listens until `listen`, whose server takes request
 * heads up to PARSER_HEAD_LIMIT and answers what node's parser refuses in the group's shape.
 */
export function buildGateway(deps: GatewayDeps): GatewayApp {
  const { config, logger, tokens, rateLimits, metrics } = deps;
  /** Where links point: PUBLIC_URL, a trusted proxy's forwarded host, or the request's own (public-url.ts). */
  const publicUrls = new PublicUrls(config);
  const common = commonMiddleware(logger, metrics);
  const authenticate = authenticator(tokens, (req) => `${publicUrls.base(req)}/identity`);
  const proxies = createProxies(config, logger, metrics, deps.upstreams);
  const proxied = proxiedHandler({ config, metrics, rateLimits, publicUrls, authenticate, proxies });
  const app = publicRoutes({
    logger,
    readiness: deps.readiness,
    publicUrls,
    authenticate,
    proxies,
    common,
    signIn: deps.signIn,
    rateLimits,
    onLimited: () => metrics.rateLimited.inc({ group: 'gateway', scope: 'token' }),
  });

  /** The last resort of the fast path: a 500 in the group's shape, the cause logged. */
  const failed = (res: PlainResponse, group: Group) => (err: unknown) => {
    logger.error({ err, requestId: res.locals.requestId }, 'request failed');
    sendGroupError(res, group, internalError());
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url !== undefined && !req.url.startsWith('/')) req.url = originForm(req.url);
    // A plain response gets `locals` here, as express gives its own (requestId() keeps them).
    const plain: PlainResponse = Object.assign(res, { locals: Object.create(null) as Record<string, unknown> });
    if (refuseLargeHead(req, plain)) return;
    const r = resolve(pathOf(req.url ?? '/'));
    if (r.kind !== 'proxy') {
      app(req, res);
      return;
    }
    const fail = failed(plain, r.group);
    const next: Next = (err) => fail(err ?? new Error('the proxy passed the request on'));
    runChain(common, req, plain, () => void proxied(req, plain, r, next).catch(fail), fail);
  };
  return Object.assign(handle, {
    listen: (port: number, host: string): Server =>
      createServer({ maxHeaderSize: PARSER_HEAD_LIMIT }, handle).on('clientError', answerClientError).listen(port, host),
  });
}
