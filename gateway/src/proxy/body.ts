/**
 * The body the gateway forwards: read whole and decoded, so that the signed digest covers exactly the bytes the
 * service receives and the service reads no Content-Encoding.
 */
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { AppError } from '@stratum/http-kit';
import { bodyDigest, EMPTY_BODY_SHA256 } from '@stratum/identity';
import { bodyNotDecodable, bodyTooLarge, requestAborted, unsupportedEncoding } from '../errors';
import type { Forward } from '../pipeline';

/** The decoder of each Content-Encoding the gateway accepts on a request body (those body-parser reads). */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** A request body read whole, or the client error that stopped the read (errors.ts). */
export type BodyRead = { ok: true; body: Buffer } | { ok: false; error: AppError };

/**
 * The decoder for a Content-Encoding header value: undefined for none (`identity` or empty), null for one the
 * gateway does not accept.
 */
function decoderFor(coding: string): Transform | undefined | null {
  if (coding === 'identity' || coding === '') return undefined;
  const make = Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined;
  return make ? make() : null;
}

/**
 * Reads a request body whole, undoing its Content-Encoding (gzip, deflate, br), at most `limit` bytes both as sent
 * and once decoded (so a small gzip body that inflates past the limit is a 413, as body-parser's limit counts
 * decoded bytes). Garbage that does not decode is a 400, an encoding not listed a 415.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder = decoderFor(coding);
  if (decoder === null) return Promise.resolve({ ok: false, error: unsupportedEncoding(coding) });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let sent = 0;
    let size = 0;
    let done = false;
    const finish = (result: BodyRead) => {
      if (done) return;
      done = true;
      if (decoder) {
        req.unpipe(decoder);
        decoder.destroy();
      }
      resolve(result);
    };
    const tooLarge = () => finish({ ok: false, error: bodyTooLarge(limit) });
    const out: NodeJS.ReadableStream = decoder ? req.pipe(decoder) : req;
    if (decoder) {
      req.on('data', (chunk: Buffer) => {
        sent += chunk.length;
        if (sent > limit) tooLarge();
      });
      decoder.on('error', () => finish({ ok: false, error: bodyNotDecodable(coding) }));
    }
    out.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge();
      else chunks.push(chunk);
    });
    out.on('end', () => finish({ ok: true, body: Buffer.concat(chunks, size) }));
    const aborted = () => finish({ ok: false, error: requestAborted() });
    req.on('error', aborted);
    req.once('close', () => {
      if (!req.complete) aborted();
    });
  });
}

const NO_BODY: Pick<Forward, 'body' | 'digest'> = { body: undefined, digest: EMPTY_BODY_SHA256 };

/** The body to forward and its digest, or the client error that stopped the read. */
export type ForwardedBody = { ok: true; forward: Pick<Forward, 'body' | 'digest'> } | { ok: false; error: AppError };

/**
 * The body to forward and its digest. A request without one (nearly every GET) costs nothing here; one with a body
 * is read whole and decoded (readBody), and its headers are set to what is forwarded: no Transfer-Encoding or
 * Content-Encoding, the decoded Content-Length.
 */
export async function forwardedBody(req: IncomingMessage, limit: number): Promise<ForwardedBody> {
  const h = req.headers;
  if (h['transfer-encoding'] === undefined && (h['content-length'] === undefined || h['content-length'] === '0')) {
    if (h['content-encoding'] !== undefined) delete h['content-encoding'];
    return { ok: true, forward: NO_BODY };
  }
  const read = await readBody(req, limit);
  if (!read.ok) return read;
  delete h['transfer-encoding'];
  delete h['content-encoding'];
  h['content-length'] = String(read.body.length);
  return { ok: true, forward: read.body.length === 0 ? NO_BODY : { body: read.body, digest: bodyDigest(read.body) } };
}
