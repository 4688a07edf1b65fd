/**
 * What the gateway asks of a token check, whatever answers it (a static file or Keystone).
 */
import type { Identity } from '@stratum/identity';

/** Resolves an `X-Auth-Token` to the identity it stands for, or null when the token is not valid. */
export interface TokenValidator {
  /** @throws IdentityUnavailable when the answer cannot be had now (Keystone down): the caller answers 503. */
  validate(token: string): Promise<Identity | null>;
}

/** The token service could not answer (unreachable, timed out, 5xx, or it refused the service credentials). */
export class IdentityUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityUnavailable';
  }
}
