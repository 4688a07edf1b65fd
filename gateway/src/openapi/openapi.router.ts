/**
 * Public documentation routes, mounted before the token check:
 *
 * - `GET /openapi.json`: the OpenAPI 3.1 document (openapi.document.ts), built on the first request and cached;
 * - `GET /docs`: the reference page, Swagger UI from the swagger-ui-dist package. Its assets are served from
 *   node_modules under `/docs/…`, so the page works offline (no CDN, no validator badge).
 */
import { dirname } from 'node:path';
import { Router } from 'express';
import { buildOpenApiDocument, DOCS_PATH, OPENAPI_PATH } from './openapi.document';

/** Files of swagger-ui-dist the page loads. */
const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'];

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Stratum API reference</title>
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" />
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`;

/** Swagger UI's start (a file, not an inline script, so a strict Content-Security-Policy can allow it). */
const INIT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  filter: true,
  validatorUrl: null,
});
`;

export function openapiRouter(): Router {
  const r = Router();
  let document: string | undefined;
  r.get(OPENAPI_PATH, (_req, res) => {
    document ??= JSON.stringify(buildOpenApiDocument());
    res.type('application/json').send(document);
  });
  r.get(DOCS_PATH, (_req, res) => {
    res.type('text/html').send(PAGE);
  });
  r.get(`${DOCS_PATH}/init.js`, (_req, res) => {
    res.type('text/javascript').send(INIT);
  });
  const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
  for (const file of ASSETS) {
    r.get(`${DOCS_PATH}/${file}`, (_req, res) => {
      // `root`: the dot-folder check of `send` then covers only `file` (pnpm keeps packages under node_modules/.pnpm).
      res.sendFile(file, { root: dist, maxAge: '1d' });
    });
  }
  return r;
}
