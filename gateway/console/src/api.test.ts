/**
 * The API client's pure parts (api.ts): an error body's text in every group's shape (docs/api/README.md "Errors"),
 * ApiError's message, and Keystone's password-auth body.
 */
import { z } from 'zod';
import { ApiError, errorMessage, errorText, keystoneAuthBody } from './api';

describe('errorText', () => {
  it("reads Keystone's and group C's body: error.message", () => {
    expect(
      errorText({
        error: { code: 409, title: 'Conflict', message: 'The quota is below the allocated amount.', details: [{ item: 'ram' }] },
      }),
    ).toBe('The quota is below the allocated amount.');
    expect(errorText({ error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } })).toBe(
      'The request you have made requires authentication.',
    );
  });

  it('reads an error given as a string', () => {
    expect(errorText({ error: 'Not Found' })).toBe('Not Found');
  });

  it("reads Octavia's body: faultstring, else description", () => {
    expect(errorText({ faultcode: 'Client', faultstring: 'Quota for load_balancer is invalid.', debuginfo: null })).toBe(
      'Quota for load_balancer is invalid.',
    );
    expect(errorText({ faultcode: 'Server', faultstring: 'Service unavailable.', debuginfo: null })).toBe('Service unavailable.');
    expect(errorText({ description: 'The resource could not be found.' })).toBe('The resource could not be found.');
    // faultstring first when both are there.
    expect(errorText({ faultstring: 'first', description: 'second' })).toBe('first');
  });

  it("reads Panko's body: error_message.faultstring", () => {
    expect(errorText({ error_message: { faultcode: 'Client', faultstring: 'Marker 4f0e not found.', debuginfo: null } })).toBe(
      'Marker 4f0e not found.',
    );
  });

  it("reads Panko's error_message given as a string, parsing JSON in it", () => {
    expect(errorText({ error_message: JSON.stringify({ faultcode: 'Client', faultstring: 'Unknown argument: "x"' }) })).toBe(
      'Unknown argument: "x"',
    );
    expect(errorText({ error_message: JSON.stringify({ error_message: { faultstring: 'nested' } }) })).toBe('nested');
    expect(errorText({ error_message: 'Invalid input for field/attribute limit.' })).toBe('Invalid input for field/attribute limit.');
    // JSON that is no error body keeps the text itself rather than losing the message.
    expect(errorText({ error_message: '42' })).toBe('42');
    expect(errorText({ error_message: 'null' })).toBe('null');
    expect(errorText({ error_message: '{"unrelated": 1}' })).toBe('{"unrelated": 1}');
  });

  it('reads a plain message member', () => {
    expect(errorText({ message: 'Too many requests' })).toBe('Too many requests');
  });

  it('gives plain text as is, trimmed', () => {
    expect(errorText('  Bad Gateway\n')).toBe('Bad Gateway');
    expect(errorText('<html>502</html>')).toBe('<html>502</html>');
  });

  it('gives nothing for an empty or unknown body', () => {
    expect(errorText(undefined)).toBe('');
    expect(errorText(null)).toBe('');
    expect(errorText('')).toBe('');
    expect(errorText('   ')).toBe('');
    expect(errorText({})).toBe('');
    expect(errorText([{ message: 'in an array' }])).toBe('');
    expect(errorText(503)).toBe('');
    expect(errorText({ error: { message: 404 } })).toBe('');
    expect(errorText({ faultstring: 5, description: null })).toBe('');
  });

  it('reads a JSON body\'s own "__proto__" member as no message', () => {
    expect(errorText(JSON.parse('{"__proto__": {"message": "polluted"}}'))).toBe('');
    expect(errorText(JSON.parse('{"constructor": {"message": "x"}}'))).toBe('');
  });
});

describe('ApiError', () => {
  it("carries the body's text as its message, else the status", () => {
    const e = new ApiError(409, { error: { message: 'Precondition failed' } }, 3);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('ApiError');
    expect(e.message).toBe('Precondition failed');
    expect(e.status).toBe(409);
    expect(e.retryAfter).toBe(3);
    expect(new ApiError(503, undefined).message).toBe('HTTP 503');
    expect(new ApiError(502, '').message).toBe('HTTP 502');
    expect(new ApiError(500, undefined).retryAfter).toBeUndefined();
  });
});

describe('keystoneAuthBody', () => {
  const user = { username: 'alice', password: 's3cret', userDomain: 'Default' };

  it('asks for a project scope by name within a domain', () => {
    expect(keystoneAuthBody({ ...user, scope: { kind: 'project', name: 'ops', domain: 'Default' } })).toEqual({
      auth: {
        identity: { methods: ['password'], password: { user: { name: 'alice', domain: { name: 'Default' }, password: 's3cret' } } },
        scope: { project: { name: 'ops', domain: { name: 'Default' } } },
      },
    });
  });

  it('asks for a domain or the system scope', () => {
    expect((keystoneAuthBody({ ...user, scope: { kind: 'domain', name: 'acme' } }) as { auth: { scope: unknown } }).auth.scope).toEqual({
      domain: { name: 'acme' },
    });
    expect((keystoneAuthBody({ ...user, scope: { kind: 'system' } }) as { auth: { scope: unknown } }).auth.scope).toEqual({
      system: { all: true },
    });
  });
});

describe('errorMessage', () => {
  it("gives the API's text, a shape error as unexpected, else the exception's", () => {
    expect(errorMessage(new ApiError(409, { faultstring: 'Quota is below usage.' }))).toBe('Quota is below usage.');
    expect(errorMessage(new ApiError(503, undefined))).toBe('HTTP 503');
    expect(errorMessage(z.string().safeParse(1).error)).toBe('Unexpected answer from the API.');
    expect(errorMessage(new TypeError('Failed to fetch'))).toBe('Failed to fetch');
    expect(errorMessage('plain')).toBe('plain');
  });
});
