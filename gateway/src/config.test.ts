/** Parsing the gateway's settings (zod): defaults, the keys shared with the services, and refused values. */
import { BaseServiceEnv } from '@stratum/http-kit';
import { GatewayEnv, loadConfig, RateLimit } from './config';

const SECRET = 'x'.repeat(16);
/** The least a valid environment holds: the secret and one token source. */
const minimal = { STRATUM_IDENTITY_SECRET: SECRET, TOKENS_FILE: '/etc/stratum/tokens.json' };
/** The message loadConfig throws for `env`, or '' when it parses. */
const failure = (env: NodeJS.ProcessEnv): string => {
  try {
    loadConfig(env);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('loadConfig', () => {
  it('fills every default from a minimal environment, frozen', () => {
    const c = loadConfig(minimal);
    expect(c).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 8780,
      EVENT_QUERY_URL: ['http://127.0.0.1:8781'],
      LBAAS_QUOTA_URL: ['http://127.0.0.1:8782'],
      DOMAIN_QUOTA_URL: ['http://127.0.0.1:8783'],
      UPSTREAM_COOLDOWN_MS: 2000,
      UPSTREAM_CONNECT_TIMEOUT_MS: 2000,
      PUBLIC_URL: '',
      TRUSTED_PROXIES: null,
      REDIS_URL: '',
      TOKEN_CACHE_SECONDS: 300,
      TOKEN_NEGATIVE_CACHE_SECONDS: 5,
      TOKEN_CACHE_MAX_ENTRIES: 10_000,
      RATE_LIMIT_PER_PROJECT: null,
      RATE_LIMIT_PER_TOKEN: null,
      RATE_LIMIT_SIGN_IN_PER_ADDRESS: { points: 30, seconds: 60 },
      RATE_LIMIT_SIGN_IN_PER_USER: { points: 10, seconds: 60 },
      UPSTREAM_TIMEOUT_MS: 30_000,
      MAX_BODY_BYTES: 1_048_576,
      METRICS_PORT: null,
      LOG_LEVEL: 'info',
    });
    expect(c.RATE_LIMIT_EVENT_PER_PROJECT).toBeUndefined();
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("reads the keys it shares with the services with the services' own rules", () => {
    for (const key of ['HOST', 'STRATUM_IDENTITY_SECRET', 'REDIS_URL', 'LOG_LEVEL'] as const) {
      expect([key, GatewayEnv.shape[key]]).toEqual([key, BaseServiceEnv.shape[key]]);
    }
    expect(Object.keys(GatewayEnv.shape)).not.toContain('MONGODB_URI');
  });

  it("reads the sign-in limits, '0' or empty turning one off", () => {
    const c = loadConfig({ ...minimal, RATE_LIMIT_SIGN_IN_PER_ADDRESS: '100/30', RATE_LIMIT_SIGN_IN_PER_USER: '0' });
    expect([c.RATE_LIMIT_SIGN_IN_PER_ADDRESS, c.RATE_LIMIT_SIGN_IN_PER_USER]).toEqual([{ points: 100, seconds: 30 }, null]);
    expect(loadConfig({ ...minimal, RATE_LIMIT_SIGN_IN_PER_ADDRESS: '' }).RATE_LIMIT_SIGN_IN_PER_ADDRESS).toBeNull();
  });

  it('coerces numbers and parses the trusted proxies', () => {
    const c = loadConfig({ ...minimal, PORT: '9000', METRICS_PORT: '9100', TRUSTED_PROXIES: '10.0.0.0/8, ::1' });
    expect(c.PORT).toBe(9000);
    expect(c.METRICS_PORT).toBe(9100);
    expect(c.TRUSTED_PROXIES?.check('10.1.2.3', 'ipv4')).toBe(true);
    expect(c.TRUSTED_PROXIES?.check('11.1.2.3', 'ipv4')).toBe(false);
  });

  it.each([
    [{ STRATUM_IDENTITY_SECRET: 'short' }, 'STRATUM_IDENTITY_SECRET: STRATUM_IDENTITY_SECRET must be at least 16 characters'],
    [{ PORT: '65536' }, 'PORT:'],
    [{ PORT: 'http' }, 'PORT:'],
    [{ METRICS_PORT: '-1' }, 'METRICS_PORT: METRICS_PORT must be a port number or empty'],
    [{ EVENT_QUERY_URL: 'not a url' }, 'EVENT_QUERY_URL: expected one or more http(s) URLs separated by commas'],
    [{ LBAAS_QUOTA_URL: 'http://a:1,ftp://b:1' }, 'LBAAS_QUOTA_URL: expected one or more http(s) URLs'],
    [{ DOMAIN_QUOTA_URL: ' , ' }, 'DOMAIN_QUOTA_URL: expected one or more http(s) URLs'],
    [{ DOMAIN_QUOTA_URL: 'http://a:1,http://a:1' }, 'DOMAIN_QUOTA_URL: a replica is listed twice'],
    [{ UPSTREAM_COOLDOWN_MS: '-1' }, 'UPSTREAM_COOLDOWN_MS:'],
    [{ UPSTREAM_CONNECT_TIMEOUT_MS: '5' }, 'UPSTREAM_CONNECT_TIMEOUT_MS:'],
    [{ PUBLIC_URL: 'https://api.example.com/?x=1' }, 'PUBLIC_URL: expected an absolute http(s) URL'],
    [{ PUBLIC_URL_LBAAS: 'ftp://api.example.com' }, 'PUBLIC_URL_LBAAS: expected an absolute http(s) URL'],
    [{ PUBLIC_URL: 'https://user:pw@api.example.com' }, 'PUBLIC_URL: expected an absolute http(s) URL'],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, 'TRUSTED_PROXIES: TRUSTED_PROXIES: "10.0.0.0/33" is not an IP address or CIDR block'],
    [{ RATE_LIMIT_PER_TOKEN: '10/0' }, 'RATE_LIMIT_PER_TOKEN: expected <requests>/<seconds> (e.g. 600/60) or 0, got "10/0"'],
    [{ RATE_LIMIT_SIGN_IN_PER_USER: 'ten' }, 'RATE_LIMIT_SIGN_IN_PER_USER: expected <requests>/<seconds>'],
    [{ UPSTREAM_TIMEOUT_MS: '99' }, 'UPSTREAM_TIMEOUT_MS:'],
    [{ MAX_BODY_BYTES: '0' }, 'MAX_BODY_BYTES:'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL:'],
  ])('refuses %o', (bad, message) => {
    expect(failure({ ...minimal, ...bad })).toContain(message);
  });

  it('reads an upstream as a comma-separated list of replicas (one URL is a list of one)', () => {
    const c = loadConfig({ ...minimal, LBAAS_QUOTA_URL: ' http://lb-1:8782 , http://lb-2:8782/,', EVENT_QUERY_URL: 'https://events' });
    expect(c.LBAAS_QUOTA_URL).toEqual(['http://lb-1:8782', 'http://lb-2:8782/']);
    expect(c.EVENT_QUERY_URL).toEqual(['https://events']);
  });

  it('needs exactly one token source, and the service user with Keystone', () => {
    expect(failure({ STRATUM_IDENTITY_SECRET: SECRET })).toContain(
      'KEYSTONE_URL: set exactly one of KEYSTONE_URL (Keystone tokens) and TOKENS_FILE (static tokens)',
    );
    expect(failure({ ...minimal, KEYSTONE_URL: 'http://keystone:5000/v3' })).toContain('KEYSTONE_URL: set exactly one of');
    expect(failure({ STRATUM_IDENTITY_SECRET: SECRET, KEYSTONE_URL: 'http://keystone:5000/v3' })).toContain(
      'KEYSTONE_USERNAME: KEYSTONE_USERNAME and KEYSTONE_PASSWORD (the service user) are required with KEYSTONE_URL',
    );
    const keystone = {
      STRATUM_IDENTITY_SECRET: SECRET,
      KEYSTONE_URL: 'http://keystone:5000/v3',
      KEYSTONE_USERNAME: 'u',
      KEYSTONE_PASSWORD: 'p',
    };
    expect(failure(keystone)).toBe('');
  });
});

describe('RateLimit', () => {
  it.each([
    ['600/60', { points: 600, seconds: 60 }],
    [' 1/1 ', { points: 1, seconds: 1 }],
    ['0', null],
    ['', null],
  ])('parses %j', (text, limit) => {
    expect(RateLimit.parse(text)).toEqual(limit);
  });

  it.each(['0/60', '600', '600/', '-1/60', '1.5/60', '600/60/1', 'a/b'])('refuses %j', (text) => {
    expect(RateLimit.safeParse(text).success).toBe(false);
  });
});
