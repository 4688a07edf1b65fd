/**
 * The gateway app: request id → access log → public documents → route resolution → token check → identity
 * forwarding (client identity headers stripped, validated identity signed) → proxy to the group's upstream.
 */
import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { AppError, accessLog, errorHandler, externalBaseUrl, reasonPhrase, renderKeystoneError, requestId } from '@stratum/http-kit';
import { CLIENT_IDENTITY_HEADERS, type Identity, signIdentity } from '@stratum/identity';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config';
import { GROUPS, type Group, INGEST_PATH, resolve } from './routes';
import type { TokenValidator } from './tokens';
import { octaviaVersions } from './versions';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  tokens: TokenValidator;
}

const UNAUTHORIZED = renderKeystoneError(401, 'The request you have made requires authentication.');

/** Maps a proxy failure to a status: refused/unreachable → 503, timeout → 504, anything else → 502. */
function upstreamStatus(err: NodeJS.ErrnoException): number {
  if (['ECONNREFUSED', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(err.code ?? '')) return 503;
  if (['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED'].includes(err.code ?? '') || /timed? ?out/i.test(err.message)) return 504;
  return 502;
}

/** The password of an HTTP Basic `Authorization` header, or undefined. */
function basicPassword(header: string | undefined): string | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon >= 0 ? text.slice(colon + 1) : undefined;
}

export function buildGateway(deps: GatewayDeps): Express {
  const { config, logger, tokens } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId());
  app.use(accessLog(logger));

  app.get('/', (req, res) => {
    res.json(octaviaVersions(externalBaseUrl(req)));
  });
  app.get('/healthcheck', (_req, res) => {
    res.type('text/plain').send('OK');
  });

  const upstreams: Record<Group, string> = {
    event: config.EVENT_QUERY_URL,
    lbaas: config.LBAAS_QUOTA_URL,
    domain: config.DOMAIN_QUOTA_URL,
  };
  const proxyFor = (group: Group): RequestHandler =>
    createProxyMiddleware<Request, Response>({
      target: upstreams[group],
      // Reuse upstream connections; without an agent http-proxy sends `Connection: close` and passes the upstream's
      // close on to the client, so every request would pay for two new TCP connections.
      agent: new Agent({ keepAlive: true, maxSockets: 256 }),
      changeOrigin: true,
      proxyTimeout: config.UPSTREAM_TIMEOUT_MS,
      timeout: config.UPSTREAM_TIMEOUT_MS,
      on: {
        error: (err, _req, res) => {
          const status = upstreamStatus(err as NodeJS.ErrnoException);
          logger.warn({ group, status, code: (err as NodeJS.ErrnoException).code }, 'upstream failed');
          const out = res as ServerResponse<IncomingMessage>;
          if (out.headersSent || typeof out.writeHead !== 'function') {
            out.destroy?.();
            return;
          }
          out.writeHead(status, { 'Content-Type': 'application/json' });
          out.end(
            JSON.stringify(GROUPS[group].render(status, `The ${GROUPS[group].name} service is unavailable (${reasonPhrase(status)}).`)),
          );
        },
      },
    }) as unknown as RequestHandler;
  const proxies: Record<Group, RequestHandler> = { event: proxyFor('event'), lbaas: proxyFor('lbaas'), domain: proxyFor('domain') };

  const route: RequestHandler = async (req, res, next) => {
    const path = req.path;
    const r = resolve(path);
    if (r.kind === 'none') {
      next(new AppError(404, 'The resource could not be found.'));
      return;
    }
    if (r.kind === 'versions') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        next(new AppError(405, 'Method not allowed.'));
        return;
      }
      res.json(GROUPS[r.group].versions(externalBaseUrl(req, r.prefix)));
      return;
    }
    if (r.kind === 'health') {
      for (const h of CLIENT_IDENTITY_HEADERS) delete req.headers[h];
      req.url = '/healthcheck';
      proxies[r.group](req, res, next);
      return;
    }
    const token =
      req.headers['x-auth-token'] ?? (r.kind === 'proxy' && r.path === INGEST_PATH ? basicPassword(req.headers.authorization) : undefined);
    delete req.headers.authorization;
    const identity: Identity | null = typeof token === 'string' && token !== '' ? await tokens.validate(token) : null;
    if (!identity) {
      res.status(401).setHeader('WWW-Authenticate', `Keystone uri="${externalBaseUrl(req)}/identity"`);
      res.json(UNAUTHORIZED);
      return;
    }
    if (r.kind === 'identity') {
      next(
        new AppError(
          403,
          'This endpoint is not Keystone: identity look-ups are not served here. Give project IDs, or point the client at Keystone.',
        ),
      );
      return;
    }
    for (const h of CLIENT_IDENTITY_HEADERS) delete req.headers[h];
    Object.assign(req.headers, signIdentity(identity, config.STRATUM_IDENTITY_SECRET));
    req.headers['x-openstack-request-id'] = res.locals.requestId as string;
    req.headers['x-forwarded-host'] = (req.headers['x-forwarded-host'] as string | undefined) ?? req.headers.host ?? '';
    req.headers['x-forwarded-proto'] = (req.headers['x-forwarded-proto'] as string | undefined) ?? req.protocol;
    req.headers['x-forwarded-prefix'] = r.prefix;
    const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
    req.url = `${r.path}${query}`;
    proxies[r.group](req, res, next);
  };
  app.use(route);
  app.use(errorHandler(renderKeystoneError, logger));
  return app;
}
