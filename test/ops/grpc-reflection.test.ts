/**
 * gRPC server reflection as strict standard tools use it (issue 13): Python's protobuf
 * DescriptorPool (what grpcurl's and grpcio-reflection's clients amount to) gets every file
 * over reflection, refuses any whose imports or types do not resolve, describes each service
 * and calls TicketService dynamically. Needs /usr/bin/python3 with Debian's python3-grpcio and
 * python3-protobuf (.ci/run installs them).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { create, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFileDescriptors } from '../../lib/grpc/descriptor-set.js';
import { protoRoot } from '../../lib/grpc/reflection.js';
import { signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const PYTHON = '/usr/bin/python3';
const CLIENT = fileURLToPath(new URL('../support/strict_reflection_client.py', import.meta.url));
const pythonHasGrpc = (() => {
  try {
    execFileSync(PYTHON, ['-c', 'import grpc, google.protobuf'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const SKIPPED = pythonHasGrpc ? '' : ' (SKIPPED: /usr/bin/python3 cannot import grpc; apt-get install -y python3-grpcio python3-protobuf)';

const REFLECTION = ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'];
const HEALTH = 'grpc.health.v1.Health';

/** Every .proto under proto/, as its import path: all of them must be served, whoever added them. */
function protoFilesOnDisk(directory = protoRoot(), prefix = ''): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return protoFilesOnDisk(path.join(directory, entry.name), `${prefix}${entry.name}/`);
    return entry.name.endsWith('.proto') ? [`${prefix}${entry.name}`] : [];
  });
}

interface Described {
  file: string;
  imports: string[];
  methods: Record<string, [string, string]>;
  types: string[];
}
interface ClientOutput {
  services: string[];
  described: Record<string, Described>;
  files: Record<string, string[]>;
  created?: Record<string, unknown>;
  read?: Record<string, unknown>;
  missing?: string;
}

describe.skipIf(!pythonHasGrpc)(`gRPC reflection with a strict client${SKIPPED}`, () => {
  let stack: TestStack;
  let account: Account;
  let tempDir: string;
  let reflectionSet: string;

  /** Runs the Python client against one port with one version of the reflection protocol. */
  async function strictClient(address: string, reflectionPackage: string, files: string[] = []): Promise<ClientOutput> {
    const { stdout } = await promisify(execFile)(PYTHON, [CLIENT, address, reflectionSet, reflectionPackage, files.join(',')], {
      env: { ...process.env, TOKEN: account.accessToken },
      timeout: 60_000,
    });
    return JSON.parse(stdout) as ClientOutput;
  }

  beforeAll(async () => {
    stack = await startTestStack();
    account = await signUpAndLogin(stack);
    // The client's own copy of the reflection protocol, nothing else.
    tempDir = mkdtempSync(path.join(os.tmpdir(), 'reflection-test-'));
    reflectionSet = path.join(tempDir, 'reflection.binpb');
    const files = (await loadFileDescriptors()).filter((file) => file.name.startsWith('grpc/reflection/'));
    writeFileSync(reflectionSet, toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files })));
  });
  afterAll(async () => {
    await stack?.stop();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  });

  it('describes the ticket port (v1): real files and imports, every type resolves; a dynamic CreateTicket then GetTicket works', async () => {
    const out = await strictClient(stack.ticketGrpcAddress, 'grpc.reflection.v1');
    expect(out.services).toEqual([HEALTH, ...REFLECTION, 'ticketing.v1.CouponService', 'ticketing.v1.EventService', 'ticketing.v1.OrderService', 'ticketing.v1.ReservationService', 'ticketing.v1.TicketService', 'ticketing.v1.WebhookService'].sort());

    const tickets = out.described['ticketing.v1.TicketService']!;
    expect(tickets.file).toBe('ticketing/v1/ticket.proto');
    expect(tickets.imports).toEqual(expect.arrayContaining(['google/protobuf/empty.proto', 'google/protobuf/field_mask.proto', 'google/protobuf/timestamp.proto']));
    expect(tickets.methods.GetTicket).toEqual(['ticketing.v1.GetTicketRequest', 'ticketing.v1.Ticket']);
    expect(tickets.types).toEqual(expect.arrayContaining(['ticketing.v1.Ticket', 'google.protobuf.Timestamp', 'google.protobuf.FieldMask', 'google.protobuf.Empty']));
    expect(out.described[HEALTH]!.file).toBe('grpc/health/v1/health.proto');
    expect(out.described['grpc.reflection.v1.ServerReflection']!.file).toBe('grpc/reflection/v1/reflection.proto');

    expect(out.created).toMatchObject({ name: 'Dynamic ticket', vat_percentage: '21' });
    expect(out.read).toEqual(out.created);
    expect(out.missing).toBe('NOT_FOUND');
  });

  it('describes the auth port (v1alpha) and serves every .proto on disk by name, with its imports', async () => {
    const onDisk = protoFilesOnDisk();
    expect(onDisk).toEqual(expect.arrayContaining(['auth/v1/auth.proto', 'ticketing/v1/ticket.proto', 'google/rpc/error_details.proto']));
    const out = await strictClient(stack.authGrpcAddress, 'grpc.reflection.v1alpha', onDisk);
    expect(out.services).toEqual([HEALTH, ...REFLECTION, 'auth.v1.AuthService'].sort());
    const auth = out.described['auth.v1.AuthService']!;
    expect(auth.file).toBe('auth/v1/auth.proto');
    expect(auth.imports).toEqual(expect.arrayContaining(['google/protobuf/empty.proto', 'google/protobuf/timestamp.proto']));
    expect(auth.types).toEqual(expect.arrayContaining(['auth.v1.IssueTokenRequest', 'google.protobuf.Timestamp', 'google.protobuf.Empty']));
    expect(Object.keys(out.files).sort()).toEqual([...onDisk].sort());
    expect(out.files['google/rpc/error_details.proto']).toEqual(['google/protobuf/duration.proto']);
  });
});
