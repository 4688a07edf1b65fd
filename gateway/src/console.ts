/**
 * The operator console's static files (gateway/console, built to gateway/console/dist) at `/console/`: public, as
 * the page itself holds no data — every data call it makes goes through the API with the signed-in token. Never
 * proxied; GET and HEAD only; a strict Content-Security-Policy (scripts, styles and connections to this origin only,
 * no inline script). The console's sign-in routes (`/console/auth`, `/console/auth/tokens`: sign-in/) are mounted
 * before this handler (public-routes.ts).
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import { methodNotAllowed, notFound } from './errors';

/** Where the console is served. */
const CONSOLE_PATH = '/console';

/**
 * The page's policy: everything from this origin only; no inline script or style element (lit adopts its styles as
 * constructable style sheets, which the policy does not govern; no style attribute either: the console sets widths
 * through the CSSOM, never lit's styleMap, which writes an attribute on first render); no framing, plugins or foreign
 * form targets.
 */
const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The built console: CONSOLE_DIR, else gateway/console/dist beside this package. */
export function consoleDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.CONSOLE_DIR || join(__dirname, '..', 'console', 'dist'));
}

/** Whether `path` is the console's (`/console` or under `/console/`). */
const isConsolePath = (path: string): boolean => path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);

/**
 * Express middleware serving `dir` at /console/. `/console` redirects to `/console/` (the page's asset links are
 * relative); `/console/` is index.html; any other path is a file of `dir` or a 404 — a path with a `..` segment, a
 * NUL or a backslash never reaches the disk (404).
 */
export function consoleHandler(dir: string) {
  const root = resolve(dir);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (!isConsolePath(req.path)) {
      next();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next(methodNotAllowed());
      return;
    }
    res.set({
      'Content-Security-Policy': CONSOLE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    });
    if (req.path === CONSOLE_PATH) {
      const q = req.originalUrl.indexOf('?');
      res.redirect(301, `${CONSOLE_PATH}/${q < 0 ? '' : req.originalUrl.slice(q)}`);
      return;
    }
    let rel: string;
    try {
      rel = decodeURIComponent(req.path.slice(CONSOLE_PATH.length + 1));
    } catch {
      next(notFound());
      return;
    }
    if (rel === '') rel = 'index.html';
    const segments = rel.split('/');
    if (rel.includes('\0') || rel.includes('\\') || segments.some((s) => s === '..' || s === '.' || s === '')) {
      next(notFound());
      return;
    }
    const file = join(root, ...segments);
    if (!file.startsWith(root + sep)) {
      next(notFound());
      return;
    }
    try {
      const st = await stat(file);
      if (!st.isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.type(TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream');
      // Vite names assets by content hash: cacheable for good; index.html must be fetched again to see a new build.
      res.set('Cache-Control', segments[0] === 'assets' ? 'public, max-age=31536000, immutable' : 'no-cache');
      res.status(200).send(body);
    } catch {
      next(notFound());
    }
  };
}
