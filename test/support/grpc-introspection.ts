import path from 'node:path';
import { createRequire } from 'node:module';
import { credentials, loadPackageDefinition, makeGenericClientConstructor, type GrpcObject, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { service as healthService } from 'grpc-health-check';

const HealthClient = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');

/** grpc.health.v1.Health/Check of one service name: 'SERVING', 'NOT_SERVING', or 'error <code>' (5 = NOT_FOUND). */
export function healthStatus(address: string, service: string): Promise<string> {
  const client = new HealthClient(address, credentials.createInsecure());
  return new Promise<string>((resolve) => {
    (client as unknown as { check: (r: object, o: object, cb: (e: ServiceError | null, r: { status: string }) => void) => void }).check(
      { service },
      { deadline: Date.now() + 3000 },
      (err, response) => resolve(err ? `error ${err.code}` : String(response.status)),
    );
  }).finally(() => client.close());
}

/** The services a server lists over gRPC server reflection (grpcurl list), sorted. */
export function listServices(address: string): Promise<string[]> {
  const require = createRequire(import.meta.url);
  const protoFile = path.join(path.dirname(require.resolve('@grpc/reflection')), '..', 'proto', 'grpc', 'reflection', 'v1', 'reflection.proto');
  const loaded = loadPackageDefinition(loadSync(protoFile, { keepCase: true })) as GrpcObject;
  const Reflection = ((loaded.grpc as GrpcObject).reflection as GrpcObject).v1 as GrpcObject;
  return new Promise<string[]>((resolve, reject) => {
    const client = new (Reflection.ServerReflection as ServiceClientConstructor)(address, credentials.createInsecure());
    const call = (client as unknown as { ServerReflectionInfo: (o: object) => NodeJS.EventEmitter & { write(m: object): void; end(): void } }).ServerReflectionInfo({
      deadline: Date.now() + 5000,
    });
    call.on('data', (message: { list_services_response?: { service: Array<{ name: string }> } }) => {
      resolve((message.list_services_response?.service ?? []).map((s) => s.name).sort());
      call.end();
      client.close();
    });
    call.on('error', (err) => {
      client.close();
      reject(err);
    });
    call.write({ list_services: '' });
  });
}

/** The application services a server serves: what reflection lists, without grpc.health and grpc.reflection. */
export async function servedServices(address: string): Promise<string[]> {
  return (await listServices(address)).filter((name) => !name.startsWith('grpc.'));
}
