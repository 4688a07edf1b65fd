/**
 * The console's sign-in request, `POST /console/auth/tokens`: Keystone's own v3 password-auth body
 * (`POST /v3/auth/tokens`, docs/api/README.md "Authentication"), reduced to what the console sends. Only the
 * `password` method, a user named within a domain, and an explicit scope: a project (by id, or by name within a
 * domain), a domain, or the system. Every object is strict (an unknown key, `__proto__` and `constructor` included,
 * is refused), names are at most 255 characters and passwords at most 4096 (Keystone's own limits), and no text may
 * hold control characters (http-kit hasUnsafeChars for names and ids; Unicode `Cc` for the password).
 */
import { hasUnsafeChars } from '@stratum/http-kit';
import { z } from 'zod';

/** Keystone's limit on user, project and domain names. */
const MAX_NAME_LENGTH = 255;
/** Keystone's limit on a password (`[identity] max_password_length`). */
const MAX_PASSWORD_LENGTH = 4096;
/** Keystone's ids are at most 64 characters. */
const MAX_ID_LENGTH = 64;

const CONTROL = /\p{Cc}/u;

/** Non-empty text of at most `max` characters without control or format characters. */
const text = (max: number) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !hasUnsafeChars(s), 'must not contain control or format characters');
/** A user, project or domain name. */
const Name = text(MAX_NAME_LENGTH);
/** A project or domain id. */
const Id = text(MAX_ID_LENGTH);
/** The password: any printable text (spaces and non-ASCII letters included), never echoed in an error. */
const Password = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`)
  .refine((s) => !CONTROL.test(s), 'must not contain control characters');

/** A domain, by name or by id (exactly one). */
const DomainRef = z.union([z.strictObject({ name: Name }), z.strictObject({ id: Id })]);

/** `scope`: a project by name within a domain, or by id; a domain; or the whole system (cloud admin). */
const SignInScope = z.union([
  z.strictObject({ project: z.strictObject({ name: Name, domain: DomainRef }) }),
  z.strictObject({ project: z.strictObject({ id: Id }) }),
  z.strictObject({ domain: DomainRef }),
  z.strictObject({ system: z.strictObject({ all: z.literal(true) }) }),
]);

/** The request body, exactly as Keystone's `POST /v3/auth/tokens` takes it (the gateway forwards it unchanged). */
export const SignInBody = z
  .strictObject({
    auth: z.strictObject({
      identity: z.strictObject({
        methods: z.tuple([z.literal('password')], 'must be ["password"]: the only method offered'),
        password: z.strictObject({
          user: z.strictObject({ name: Name, domain: DomainRef, password: Password }),
        }),
      }),
      scope: SignInScope,
    }),
  })
  .meta({ id: 'SignInRequest' });
export type SignInBody = z.infer<typeof SignInBody>;

/**
 * The key of the per-user rate limit: the user's domain (`id:` or `name:` and its value) and name, lower-cased, so
 * `Admin` and `admin` share one count, as Keystone's SQL backend compares names case-insensitively.
 */
export function userKey(body: SignInBody): string {
  const { name, domain } = body.auth.identity.password.user;
  const d = 'id' in domain ? `id:${domain.id}` : `name:${domain.name}`;
  return `${d}/${name}`.toLowerCase();
}

/** The answer's body: the issued token without its catalog (Keystone's `token`, reduced). */
export const SignInToken = z
  .object({
    token: z.object({
      expires_at: z.string(),
      issued_at: z.string().optional(),
      methods: z.array(z.string()).optional(),
      user: z.object({
        id: z.string(),
        name: z.string().optional(),
        domain: z.object({ id: z.string(), name: z.string().optional() }).optional(),
      }),
      roles: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
      project: z
        .object({ id: z.string(), name: z.string().optional(), domain: z.object({ id: z.string(), name: z.string().optional() }) })
        .optional(),
      domain: z.object({ id: z.string(), name: z.string().optional() }).optional(),
      system: z.object({ all: z.boolean().optional() }).optional(),
    }),
  })
  .meta({ id: 'SignInToken' });
export type SignInToken = z.infer<typeof SignInToken>;

/** `GET /console/auth`: the ways to sign in this gateway offers (`password` only with Keystone). */
export const SignInMethods = z.object({ methods: z.array(z.enum(['token', 'password'])) }).meta({ id: 'SignInMethods' });
export type SignInMethods = z.infer<typeof SignInMethods>;

/**
 * `GET /console/auth/tokens`: who the caller's own token stands for, from the identity the gateway validated it to
 * (sign-in.presenter.ts `callerToken`). `scope` is derived from that identity (sign-in.presenter.ts `scopeOf`).
 */
export const CallerToken = z
  .object({
    token: z.object({
      user: z.object({ id: z.string() }),
      project: z
        .object({
          id: z.string(),
          domain: z.object({ id: z.string() }).nullable().describe("the project's domain, when the token names it"),
        })
        .nullable()
        .describe('the project of a project-scoped token, else null'),
      domain: z.object({ id: z.string() }).nullable().describe('the domain of a domain-scoped token, else null'),
      roles: z.array(z.object({ name: z.string() })).describe('role names, lower-cased; none for an unscoped token'),
      scope: z.enum(['project', 'domain', 'system', 'unscoped']),
    }),
  })
  .meta({
    id: 'CallerToken',
    example: {
      token: { user: { id: 'b4f0c1d2' }, project: null, domain: { id: 'a1b2c3d4' }, roles: [{ name: 'admin' }], scope: 'domain' },
    },
  });
export type CallerToken = z.infer<typeof CallerToken>;
