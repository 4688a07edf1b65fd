/**
 * Static tokens and the identity secret for the embedded default and the benchmarks.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { TokensFile } from '@stratum/gateway';

/** A random token (64 hex characters, like a Keystone UUID-token's entropy times two). */
export const newToken = () => randomBytes(32).toString('hex');

/** The personas the embedded default prints: a cloud admin and a member of one sample project. */
export const SAMPLE_PROJECT_ID = '2f66f0d537d740d79ad1e52238df492a';

/**
 * Reads `path`, or writes a new tokens file there with an admin and a member token.
 * @returns the file content and the two tokens.
 */
export function ensureTokensFile(path: string): { file: TokensFile; admin: string; member: string } {
  if (existsSync(path)) {
    const file = JSON.parse(readFileSync(path, 'utf8')) as TokensFile;
    const entries = Object.entries(file.tokens);
    const admin = entries.find(([, e]) => e.roles.includes('admin'))?.[0];
    const member = entries.find(([, e]) => !e.roles.includes('admin'))?.[0];
    if (admin && member) return { file, admin, member };
  }
  const admin = newToken();
  const member = newToken();
  const file: TokensFile = {
    tokens: {
      [admin]: { user_id: 'stratum-admin', project_id: 'admin-project', domain_id: 'default', roles: ['admin', 'member', 'reader'] },
      [member]: { user_id: 'stratum-member', project_id: SAMPLE_PROJECT_ID, domain_id: 'default', roles: ['member', 'reader'] },
    },
  };
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  return { file, admin, member };
}

/** Reads `path`, or writes a new random identity secret there. */
export function ensureSecret(path: string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const secret = randomBytes(32).toString('hex');
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}
