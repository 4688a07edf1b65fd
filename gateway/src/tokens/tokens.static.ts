/**
 * Static tokens: the embedded default and the tests. A JSON file read once at start.
 */
import { readFileSync } from 'node:fs';
import type { Identity } from '@stratum/identity';
import { z } from 'zod';
import type { TokenValidator } from './tokens.types';

const TokenEntry = z.object({
  user_id: z.string().min(1),
  project_id: z.string().min(1).nullable().default(null),
  domain_id: z.string().min(1).nullable().default(null),
  roles: z.array(z.string().min(1)).min(1),
  /** ISO-8601 expiry; absent = never expires. */
  expires_at: z.iso.datetime({ offset: true }).optional(),
});
export const TokensFile = z.object({ tokens: z.record(z.string().min(16), TokenEntry) });
export type TokensFile = z.infer<typeof TokensFile>;

/** Tokens from a JSON file, read once at start. */
export class StaticTokens implements TokenValidator {
  /** Each token's identity and expiry, built once at start rather than on every check. */
  private readonly tokens: Map<string, { identity: Identity; expiresAt: number }>;

  constructor(file: TokensFile) {
    this.tokens = new Map(
      Object.entries(file.tokens).map(([token, e]) => [
        token,
        {
          identity: Object.freeze({
            userId: e.user_id,
            projectId: e.project_id,
            domainId: e.domain_id,
            roles: e.roles.map((r) => r.toLowerCase()),
          }),
          expiresAt: e.expires_at ? Date.parse(e.expires_at) : Number.POSITIVE_INFINITY,
        },
      ]),
    );
  }

  /** @throws Error naming the file and the problem when it is unreadable or malformed. */
  static fromFile(path: string): StaticTokens {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new Error(`cannot read tokens file ${path}: ${(err as Error).message}`);
    }
    const parsed = TokensFile.safeParse(json);
    if (!parsed.success) throw new Error(`invalid tokens file ${path}: ${parsed.error.issues[0]?.message}`);
    return new StaticTokens(parsed.data);
  }

  async validate(token: string): Promise<Identity | null> {
    const e = this.tokens.get(token);
    return e && e.expiresAt > Date.now() ? e.identity : null;
  }
}
