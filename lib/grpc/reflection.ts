import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoPath as healthProtoPath } from 'grpc-health-check';

/** proto/ at the repository (or image) root, from the sources or from dist/. */
export function protoRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.resolve(here, '../../proto'), path.resolve(here, '../../../proto')]) {
    if (existsSync(path.join(candidate, 'buf.yaml'))) return candidate;
  }
  throw new Error('proto/ directory not found next to the code');
}

/** Server reflection (grpcurl list/describe) for the given files of proto/, plus grpc.health.v1. */
export function addReflection(server: Server, protoFiles: string[]): void {
  const root = protoRoot();
  const definition = loadSync([...protoFiles.map((file) => path.join(root, file)), healthProtoPath], {
    includeDirs: [root, path.dirname(path.dirname(path.dirname(healthProtoPath)))],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  new ReflectionService(definition).addToServer(server);
}
