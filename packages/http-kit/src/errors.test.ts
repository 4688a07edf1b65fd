import {
  MongoBulkWriteError,
  MongoError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';
import {
  AppError,
  reasonPhrase,
  renderKeystoneError,
  renderOctaviaError,
  renderPankoError,
  UNAUTHENTICATED,
  unauthenticated,
} from './app-error';
import { classify, isStoreDown } from './errors';

/** What `insertMany` throws when the connection drops mid-batch: a bulk write error made from the network error. */
const bulkOverNetwork = () => new MongoBulkWriteError(new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed'), {} as never);

describe('isStoreDown', () => {
  it.each([
    ['a server selection timeout', new MongoServerSelectionError('Server selection timed out after 2000 ms', {} as never)],
    ['a network error', new MongoNetworkError('connection refused')],
    ['a bulk write cut off by the network', bulkOverNetwork()],
    ['InterruptedAtShutdown (11600)', new MongoServerError({ message: 'interrupted at shutdown', code: 11600 })],
    ['ShutdownInProgress (91)', new MongoServerError({ message: 'shutdown in progress', code: 91 })],
    ['PrimarySteppedDown (189)', new MongoServerError({ message: 'stepped down', code: 189 })],
    ['a RetryableWriteError label', new MongoServerError({ message: 'x', code: 1, errorLabels: ['RetryableWriteError'] })],
    ['a ResetPool label', new MongoServerError({ message: 'x', code: 1, errorLabels: ['ResetPool'] })],
    [
      'a write concern error from a server shutting down',
      new MongoBulkWriteError(new MongoWriteConcernError({ writeConcernError: { code: 91, errmsg: 'shutdown' } } as never), {} as never),
    ],
    ['our own error caused by a driver one', new Error('edit failed', { cause: new MongoNetworkError('reset') })],
    ['a driver error caused by a socket error', new MongoError('x', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) })],
  ])('is true for %s', (_name, err) => {
    expect(isStoreDown(err)).toBe(true);
    expect(classify(err)).toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
  });

  it.each([
    ['a duplicate key', new MongoServerError({ message: 'E11000 duplicate key', code: 11000 })],
    ['a bulk write with a duplicate key', new MongoBulkWriteError({ message: 'E11000', code: 11000, writeErrors: [] }, {} as never)],
    ['a plain error', new Error('boom')],
    ['a socket error outside the driver', Object.assign(new Error('x'), { code: 'ECONNREFUSED' })],
    ['a shutdown code outside the driver', Object.assign(new Error('x'), { code: 91 })],
    ['a driver error of another kind', new MongoServerError({ message: 'not authorized', code: 13 })],
    ['a primitive', 'store down'],
    ['null', null],
    [
      'a cycle of causes',
      (() => {
        const a = new Error('a');
        const b = new Error('b', { cause: a });
        (a as { cause?: unknown }).cause = b;
        return a;
      })(),
    ],
  ])('is false for %s', (_name, err) => {
    expect(isStoreDown(err)).toBe(false);
  });
});

describe('classify', () => {
  it('keeps an AppError as thrown', () => {
    expect(classify(new AppError(409, 'conflict'))).toMatchObject({ status: 409, message: 'conflict' });
  });

  it("maps express's URIError for a malformed path parameter to 400", () => {
    const err = Object.assign(new URIError("Failed to decode param '%ZZ'"), { status: 400, statusCode: 400 });
    expect(classify(err)).toEqual({ status: 400, message: 'The request path is not valid percent-encoding.' });
  });

  it("maps body-parser's 400 around a zlib error (garbage Content-Encoding) to 400, without zlib's words", () => {
    const err = Object.assign(new Error('incorrect header check'), { errno: -3, code: 'Z_DATA_ERROR', status: 400, expose: true });
    expect(classify(err)).toEqual({ status: 400, message: 'The request body could not be decoded (Content-Encoding).' });
  });

  it('keeps any other 4xx status an error carries, with a generic message; anything else is a 500', () => {
    expect(classify(Object.assign(new Error('secret detail'), { status: 418 }))).toEqual({
      status: 418,
      message: "The request could not be processed: I'm a Teapot.",
    });
    expect(classify(Object.assign(new Error('x'), { status: 502 })).status).toBe(500);
    expect(classify(new Error('x')).status).toBe(500);
  });

  it('keeps the details and headers of an AppError', () => {
    const err = new AppError(400, 'bad', [{ field: 'x' }], { 'Retry-After': '3' });
    expect(classify(err)).toEqual({ status: 400, message: 'bad', details: [{ field: 'x' }], headers: { 'Retry-After': '3' } });
  });

  it.each([
    ['entity.parse.failed', 400, 'Request is not in valid JSON format'],
    ['entity.too.large', 413, 'Request body is too large.'],
    ['encoding.unsupported', 415, 'Unsupported request body encoding.'],
    ['charset.unsupported', 415, 'Unsupported request body encoding.'],
    ['request.aborted', 400, 'Request aborted.'],
  ])("maps body-parser's %s to %i with its own message", (type, status, message) => {
    const err = Object.assign(new Error('parser detail'), { type, status: 400, expose: true });
    expect(classify(err)).toEqual({ status, message });
  });

  it('reads `statusCode` when there is no `status`, and takes only whole 4xx numbers', () => {
    expect(classify(Object.assign(new Error('x'), { statusCode: 404 }))).toEqual({
      status: 404,
      message: 'The request could not be processed: Not Found.',
    });
    expect(classify(Object.assign(new Error('x'), { status: 404.5 })).status).toBe(500);
    expect(classify(Object.assign(new Error('x'), { status: '404' })).status).toBe(500);
    expect(classify(null).status).toBe(500);
  });

  it("maps a store outage to 503 with its own message, never the driver's", () => {
    expect(classify(new MongoNetworkError('connect ECONNREFUSED 10.0.0.7:27017'))).toEqual({
      status: 503,
      message: 'The document store is unavailable; try again shortly.',
      headers: { 'Retry-After': '1' },
    });
  });
});

describe('unauthenticated', () => {
  it("is a 401 with Keystone's text", () => {
    const err = unauthenticated();
    expect(err).toBeInstanceOf(AppError);
    expect(err.status).toBe(401);
    expect(err.message).toBe('The request you have made requires authentication.');
    expect(UNAUTHENTICATED).toBe(err.message);
  });
});

describe('error renderers', () => {
  it("write Panko's, Octavia's and Keystone's bodies; 5xx is the server's fault", () => {
    expect(renderPankoError(404, 'gone')).toEqual({ error_message: { faultcode: 'Client', faultstring: 'gone', debuginfo: null } });
    expect(renderPankoError(503, 'down')).toEqual({ error_message: { faultcode: 'Server', faultstring: 'down', debuginfo: null } });
    expect(renderOctaviaError(409, 'busy')).toEqual({ faultcode: 'Client', faultstring: 'busy', debuginfo: null });
    expect(renderOctaviaError(500, 'oops')).toMatchObject({ faultcode: 'Server' });
    expect(renderKeystoneError(403, 'no')).toEqual({ error: { code: 403, title: 'Forbidden', message: 'no' } });
  });

  it("Keystone's body carries details only when there are some", () => {
    expect(renderKeystoneError(400, 'bad', [])).toEqual({ error: { code: 400, title: 'Bad Request', message: 'bad' } });
    expect(renderKeystoneError(400, 'bad', [{ field: 'cores' }])).toEqual({
      error: { code: 400, title: 'Bad Request', message: 'bad', details: [{ field: 'cores' }] },
    });
  });

  it('names a status node does not know `Error`', () => {
    expect(reasonPhrase(429)).toBe('Too Many Requests');
    expect(reasonPhrase(599)).toBe('Error');
  });
});
