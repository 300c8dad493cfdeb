import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router } from 'express';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** GET /docs: Swagger UI from the swagger-ui-dist package (served here, no CDN), reading /openapi.json. */
export function docsPage(): Router {
  const router = Router();
  router.get('/docs', (_req, res) => {
    res.type('html').send(`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Ticketing API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/docs-init.js"></script>
</body>
</html>`);
  });
  router.get('/docs/assets/docs-init.js', (_req, res) => {
    res.type('application/javascript').send("window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui' });\n");
  });
  router.use('/docs/assets', express.static(swaggerUiDir, { index: false, maxAge: '1h' }));
  return router;
}
