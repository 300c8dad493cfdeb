import { readFileSync } from 'node:fs';
import path from 'node:path';
import { credentials, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthServiceClient } from '../../lib/gen/auth/v1/auth.js';
import { Event, EventServiceClient } from '../../lib/gen/ticketing/v1/event.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { callerMetadata, grpcCall, grpcFailure, tokenRequest } from '../support/grpc.js';
import { signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
/** The comment block right above `service <name> {`. */
const serviceHeader = (file: string) => /((?:\/\/.*\n)+)service \w+ \{/.exec(read(file))?.[1] ?? '';
const grpcSection = () => read('docs/grpc.md');

/**
 * What a gRPC user must know is written where a gRPC user looks (the proto comments, the
 * gRPC page of the docs, docs/grpc.md), and it is what the services do.
 */
describe('the gRPC contract as documented', () => {
  let stack: TestStack;
  let account: Account;
  let auth: AuthServiceClient;
  let events: EventServiceClient;

  beforeAll(async () => {
    stack = await startTestStack();
    account = await signUpAndLogin(stack);
    auth = new AuthServiceClient(stack.authGrpcAddress, credentials.createInsecure());
    events = new EventServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
  });
  afterAll(async () => {
    auth?.close();
    events?.close();
    await stack?.stop();
  });

  it('the proto comments and docs/grpc.md name x-validate-only, refresh-token replay, the IssueToken errors and protoc 3.15', () => {
    for (const text of [serviceHeader('proto/ticketing/v1/ticket.proto'), serviceHeader('proto/ticketing/v1/event.proto'), grpcSection()]) {
      expect(text).toContain('x-validate-only: 1');
      expect(text).toMatch(/protoc 3\.15/);
    }
    for (const text of [read('proto/auth/v1/auth.proto'), grpcSection()]) {
      expect(text).toMatch(/protoc 3\.15/);
      expect(text).toMatch(/already used[\s\S]*whole session ends/);
      expect(text).toMatch(/INVALID_ARGUMENT[\s\S]{0,40}reason `?"?invalid_grant/);
    }
  });

  it('a wrong password and an unknown user get INVALID_ARGUMENT, reason invalid_grant, with the documented message', async () => {
    const documented = /reason "invalid_grant", "([^"]+)"/.exec(read('proto/auth/v1/auth.proto'))?.[1];
    expect(documented).toBeDefined();
    for (const username of [account.email, 'nobody@example.com']) {
      const err = await grpcFailure(grpcCall(auth.issueToken.bind(auth), tokenRequest({ grant_type: 'password', username, password: 'wrong password' }), callerMetadata(null)));
      expect(err.code).toBe(status.INVALID_ARGUMENT);
      expect(readErrorDetails(err).reason).toBe('invalid_grant');
      expect(err.details).toBe(documented);
    }
  });

  it('replaying a used refresh token ends the whole session', async () => {
    const first = await grpcCall(auth.issueToken.bind(auth), tokenRequest({ grant_type: 'password', username: account.email, password: account.password }), callerMetadata(null));
    const second = await grpcCall(auth.issueToken.bind(auth), tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token }), callerMetadata(null));
    await grpcCall(auth.getCurrentUser.bind(auth), {}, callerMetadata(second.access_token));
    const replay = await grpcFailure(grpcCall(auth.issueToken.bind(auth), tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token }), callerMetadata(null)));
    expect(replay.code).toBe(status.INVALID_ARGUMENT);
    expect(readErrorDetails(replay).reason).toBe('invalid_grant');
    expect((await grpcFailure(grpcCall(auth.getCurrentUser.bind(auth), {}, callerMetadata(second.access_token)))).code).toBe(status.UNAUTHENTICATED);
    const newest = await grpcFailure(grpcCall(auth.issueToken.bind(auth), tokenRequest({ grant_type: 'refresh_token', refresh_token: second.refresh_token }), callerMetadata(null)));
    expect(readErrorDetails(newest).reason).toBe('invalid_grant');
  });

  it('x-validate-only: 1 checks everything and writes nothing', async () => {
    const metadata = callerMetadata(account.accessToken);
    metadata.set('x-validate-only', '1');
    const invalid = await grpcFailure(grpcCall(events.createEvent.bind(events), { event: Event.fromPartial({ name: '' }), request_id: '' }, metadata.clone()));
    expect(invalid.code).toBe(status.INVALID_ARGUMENT);
    const preview = await grpcCall(events.createEvent.bind(events), { event: Event.fromPartial({ name: 'Preview' }), request_id: 'preview-1' }, metadata.clone());
    expect(preview.name).toBe('Preview');
    expect((await grpcFailure(grpcCall(events.getEvent.bind(events), { guid: preview.guid }, callerMetadata(account.accessToken)))).code).toBe(status.NOT_FOUND);
    expect((await grpcCall(events.listEvents.bind(events), { page_size: 0, page_token: '' }, callerMetadata(account.accessToken))).events).toEqual([]);
  });
});
