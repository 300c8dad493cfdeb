import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../lib/config.js';
import { openApiDocument } from './document.js';

/** Writes the OpenAPI document to the file named on the command line (for `redocly lint` in CI). */
const document = openApiDocument({ authPrefix: loadConfig().AUTH_PATH_PREFIX });
const file = process.argv[2] ?? 'openapi.json';
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
