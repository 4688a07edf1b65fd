/**
 * The whole stack in-process for integration tests: the three services (each its own app and store connection) on
 * ephemeral ports, and the real gateway in front of them with a real static tokens file. Each call gets its own
 * MongoDB database on the test FerretDB, so a test file owns its data. Also a test's own processes (processes.ts),
 * a real Keystone (keystone.ts) and AMQP helpers (amqp.ts).
 *
 * Who depends on this package: it depends on every service and the gateway (it starts them), and they on the
 * packages below them, so any of those declaring it, even as a devDependency, would make the workspace graph
 * cyclic. It is a devDependency of the workspace root instead (and of @stratum/deploy, which nothing here depends
 * on), and the tests under services/<service>/test, gateway/test and packages/<package>/test resolve it from the
 * root's node_modules (as they resolve jest and supertest).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as domainQuota from '@stratum/domain-quota';
import * as eventQuery from '@stratum/event-query';
import {
  buildGateway,
  createGatewayDeps,
  type GatewayApp,
  type GatewayDeps,
  loadConfig as loadGatewayConfig,
  type TokensFile,
} from '@stratum/gateway';
import { KEEP_ALIVE_TIMEOUT_MS } from '@stratum/http-kit';
import { type Identity, signIdentity } from '@stratum/identity';
import * as lbaasQuota from '@stratum/lbaas-quota';
import type { Express } from 'express';
import type { Db } from 'mongodb';
import pino, { type Logger } from 'pino';

/** A caller of the API with a token. */
export interface Persona {
  token: string;
  userId: string;
  projectId: string | null;
  domainId: string | null;
  roles: string[];
}

export interface TestStack {
  /** The gateway (a request listener with `listen`), for supertest. */
  gateway: GatewayApp;
  /** Base URLs of the services, to prove they refuse requests that bypass the gateway. */
  serviceUrls: { eventQuery: string; lbaasQuota: string; domainQuota: string };
  /**
   * admin: cloud admin; memberA/readerA: project A; memberB: project B; deptAdmin: admin of department `deptDomainId`;
   * service: a service user (role `service` on the service project), as a load balancer service calls with.
   */
  personas: Record<'admin' | 'memberA' | 'readerA' | 'memberB' | 'deptAdmin' | 'service', Persona>;
  projectA: string;
  projectB: string;
  deptDomainId: string;
  /** The stack's database (to arrange data through the loaders, never to assert). */
  db: Db;
  /** The event service's composition root (its ingestion consumer, to stop it or read its counters). */
  eventDeps: eventQuery.EventQueryDeps;
  /** The domain-quota service's composition root (its registry subscriber and audit publisher). */
  domainDeps: domainQuota.DomainQuotaDeps;
  /** The gateway's composition root (its metrics, token check and rate limits). */
  gatewayDeps: GatewayDeps;
  close(): Promise<void>;
}

const hex = (n: number) => randomBytes(n).toString('hex');

function persona(roles: string[], projectId: string | null, domainId: string | null): Persona {
  return { token: hex(32), userId: `user-${hex(6)}`, projectId, domainId, roles };
}

async function listen(app: Express): Promise<{ server: Server; url: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((ok, fail) => {
    server.once('listening', ok);
    server.once('error', fail);
  });
  // As serve() runs them: with node's 5 s the gateway's agent reuses a connection the service is closing (a 502).
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface TestStackOptions {
  /** Extra environment for the lbaas-quota service (e.g. DEFAULT_LOAD_BALANCER_QUOTA). */
  lbaasEnv?: Record<string, string>;
  /** Extra environment for the event-query service. */
  eventEnv?: Record<string, string>;
  /** Extra environment for the domain-quota service (e.g. AMQP_URL, KEYSTONE_URL). */
  domainEnv?: Record<string, string>;
  /** The store for this stack instead of the shared test FerretDB (e.g. one a test stops and restarts). */
  mongodbUri?: string;
  /** Override an upstream URL (e.g. a closed port, to test outages). */
  upstreamOverride?: Partial<Record<'EVENT_QUERY_URL' | 'LBAAS_QUOTA_URL' | 'DOMAIN_QUOTA_URL', string>>;
  /**
   * Extra environment for the gateway (e.g. KEYSTONE_URL with TOKENS_FILE '' for Keystone tokens, REDIS_URL,
   * RATE_LIMIT_*). The gateway's Redis keys get a prefix of the stack's own.
   */
  gatewayEnv?: Record<string, string>;
  /** The gateway's logger (default: silent), e.g. one writing to a stream a test reads. */
  gatewayLogger?: Logger;
  /** The event-query service's logger (default: silent), e.g. one writing to a stream a test reads. */
  eventLogger?: Logger;
}

/** Starts the stack on the test FerretDB (STRATUM_TEST_MONGODB_URI, set by the integration global setup). */
export async function startTestStack(opts: TestStackOptions = {}): Promise<TestStack> {
  const uri = opts.mongodbUri ?? process.env.STRATUM_TEST_MONGODB_URI;
  if (!uri) throw new Error('STRATUM_TEST_MONGODB_URI is not set: run integration tests through jest (global setup)');
  const database = `t_${hex(6)}`;
  const secret = hex(24);
  const common = {
    MONGODB_URI: uri,
    MONGODB_DATABASE: database,
    STRATUM_IDENTITY_SECRET: secret,
    LOG_LEVEL: 'silent',
    // The local Redis (docs/decisions.md "Runtime pieces and how they start": tests use it); keys are prefixed with the stack's own database name.
    REDIS_URL: process.env.STRATUM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
  };
  const logger = pino({ level: 'silent' });

  const eq = await eventQuery.createDeps(eventQuery.loadConfig({ ...common, ...opts.eventEnv }), opts.eventLogger ?? logger);
  const lb = await lbaasQuota.createDeps(lbaasQuota.loadConfig({ ...common, ...opts.lbaasEnv }), logger);
  const dq = await domainQuota.createDeps(domainQuota.loadConfig({ ...common, ...opts.domainEnv }), logger);
  const eqSrv = await listen(eventQuery.buildApp(eq));
  const lbSrv = await listen(lbaasQuota.buildApp(lb));
  const dqSrv = await listen(domainQuota.buildApp(dq));

  const projectA = hex(16);
  const projectB = hex(16);
  const deptDomainId = hex(16);
  const personas = {
    admin: persona(['admin', 'member', 'reader'], `admin-${hex(4)}`, 'default'),
    memberA: persona(['member', 'reader'], projectA, 'default'),
    readerA: persona(['reader'], projectA, 'default'),
    memberB: persona(['member', 'reader'], projectB, 'default'),
    deptAdmin: persona(['admin'], null, deptDomainId),
    service: persona(['service'], `service-${hex(4)}`, 'default'),
  };
  const file: TokensFile = { tokens: {} };
  for (const p of Object.values(personas)) {
    file.tokens[p.token] = { user_id: p.userId, project_id: p.projectId, domain_id: p.domainId, roles: p.roles };
  }
  const dir = mkdtempSync(join(tmpdir(), 'stratum-test-'));
  const tokensFile = join(dir, 'tokens.json');
  writeFileSync(tokensFile, JSON.stringify(file));

  /** Stops the services and drops the stack's database (also when the gateway fails to start). */
  const closeServices = async () => {
    for (const s of [eqSrv, lbSrv, dqSrv]) s.server.closeAllConnections();
    await Promise.all([eqSrv, lbSrv, dqSrv].map((s) => new Promise((ok) => s.server.close(ok))));
    await eq.store.db.dropDatabase().catch(() => undefined);
    await Promise.all([eq.close(), lb.close(), dq.close()]);
  };
  let gatewayDeps: GatewayDeps;
  try {
    const config = loadGatewayConfig({
      STRATUM_IDENTITY_SECRET: secret,
      TOKENS_FILE: tokensFile,
      EVENT_QUERY_URL: eqSrv.url,
      LBAAS_QUOTA_URL: lbSrv.url,
      DOMAIN_QUOTA_URL: dqSrv.url,
      UPSTREAM_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'silent',
      ...opts.upstreamOverride,
      ...opts.gatewayEnv,
    });
    gatewayDeps = await createGatewayDeps(config, opts.gatewayLogger ?? logger, { redisPrefix: `stratum:test:${database}:gateway:` });
  } catch (err) {
    // A gateway that refuses its configuration must not leave the services (and their connections) running.
    await closeServices();
    throw err;
  }
  const gateway = buildGateway(gatewayDeps);

  return {
    gateway,
    serviceUrls: { eventQuery: eqSrv.url, lbaasQuota: lbSrv.url, domainQuota: dqSrv.url },
    personas,
    projectA,
    projectB,
    deptDomainId,
    db: eq.store.db,
    eventDeps: eq,
    domainDeps: dq,
    gatewayDeps,
    close: async () => {
      await gatewayDeps.close();
      await closeServices();
    },
  };
}

/** The X-Auth-Token header of one of the stack's personas. */
export const tokenOf = (stack: TestStack, who: keyof TestStack['personas']) => ({ 'X-Auth-Token': stack.personas[who].token });

/**
 * Headers for a request sent straight to a service, signed with the stack's secret as the gateway signs that very
 * request: its method, its path and query exactly as sent (`url`), and its body bytes (none when omitted). Good for
 * that one request for IDENTITY_MAX_AGE_SECONDS (10 s).
 */
export function signedHeaders(
  stack: TestStack,
  identity: Identity,
  req: { method: string; url: string; body?: string | Buffer },
): Record<string, string> {
  const headers = signIdentity(identity, stack.gatewayDeps.config.STRATUM_IDENTITY_SECRET, req);
  return req.body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' };
}

/** A fresh random UUID (message ids, resource ids). */
export const uuid = () => randomUUID();
export * from './amqp';
export * from './keystone';
export * from './must';
export * from './processes';

/** An answer of `sendRaw`: status, headers, and the body as text and, when it is JSON, parsed. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: unknown;
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * Sends one request with node's http client to `origin`, for what supertest cannot send: binary (encoded) bodies and
 * bodies in chunks (`Transfer-Encoding: chunked`). With `raw`, that text is written to a socket as is (latin1) and the
 * answer read until the server closes: request lines node's client refuses to send (control characters, 20 KB).
 */
export function sendRaw(
  origin: string,
  req: { method?: string; path?: string; headers?: Record<string, string>; body?: Buffer | Buffer[]; raw?: string },
): Promise<RawResponse> {
  const url = new URL(origin);
  if (req.raw !== undefined) {
    const raw = req.raw;
    return new Promise((ok, fail) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write(raw, 'latin1'));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', fail);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const split = text.indexOf('\r\n\r\n');
        const head = split < 0 ? text : text.slice(0, split);
        const bodyText = split < 0 ? '' : text.slice(split + 4);
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers: IncomingHttpHeaders = {};
        for (const l of lines) {
          const i = l.indexOf(':');
          if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
        }
        ok({ status: Number(statusLine.split(' ')[1] ?? 0), headers, text: bodyText, body: parsed(bodyText) });
      });
    });
  }
  return new Promise((ok, fail) => {
    const r = httpRequest(
      { host: url.hostname, port: url.port, method: req.method ?? 'GET', path: req.path ?? '/', headers: req.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          ok({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed(text) });
        });
      },
    );
    r.on('error', fail);
    const parts = req.body === undefined ? [] : Array.isArray(req.body) ? req.body : [req.body];
    for (const p of parts) r.write(p);
    r.end();
  });
}

/** The stack's gateway listening on an ephemeral port (its own server, as `npm start` runs it), for `sendRaw`. */
export async function listenGateway(stack: TestStack): Promise<{ url: string; close(): Promise<void> }> {
  const server = stack.gateway.listen(0, '127.0.0.1');
  await new Promise<void>((ok, fail) => {
    server.once('listening', ok);
    server.once('error', fail);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    },
  };
}
