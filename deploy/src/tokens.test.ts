import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSecret, ensureTokensFile, SAMPLE_PROJECT_ID } from './tokens';

describe('the embedded default tokens and secret', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stratum-tokens-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes an admin and a member of the sample project once (owner-only), and reads them back after', () => {
    const path = join(dir, 'tokens.json');
    const first = ensureTokensFile(path);
    expect(first.admin).toMatch(/^[0-9a-f]{64}$/);
    expect(first.member).not.toBe(first.admin);
    expect(first.file.tokens[first.admin]?.roles).toContain('admin');
    expect(first.file.tokens[first.member]).toMatchObject({ project_id: SAMPLE_PROJECT_ID, roles: ['member', 'reader'] });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(ensureTokensFile(path)).toEqual(first);
  });

  it('writes a new file when the one there lacks an admin or a member', () => {
    const path = join(dir, 'tokens.json');
    const { admin } = ensureTokensFile(path);
    const onlyAdmin = JSON.parse(readFileSync(path, 'utf8'));
    for (const t of Object.keys(onlyAdmin.tokens)) if (t !== admin) delete onlyAdmin.tokens[t];
    writeFileSync(path, JSON.stringify(onlyAdmin));
    expect(ensureTokensFile(path).admin).not.toBe(admin);
  });

  it('keeps a secret once written (64 hex digits, owner-only)', () => {
    const path = join(dir, 'identity.secret');
    const secret = ensureSecret(path);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(ensureSecret(path)).toBe(secret);
  });
});
