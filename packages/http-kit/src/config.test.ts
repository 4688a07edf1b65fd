import { z } from 'zod';
import { BaseServiceEnv, parseConfig } from './config';

const SECRET = '0123456789abcdef';

describe('BaseServiceEnv', () => {
  it('fills every default when only the secret is given', () => {
    expect(parseConfig(BaseServiceEnv, { STRATUM_IDENTITY_SECRET: SECRET })).toEqual({
      HOST: '127.0.0.1',
      MONGODB_URI: 'mongodb://127.0.0.1:27017/',
      MONGODB_DATABASE: 'stratum',
      STRATUM_IDENTITY_SECRET: SECRET,
      IDENTITY_MAX_AGE_SECONDS: 10,
      REDIS_URL: '',
      LOG_LEVEL: 'info',
    });
  });

  it('requires a secret of at least 16 characters (15 is refused, 16 accepted)', () => {
    expect(() => parseConfig(BaseServiceEnv, {})).toThrow(/STRATUM_IDENTITY_SECRET/);
    expect(() => parseConfig(BaseServiceEnv, { STRATUM_IDENTITY_SECRET: SECRET.slice(1) })).toThrow(
      'STRATUM_IDENTITY_SECRET: STRATUM_IDENTITY_SECRET must be at least 16 characters',
    );
    expect(parseConfig(BaseServiceEnv, { STRATUM_IDENTITY_SECRET: SECRET }).STRATUM_IDENTITY_SECRET).toBe(SECRET);
  });

  it.each([
    ['0', false],
    ['1', true],
    ['300', true],
    ['301', false],
    ['2.5', false],
    ['ten', false],
  ])('IDENTITY_MAX_AGE_SECONDS=%s is accepted: %s (whole seconds, 1 to 300)', (value, ok) => {
    const parse = () => parseConfig(BaseServiceEnv, { STRATUM_IDENTITY_SECRET: SECRET, IDENTITY_MAX_AGE_SECONDS: value });
    if (ok) expect(parse().IDENTITY_MAX_AGE_SECONDS).toBe(Number(value));
    else expect(parse).toThrow(/IDENTITY_MAX_AGE_SECONDS/);
  });

  it('refuses an empty MONGODB_URI or database and a LOG_LEVEL pino does not have', () => {
    for (const bad of [{ MONGODB_URI: '' }, { MONGODB_DATABASE: '' }, { LOG_LEVEL: 'verbose' }]) {
      expect(() => parseConfig(BaseServiceEnv, { STRATUM_IDENTITY_SECRET: SECRET, ...bad })).toThrow(Object.keys(bad)[0]);
    }
  });
});

describe('parseConfig', () => {
  it('lists every invalid key in one error, one line each', () => {
    const env = { IDENTITY_MAX_AGE_SECONDS: '0', LOG_LEVEL: 'loud' };
    let message = '';
    try {
      parseConfig(BaseServiceEnv, env);
    } catch (err) {
      message = (err as Error).message;
    }
    const lines = message.split('\n');
    expect(lines[0]).toBe('invalid configuration:');
    expect(lines.slice(1).map((l) => l.trim().split(':')[0])).toEqual(['STRATUM_IDENTITY_SECRET', 'IDENTITY_MAX_AGE_SECONDS', 'LOG_LEVEL']);
  });

  it("returns a frozen object with a service's own keys over the base", () => {
    const Env = BaseServiceEnv.extend({ PORT: z.coerce.number().int().default(8080) });
    const config = parseConfig(Env, { STRATUM_IDENTITY_SECRET: SECRET, PORT: '9000', UNRELATED: 'x' });
    expect(config.PORT).toBe(9000);
    expect(config).not.toHaveProperty('UNRELATED');
    expect(Object.isFrozen(config)).toBe(true);
  });
});
