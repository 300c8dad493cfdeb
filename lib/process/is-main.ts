import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** True when the module of `importMetaUrl` is the script node was started with (also through a bin symlink). */
export function isMain(importMetaUrl: string): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(importMetaUrl));
  } catch {
    return false;
  }
}
