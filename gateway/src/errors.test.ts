/** The gateway's wire errors: each factory's status, text and headers, and the body in each group's shape. */
import { AppError } from '@stratum/http-kit';
import * as errors from './errors';

describe('error factories', () => {
  it.each([
    [
      errors.unauthenticated('https://api.example.com/identity'),
      401,
      'The request you have made requires authentication.',
      {
        'WWW-Authenticate': 'Keystone uri="https://api.example.com/identity"',
      },
    ],
    [errors.tokenCheckUnavailable(), 503, 'The identity service is unavailable.', { 'Retry-After': '5' }],
    [errors.bodyTooLarge(1024), 413, 'The request body is larger than 1024 bytes.', { Connection: 'close' }],
    [errors.unsupportedEncoding('compress'), 415, 'Unsupported Content-Encoding: compress.', { Connection: 'close' }],
    [errors.bodyNotDecodable('gzip'), 400, 'The request body is not valid gzip data.', { Connection: 'close' }],
    [errors.requestAborted(), 400, 'Request aborted.', { Connection: 'close' }],
    [errors.rateLimited('token', 7), 429, 'Rate limit exceeded for this token: retry in 7 s.', { 'Retry-After': '7' }],
    [errors.upstreamFailed('event query', 503), 503, 'The event query service is unavailable (Service Unavailable).', undefined],
    [errors.upstreamFailed('department quota', 504), 504, 'The department quota service is unavailable (Gateway Timeout).', undefined],
    [errors.methodNotAllowed(), 405, 'The method is not allowed for the requested URL.', { Allow: 'GET, HEAD' }],
    [errors.notFound(), 404, 'The resource could not be found.', undefined],
    [errors.headTooLarge(16_384), 431, 'The request line and headers are larger than 16384 bytes.', { Connection: 'close' }],
    [errors.requestTimeout(), 408, 'The request was not received in time.', undefined],
    [errors.methodNotAllowed('POST'), 405, 'The method is not allowed for the requested URL.', { Allow: 'POST' }],
    [errors.signInInvalid('auth.scope', 'Invalid input'), 400, "Invalid input for field 'auth.scope': Invalid input", undefined],
    [errors.signInMalformed(), 400, 'Expecting to find valid JSON in request body.', undefined],
    [errors.signInNotJson(), 415, 'The request body must be application/json.', undefined],
    [errors.signInNotOffered(), 404, 'Password sign-in is not offered: this gateway uses static tokens. Sign in with a token.', undefined],
  ])('%#: %p', (err, status, message, headers) => {
    expect(err).toBeInstanceOf(AppError);
    expect({ status: err.status, message: err.message, headers: err.headers }).toEqual({ status, message, headers });
  });

  it('echoes at most 64 characters of an unknown Content-Encoding', () => {
    expect(errors.unsupportedEncoding('x'.repeat(100)).message).toBe(`Unsupported Content-Encoding: ${'x'.repeat(64)}.`);
  });

  it('writes the 401 text once, shared by the token check and its constant', () => {
    expect(errors.unauthenticated('').message).toBe(errors.UNAUTHENTICATED);
    expect(errors.tokenCheckUnavailable('Keystone refused the service user.').message).toBe('Keystone refused the service user.');
  });
});

describe('errorBody', () => {
  const err = errors.rateLimited('project', 3);
  const message = 'Rate limit exceeded for this project: retry in 3 s.';

  it("renders in Panko's shape for the event group", () => {
    expect(JSON.parse(errors.errorBody('event', err))).toEqual({
      error_message: { faultcode: 'Client', faultstring: message, debuginfo: null },
    });
  });

  it("renders in Octavia's shape for the load balancer group", () => {
    expect(JSON.parse(errors.errorBody('lbaas', err))).toEqual({ faultcode: 'Client', faultstring: message, debuginfo: null });
  });

  it("renders in Keystone's shape for the department group and for the gateway's own paths", () => {
    const keystone = { error: { code: 429, title: 'Too Many Requests', message } };
    expect(JSON.parse(errors.errorBody('domain', err))).toEqual(keystone);
    expect(JSON.parse(errors.errorBody(undefined, err))).toEqual(keystone);
  });

  it('says Server for a 5xx', () => {
    expect(JSON.parse(errors.errorBody('lbaas', errors.internalError())).faultcode).toBe('Server');
  });
});
