import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { status, type Server, type ServerDuplexStream, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage, type FileRegistry } from '@bufbuild/protobuf';
import { nestedTypes } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';

/** proto/ at the repository (or image) root, from the sources or from dist/. */
export function protoRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.resolve(here, '../../proto'), path.resolve(here, '../../../proto')]) {
    if (existsSync(path.join(candidate, 'buf.yaml'))) return candidate;
  }
  throw new Error('proto/ directory not found next to the code');
}

/** Both versions of the protocol: grpcurl and grpc-go ask v1 first, older clients (Python's, Postman) v1alpha. */
const REFLECTION_PACKAGES = ['grpc.reflection.v1', 'grpc.reflection.v1alpha'];

/** Where each symbol a client may ask about is defined, and what each file imports. */
interface Index {
  /** File name -> its serialized FileDescriptorProto, exactly as compiled. */
  encoded: Map<string, Uint8Array>;
  dependencies: Map<string, string[]>;
  /** Messages, fields, oneofs, enums, enum values, services, methods and extensions -> file name. */
  symbols: Map<string, string>;
  /** Extended message -> extension field number -> file name. */
  extensions: Map<string, Map<number, string>>;
  registry: FileRegistry;
}

function indexFiles(files: FileDescriptorProto[]): Index {
  // Also checks that the set is complete: every import and every type reference resolves.
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
  const index: Index = { encoded: new Map(), dependencies: new Map(), symbols: new Map(), extensions: new Map(), registry };
  for (const file of files) {
    index.encoded.set(file.name, toBinary(FileDescriptorProtoSchema, file));
    index.dependencies.set(file.name, file.dependency);
  }
  for (const file of registry.files) {
    const name = file.proto.name; // file.name has no .proto suffix
    for (const type of nestedTypes(file)) {
      index.symbols.set(type.typeName, name);
      if (type.kind === 'message') {
        for (const member of [...type.fields, ...type.oneofs]) index.symbols.set(`${type.typeName}.${member.name}`, name);
      }
      if (type.kind === 'enum') {
        // Enum values are scoped like siblings of their enum (C++ rules), not inside it.
        const scope = type.typeName.slice(0, type.typeName.lastIndexOf('.') + 1);
        for (const value of type.values) index.symbols.set(`${scope}${value.name}`, name);
      }
      if (type.kind === 'service') for (const method of type.methods) index.symbols.set(`${type.typeName}.${method.name}`, name);
      if (type.kind === 'extension') {
        const numbers = index.extensions.get(type.extendee.typeName) ?? new Map<number, string>();
        index.extensions.set(type.extendee.typeName, numbers.set(type.number, name));
      }
    }
  }
  return index;
}

class NotFound extends Error {}

/** The file and every file it imports, directly or not, the file itself first. */
function withImports(index: Index, name: string | undefined): Uint8Array[] {
  if (name === undefined || !index.encoded.has(name)) throw new NotFound(`File not found: ${name ?? ''}`);
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const dependency of index.dependencies.get(file) ?? []) visit(dependency);
  };
  visit(name);
  return [...seen].map((file) => index.encoded.get(file)!);
}

type MessageRequest =
  | { case: 'fileByFilename' | 'fileContainingSymbol' | 'allExtensionNumbersOfType' | 'listServices'; value: string }
  | { case: 'fileContainingExtension'; value: { containingType: string; extensionNumber: number } }
  | { case: undefined; value?: undefined };

/** The oneof `message_response` that answers one request, in the field names of reflection.proto. */
function answer(index: Index, services: string[], request: MessageRequest): { case: string; value: object } {
  const files = (file: string | undefined) => ({ case: 'fileDescriptorResponse', value: { fileDescriptorProto: withImports(index, file) } });
  try {
    switch (request.case) {
      case 'listServices':
        return { case: 'listServicesResponse', value: { service: services.map((name) => ({ name })) } };
      case 'fileByFilename':
        return files(request.value);
      case 'fileContainingSymbol': {
        const file = index.symbols.get(request.value.replace(/^\./, ''));
        if (!file) throw new NotFound(`Symbol not found: ${request.value}`);
        return files(file);
      }
      case 'fileContainingExtension': {
        const file = index.extensions.get(request.value.containingType)?.get(request.value.extensionNumber);
        if (!file) throw new NotFound(`Extension not found: ${request.value.containingType} ${request.value.extensionNumber}`);
        return files(file);
      }
      case 'allExtensionNumbersOfType': {
        if (!index.registry.getMessage(request.value)) throw new NotFound(`Type not found: ${request.value}`);
        const numbers = [...(index.extensions.get(request.value)?.keys() ?? [])];
        return { case: 'allExtensionNumbersResponse', value: { baseTypeName: request.value, extensionNumber: numbers } };
      }
      default:
        return { case: 'errorResponse', value: { errorCode: status.INVALID_ARGUMENT, errorMessage: 'No request in the message.' } };
    }
  } catch (err) {
    if (!(err instanceof NotFound)) throw err;
    return { case: 'errorResponse', value: { errorCode: status.NOT_FOUND, errorMessage: err.message } };
  }
}

/** The ServerReflection service of one package, its messages encoded from the compiled reflection.proto itself. */
function reflectionService(index: Index, pkg: string, services: string[]): { definition: ServiceDefinition; handler: UntypedServiceImplementation } {
  const message = (name: string): DescMessage => {
    const desc = index.registry.getMessage(`${pkg}.${name}`);
    if (!desc) throw new Error(`${pkg}.${name} is missing from the compiled descriptors`);
    return desc;
  };
  const requestType = message('ServerReflectionRequest');
  const responseType = message('ServerReflectionResponse');
  const definition: ServiceDefinition = {
    ServerReflectionInfo: {
      path: `/${pkg}.ServerReflection/ServerReflectionInfo`,
      requestStream: true,
      responseStream: true,
      requestSerialize: (value: Record<string, unknown>) => Buffer.from(toBinary(requestType, create(requestType, value))),
      requestDeserialize: (bytes: Buffer) => fromBinary(requestType, bytes),
      responseSerialize: (value: Record<string, unknown>) => Buffer.from(toBinary(responseType, create(responseType, value))),
      responseDeserialize: (bytes: Buffer) => fromBinary(responseType, bytes),
    },
  };
  const handler: UntypedServiceImplementation = {
    ServerReflectionInfo: (stream: ServerDuplexStream<{ host: string; messageRequest: MessageRequest }, object>) => {
      stream.on('data', (request: { host: string; messageRequest: MessageRequest }) => {
        stream.write({ validHost: request.host, originalRequest: request, messageResponse: answer(index, services, request.messageRequest) });
      });
      stream.on('end', () => stream.end());
    },
  };
  return { definition, handler };
}

/**
 * Standard gRPC server reflection (grpcurl list/describe, Postman, Python's descriptor pool)
 * from the real file descriptors: each file under its own name, with its imports, so strict
 * clients can build every type. Lists the services added to the server before it, and itself.
 */
export function addReflection(server: Server, files: FileDescriptorProto[], servedServices: string[]): void {
  const index = indexFiles(files);
  const services = [...servedServices, ...REFLECTION_PACKAGES.map((pkg) => `${pkg}.ServerReflection`)];
  const undescribed = services.filter((name) => !index.registry.getService(name));
  if (undescribed.length) throw new Error(`no proto file describes ${undescribed.join(', ')}`);
  for (const pkg of REFLECTION_PACKAGES) {
    const { definition, handler } = reflectionService(index, pkg, services);
    server.addService(definition, handler);
  }
}
