import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router } from 'express';
import { methodNotAllowed } from '../request-input.js';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * GET /docs: Swagger UI from the swagger-ui-dist package (served here, no CDN), reading the
 * OpenAPI document. Every URL is relative to the page, so it works behind a path prefix;
 * Authorize gets a token through the document's OAuth2 flows and is kept across reloads.
 */
/**
 * persistAuthorization stores Swagger UI's whole auth state in local storage, the password
 * and client secret typed into Authorize included: only the token is kept (docs/security.md).
 */
const DOCS_INIT = `const setItem = Storage.prototype.setItem;
Storage.prototype.setItem = function (key, value) {
  if (key === 'authorized') {
    const auths = JSON.parse(value);
    for (const auth of Object.values(auths)) { delete auth.password; delete auth.clientSecret; }
    value = JSON.stringify(auths);
  }
  return setItem.call(this, key, value);
};
window.ui = SwaggerUIBundle({ url: new URL('openapi.json', document.baseURI).href, dom_id: '#swagger-ui', persistAuthorization: true, deepLinking: true });
`;

export function docsPage(): Router {
  const router = Router();
  router.get('/docs', (req, res) => {
    // `/docs/` would make the relative URLs below point into /docs/.
    if (req.path.endsWith('/')) return res.redirect(301, '../docs');
    res.type('html').send(`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Ticketing API</title>
  <link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script src="docs/assets/docs-init.js"></script>
</body>
</html>`);
  });
  router.all('/docs', methodNotAllowed(['GET', 'HEAD']));
  router.get('/docs/assets/docs-init.js', (_req, res) => {
    res.type('application/javascript').send(DOCS_INIT);
  });
  router.use('/docs/assets', express.static(swaggerUiDir, { index: false, maxAge: '1h' }));
  return router;
}
