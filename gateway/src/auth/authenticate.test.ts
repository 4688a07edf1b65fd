/** Which token a request carries: `X-Auth-Token`, or on the ingest path only the HTTP Basic password. */
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { INGEST_PATH, resolve } from '../routes';
import { basicPassword, tokenOf } from './authenticate';

const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

function requestWith(headers: Record<string, string>): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.headers = headers;
  return req;
}

describe('basicPassword', () => {
  it('is the part after the first colon', () => {
    expect(basicPassword(basic('ceilometer:tok:en'))).toBe('tok:en');
    expect(basicPassword(basic(':secret'))).toBe('secret');
    expect(basicPassword(`basic  ${Buffer.from('u:p').toString('base64')}`)).toBe('p');
  });

  it('is undefined without a colon, without Basic, or without a header', () => {
    expect(basicPassword(basic('no-colon'))).toBeUndefined();
    expect(basicPassword('Bearer abc')).toBeUndefined();
    expect(basicPassword('Basic not base64!')).toBeUndefined();
    expect(basicPassword(undefined)).toBeUndefined();
  });
});

describe('tokenOf', () => {
  it('reads X-Auth-Token on any path, before the Basic password', () => {
    expect(tokenOf(requestWith({ 'x-auth-token': 't1' }), resolve('/v2/events'))).toBe('t1');
    expect(tokenOf(requestWith({ 'x-auth-token': 't1', authorization: basic('c:t2') }), resolve(INGEST_PATH))).toBe('t1');
  });

  it('reads the Basic password on the ingest path only, also under the group prefix', () => {
    expect(tokenOf(requestWith({ authorization: basic('c:t2') }), resolve(INGEST_PATH))).toBe('t2');
    expect(tokenOf(requestWith({ authorization: basic('c:t2') }), resolve(`/event${INGEST_PATH}`))).toBe('t2');
    expect(tokenOf(requestWith({ authorization: basic('c:t2') }), resolve('/v2/events'))).toBe('');
    expect(tokenOf(requestWith({ authorization: basic('c:t2') }), resolve('/projects/x'))).toBe('');
  });

  it('is empty without either', () => {
    expect(tokenOf(requestWith({}), resolve('/v2/events'))).toBe('');
  });
});
