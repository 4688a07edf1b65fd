/**
 * Express middleware shared by the services: request ids, access logs, JSON bodies, identity, errors.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bodyDigest,
  DEFAULT_IDENTITY_MAX_AGE_SECONDS,
  EMPTY_BODY_SHA256,
  type Identity,
  SUPPORTED_IDENTITY_VERSIONS,
  verifyIdentity,
} from '@stratum/identity';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import pino, { type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { AppError, type ErrorRenderer, unauthenticated } from './app-error';
import { classify } from './errors';

export const REQUEST_ID_HEADER = 'x-openstack-request-id';
const REQUEST_ID_RE = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A node response with `locals` as express has them (created by `requestId` on a plain response). */
export type NodeResponse = ServerResponse & { locals: Record<string, unknown> };

/**
 * A middleware that reads only node's request and response (`res.locals` as express has it). Express's Request and
 * Response are subtypes, so it is an express handler as well as a step of the gateway's plain node pipeline.
 */
export type NodeMiddleware = (req: IncomingMessage, res: NodeResponse, next: (err?: unknown) => void) => void;

/** Headers never written to logs. */
export const REDACTED_HEADERS = [
  'req.headers["x-auth-token"]',
  'req.headers["x-subject-token"]',
  'req.headers["x-service-token"]',
  'req.headers["x-identity-signature"]',
  'req.headers.authorization',
  'req.headers.cookie',
];

/**
 * Accepts a valid incoming `X-Openstack-Request-Id` (`req-<uuid>`) or makes one, stores it in `res.locals.requestId`
 * and echoes it on the response, as oslo.middleware's request_id does.
 */
export function requestId(): NodeMiddleware {
  return (req, res, next) => {
    const given = req.headers[REQUEST_ID_HEADER];
    const id = typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : `req-${randomUUID()}`;
    // A plain node response (the gateway's fast path) has no locals until given some.
    res.locals ??= Object.create(null);
    res.locals.requestId = id;
    res.setHeader('X-Openstack-Request-Id', id);
    next();
  };
}

/**
 * pino-http access log: the request id, method, url and status; 4xx at warn, 5xx at error; tokens redacted;
 * health checks not logged.
 */
export function accessLog(logger: Logger): NodeMiddleware {
  return pinoHttp({
    logger,
    genReqId: (_req, res) => ((res as Partial<NodeResponse>).locals?.requestId as string | undefined) ?? `req-${randomUUID()}`,
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    autoLogging: { ignore: (req) => req.url === '/healthcheck' },
    redact: { paths: REDACTED_HEADERS, censor: '[redacted]' },
    // The serializers read the raw request and response: pino-http's default wrapping first copies every header and
    // the socket address into an object these serializers then ignore (a fifth of the gateway's CPU per request).
    wrapSerializers: false,
    serializers: {
      req: (req: { id: unknown; method: string; url: string; originalUrl?: string }) => ({
        id: req.id,
        method: req.method,
        url: req.originalUrl ?? req.url,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: pino.stdSerializers.err,
    },
  });
}

/** Media types read as JSON bodies. */
const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * JSON body parser (any method; Panko accepts a JSON body on GET). Errors go to the error middleware. The raw bytes
 * stay in `res.locals.rawBody` for handlers that must read numbers exactly.
 *
 * Before the bytes are decoded as JSON, their SHA-256 must be the body digest the gateway signed (`requireIdentity`
 * left it in `res.locals.bodyDigest`), else 401: a signed header set cannot carry another body. The digest covers the
 * bytes after any Content-Encoding is undone; the gateway forwards bodies decoded (identity-encoded), so for every
 * request it forwards these are the bytes on the wire.
 */
export function jsonBody(limit = '1mb'): RequestHandler {
  const parse = express.json({
    limit,
    strict: false,
    type: JSON_TYPES,
    verify: (_req, res, buf) => {
      const locals = (res as NodeResponse).locals;
      if (locals.bodyDigest !== undefined && bodyDigest(buf) !== locals.bodyDigest) throw unauthenticated();
      locals.rawBody = buf;
    },
  });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      // No body was read (none sent): the signature must have been made for no body.
      if (!err && res.locals.rawBody === undefined && res.locals.bodyDigest !== undefined && res.locals.bodyDigest !== EMPTY_BODY_SHA256) {
        next(unauthenticated());
        return;
      }
      next(err);
    });
  };
}

/**
 * A request that carries a body must say it is JSON: anything else is a 415 `Unknown mimetype: <type>` (Panko's
 * message, from WSME), rather than a body silently ignored.
 */
export function requireJsonBody(): RequestHandler {
  return (req, _res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is(JSON_TYPES)) {
      next(new AppError(415, `Unknown mimetype: ${req.headers['content-type'] ?? '(none)'}`));
      return;
    }
    next();
  };
}

/**
 * Refuses any request whose identity headers were not signed by the gateway for this very request — its method, its
 * request target as received (`req.originalUrl`) and its body digest — within `maxAgeSeconds` (401 in the group's
 * shape). On success the identity is in `res.locals.identity` and the signed body digest in `res.locals.bodyDigest`,
 * which `jsonBody` checks against the bytes it reads. A request signed in an identity format version this build does
 * not know (a gateway newer than the service) is a 401 too, logged with both versions (never the secret or token).
 */
export function requireIdentity(secret: string, maxAgeSeconds = DEFAULT_IDENTITY_MAX_AGE_SECONDS): RequestHandler {
  return (req, res, next) => {
    const result = verifyIdentity(req.headers, secret, { method: req.method, url: req.originalUrl }, maxAgeSeconds);
    if (!result.ok) {
      if (result.reason === 'unknown_version') {
        req.log?.warn(
          { identityVersion: result.version, supportedIdentityVersions: SUPPORTED_IDENTITY_VERSIONS },
          `identity version "${result.version}" not supported (this service verifies ${SUPPORTED_IDENTITY_VERSIONS.join(', ')}): upgrade the services before the gateway`,
        );
      }
      next(unauthenticated());
      return;
    }
    res.locals.identity = result.identity;
    res.locals.bodyDigest = result.bodyDigest;
    next();
  };
}

/** The verified identity of the request (set by `requireIdentity`). */
export function identityOf(res: Response): Identity {
  const id = res.locals.identity as Identity | undefined;
  if (!id) throw unauthenticated();
  return id;
}

/**
 * A handler for the other methods of a route: 405 with `Allow` (as pecan and Pecan/WSME services answer).
 * @param allow the route's methods, e.g. `GET, POST`.
 */
export function methodNotAllowed(allow: string): RequestHandler {
  return (_req, res) => {
    res.setHeader('Allow', allow);
    throw new AppError(405, 'The method is not allowed for the requested URL.');
  };
}

/** Unknown path → 404 in the group's shape. */
export function notFound(): RequestHandler {
  return (_req, _res, next) => next(new AppError(404, 'The resource could not be found.'));
}

/** Final error middleware: renders every error in the group's shape; logs 5xx with the cause, never echoes it. */
export function errorHandler(render: ErrorRenderer, logger: Logger): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const { status, message, details, headers } = classify(err);
    if (status >= 500) logger.error({ err, requestId: res.locals.requestId }, 'request failed');
    if (res.headersSent) return;
    if (headers) res.set(headers);
    if (status === 401) res.setHeader('WWW-Authenticate', 'Keystone uri="/identity"');
    res.status(status).json(render(status, message, details));
  };
}

/** `host[:port]` (a name, IPv4 or bracketed IPv6) and a plain path prefix: nothing that could end or split a link. */
const LINK_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const LINK_PREFIX = /^(?:\/[A-Za-z0-9._~%-]+)*$/;
const oneHeader = (req: Request, name: string): string | undefined => {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
};

/**
 * The base URL links in a service's responses are built on (`proto://host[prefix]`): the `X-Forwarded-Proto`/
 * `X-Forwarded-Host` the gateway sends, which it decided from its PUBLIC_URL or a trusted proxy and never copies from
 * a client (gateway/src/public-url.ts); a service is reachable only with the gateway's signature. A value that is not
 * a plain scheme or `host[:port]` is ignored for the request's own.
 */
export function externalBaseUrl(req: Request, prefix = ''): string {
  const fproto = oneHeader(req, 'x-forwarded-proto');
  const fhost = oneHeader(req, 'x-forwarded-host');
  const own = req.headers.host && LINK_HOST.test(req.headers.host) ? req.headers.host : 'localhost';
  const proto = fproto === 'http' || fproto === 'https' ? fproto : req.protocol;
  const host = fhost !== undefined && LINK_HOST.test(fhost) ? fhost : own;
  return `${proto}://${host}${LINK_PREFIX.test(prefix) ? prefix : ''}`;
}

/** The base URL the client addressed through the gateway, with the path prefix the gateway forwarded. */
export function forwardedBaseUrl(req: Request): string {
  return externalBaseUrl(req, oneHeader(req, 'x-forwarded-prefix') ?? '');
}
