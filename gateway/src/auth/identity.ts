/**
 * Identity forwarding: the client's identity headers are never passed on; the identity the gateway validated is
 * signed for the very request sent upstream (method, request target as sent, body digest), which the services verify
 * with the shared secret (http-kit `requireIdentity`).
 */
import type { ClientRequest, IncomingHttpHeaders } from 'node:http';
import { CLIENT_IDENTITY_HEADERS, signIdentity } from '@stratum/identity';
import type { Forward } from '../pipeline';

/** Removes every identity header a client sent (only the gateway's signature may carry an identity). */
export function stripClientIdentity(headers: IncomingHttpHeaders): void {
  for (const name of CLIENT_IDENTITY_HEADERS) delete headers[name];
}

/**
 * Signs `forward.identity` onto the upstream request and writes the buffered body. Called when http-proxy has built
 * the request: the signature covers the method and request target exactly as they go on the wire (after the group
 * prefix is removed and http-proxy has joined the path), which the service reads as `req.originalUrl`.
 */
export function signForwarded(proxyReq: ClientRequest, forward: Forward, secret: string): void {
  const signed = signIdentity(forward.identity, secret, { method: proxyReq.method, url: proxyReq.path, bodyDigest: forward.digest });
  for (const [name, value] of Object.entries(signed)) proxyReq.setHeader(name, value);
  // The client's body was read whole; http-proxy then pipes the ended request, which ends this one.
  if (forward.body) proxyReq.write(forward.body);
}
