import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { isMain } from '../process/is-main.js';
import { protoRoot } from './reflection.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Written by `npm run build` next to the compiled code (dist/), read instead of compiling at start. */
export const PREBUILT_DESCRIPTORS = path.resolve(here, '../../grpc-descriptors.binpb');

/**
 * The standard protos the servers also serve, under their canonical import paths
 * (as grpc-go and grpc-java register them), taken from the packages that implement them.
 */
function vendoredProtos(): Array<{ name: string; source: string }> {
  const reflectionProtos = path.join(path.dirname(require.resolve('@grpc/reflection')), '..', 'proto');
  return [
    { name: 'grpc/health/v1/health.proto', source: healthProtoPath },
    ...['v1', 'v1alpha'].map((version) => {
      const name = `grpc/reflection/${version}/reflection.proto`;
      return { name, source: path.join(reflectionProtos, name) };
    }),
  ];
}

const execFileAsync = promisify(execFile);

/** `buf build` of one directory: a serialized FileDescriptorSet with every imported file (google/protobuf/* included). */
async function bufBuild(directory: string): Promise<Buffer> {
  const buf = path.join(path.dirname(require.resolve('@bufbuild/buf/package.json')), 'bin', 'buf');
  const { stdout } = await execFileAsync(buf, ['build', directory, '--output', '-'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  });
  return stdout;
}

/** Compiles every file of proto/ and the standard health and reflection protos with buf. */
export async function compileDescriptorSet(): Promise<Buffer> {
  const vendorDir = mkdtempSync(path.join(os.tmpdir(), 'grpc-protos-'));
  try {
    for (const proto of vendoredProtos()) {
      mkdirSync(path.dirname(path.join(vendorDir, proto.name)), { recursive: true });
      copyFileSync(proto.source, path.join(vendorDir, proto.name));
    }
    // Two serialized FileDescriptorSets concatenated are one set holding both lists of files.
    return Buffer.concat(await Promise.all([bufBuild(protoRoot()), bufBuild(vendorDir)]));
  } finally {
    rmSync(vendorDir, { recursive: true, force: true });
  }
}

let loading: Promise<FileDescriptorProto[]> | undefined;

/**
 * The real file descriptors (names, imports, options, comments) of everything the gRPC servers
 * can describe: the prebuilt set of a build, or else proto/ compiled now (once per process).
 * Files are listed once each, whatever the number of sets that held them.
 */
export function loadFileDescriptors(): Promise<FileDescriptorProto[]> {
  loading ??= (async () => {
    const bytes = existsSync(PREBUILT_DESCRIPTORS) ? readFileSync(PREBUILT_DESCRIPTORS) : await compileDescriptorSet();
    const byName = new Map(fromBinary(FileDescriptorSetSchema, bytes).file.map((file) => [file.name, file]));
    return [...byName.values()];
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

// `node dist/lib/grpc/descriptor-set.js dist/grpc-descriptors.binpb` (npm run build): the prebuilt set, for images without buf.
if (isMain(import.meta.url)) {
  const [output] = process.argv.slice(2);
  if (!output) throw new Error('usage: descriptor-set.js <output file> (npm run build writes dist/grpc-descriptors.binpb)');
  writeFileSync(output, await compileDescriptorSet());
}
